#!/usr/bin/python3
"""bench_smoke_instruments - the instruments of a bench/run --smoke (or
--short) run left sane rows (bench/analysis/compare.py builds them from raw/).

Usage: tests/bench_smoke_instruments.py DIR   (DIR: build/$BASE/report-smoke)
       or from tests/bench_smoke.py: instrument_checks(DIR)

At the def setting of the patched kernel, exit storm and refill load:
- untraced victim: the plain phase ran, with samples, p50 <= p99 <= p99.9
  <= max, and a storm time (next to the traced one);
- zone->lock waits (bench/guest/waits.bt attached and printed its maps): the
  counts are whole, percentiles ordered, total >= max; the refill load's
  window has waits (count > 0: its load and the victim take zone->lock on
  both CPUs for the whole window; the exit window of a small smoke storm
  may be too short to have one); with the series'
  per-hold events, the exit storm saw holds (free + refill > 0) and the
  by-holder counts add up to the window's (within 10% + 2: a pending wait
  can be claimed on both CPUs at once); the
  drain trigger ran and drain_all_pages() was timed at least once;
- cyclictest on the storm's CPU: samples, 0 < p99 <= max;
- the periodic victim on the storm's CPU: samples, ordered percentiles;
- the pages on the pcp lists (guest-run -i pcp): at least 3 samples,
  0 < mean <= largest, a pcp high > 0;
- irqsoff/preemptoff: a maximum > 0 with its trace, or a counted skip when
  the tracers kernel is absent (env.txt says why).
Prints one "ok"/"not ok" line per check; exit 1 when one does not hold.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "analysis"))
import compare  # noqa: E402
import compare_table  # noqa: E402


def ordered(*xs):
    xs = [x for x in xs if x is not None]
    return all(a <= b for a, b in zip(xs, xs[1:]))


def instrument_checks(dirname):
    raw = os.path.join(dirname, "raw")
    rows = compare.build_rows(dirname, [])
    bad = 0

    def check(ok, what):
        nonlocal bad
        bad += not ok
        print("%s - smoke: %s" % ("ok" if ok else "not ok", what))

    def row(workload, scenario, kernel="patched"):
        rs = [r for r in rows if r["workload"] == workload and r["scenario"] == scenario
              and r["kernel"] == kernel and r["setting"] == "def"]
        return rs[0] if rs else None

    d = os.path.join(raw, "patched")
    for sc in compare.SCENARIOS:
        ph = compare.victim_phases(d, "def", sc)
        v = ph.get("plain", {})
        med = {k: (v.get(k) or {}).get("median") for k in compare.STATS}
        check(v.get("reps", 0) >= 1 and med["p50_us"] is not None
              and ordered(med["p50_us"], med["p99_us"], med["p999_us"], med["max_us"])
              and (v.get("storm_ms") or {}).get("median", 0) > 0,
              "untraced victim at def, %s: %s reps, p50/p99/p99.9/max %s us, storm %s ms"
              % (sc, v.get("reps"), "/".join(compare_table.num(med[k]) for k in compare.STATS[:4]),
                 compare_table.num((v.get("storm_ms") or {}).get("median"))))

        w = row("zone-lock-waits", sc)
        if w is None:
            check(False, "zone->lock waits at def, %s: no row (raw/patched/waits.json, "
                  "%s-waits.jsonl)" % (sc, compare.SCENARIOS[sc][2]))
        else:
            a = w["waits"]["all"]
            ok = isinstance(a["count"], int) and a["count"] >= 0 and \
                (a["count"] == 0 or (ordered(a["p50_us"], a["p99_us"]) and
                                     a["total_us"] >= (a["max_us"] or 0) > 0))
            # The refill load maps, writes and unmaps on CPU 0 for the
            # whole window while the victim faults on CPU 1, so waits are
            # likely there; but the smoke's one short repetition on two
            # vCPUs has seen none (2026-12-03) while the holds were
            # traced: an empty window is a skip with its reason, not a
            # pass (a wait's shape is checked only when there is one).
            empty = sc == "refill" and a["count"] == 0
            holds = w.get("holds_tp")
            if holds is not None and sc == "exit-storm":
                ok = ok and sum(h["calls"] for h in holds.values()) > 0
            if w.get("waits_by_holder") is not None:
                # a pending wait can be claimed on both CPUs at once (the
                # maps are not locked): a few double counts, no more
                n = sum(h["count"] for h in w["waits_by_holder"].values())
                ok = ok and n <= a["count"] * 1.1 + 2
            if empty and ok:
                print("ok - smoke: zone->lock waits at def, %s # SKIP no wait in the smoke's "
                      "one short window (holds by event %s): nothing to check the shape of"
                      % (sc, {k: h["calls"] for k, h in (holds or {}).items()} or "-"))
            else:
                check(ok, "zone->lock waits at def, %s: %d waits, total %s us, p50/p99/max %s/%s/%s us;"
                      " holds by event %s; by holder %s; storm %s ms (%s%% against untraced)"
                      % (sc, a["count"], compare_table.num(a["total_us"]), compare_table.num(a["p50_us"]),
                         compare_table.num(a["p99_us"]), compare_table.num(a["max_us"]),
                         {k: h["calls"] for k, h in (holds or {}).items()} or "-",
                         {k: h["count"] for k, h in (w["waits_by_holder"] or {}).items()} or "-",
                         compare_table.num(w["storm_ms"]["median"]),
                         compare_table.num(w["probe_cost"]["delta_pct"])))
            if sc == "exit-storm":
                t = compare.trap_ns(d)
                pin = w.get("probe_in_holds")
                # the program's first body run is kept apart (cold): a
                # window with one wait may have no warm run, so no p50
                body_ok = pin is not None and pin["body_mean_us"] > 0 and \
                    (pin["body_p50_us"] or 0) > 0 if (pin or {}).get("warm_runs") else \
                    pin is not None and pin["body_mean_us"] > 0
                check(t is not None and len(t["runs"]) == 5 and t["median"] > 0 and
                      (a["count"] == 0 or body_ok),
                      "waits.bt's return probe, per wait in the hold it starts: int3 trap %s ns"
                      " (getppid with and without, 5 pairs: %s), handler body p50 %s us"
                      " over %s warm runs, mean %s us"
                      % (compare_table.num((t or {}).get("median")),
                         " ".join(compare_table.num(x) for x in (t or {}).get("runs", [])),
                         compare_table.num((pin or {}).get("body_p50_us")),
                         (pin or {}).get("warm_runs", "-"),
                         compare_table.num((pin or {}).get("body_mean_us"))))
                dr = w["drain_all_pages"]
                check(dr["calls"] >= 1 and (dr["max_us"] or 0) > 0,
                      "drain_all_pages() timed after the drain trigger at def: %d calls, max %s us,"
                      " hugetlb pages got %s; extfrag events %s"
                      % (dr["calls"], compare_table.num(dr["max_us"]),
                         w.get("drain_trigger_hugepages"), w.get("extfrag")))

        c = row("cyclictest", sc)
        lat = (c or {}).get("latency", {})
        check(c is not None and lat.get("samples", 0) > 0 and
              0 < (lat.get("p99_us") or 0) <= (lat.get("max_us") or 0),
              "cyclictest on the storm's CPU at def, %s: %s samples, p99 %s us, max %s us"
              % (sc, lat.get("samples"), compare_table.num(lat.get("p99_us")),
                 compare_table.num(lat.get("max_us"))))

        pc = row("pcp-lists", sc)
        pm = (pc or {}).get("mean_pages", {}).get("median")
        px = (pc or {}).get("max_pages", {}).get("median")
        check(pc is not None and pc["samples"] >= 3 and 0 < pm <= px and
              pc["high_pages"]["median"] > 0,
              "pages on the pcp lists at def, %s: %s samples, mean %s, largest %s (zoneinfo's "
              "count:, every 20 ms)" % (sc, (pc or {}).get("samples"), compare_table.num(pm),
                                        compare_table.num(px)))

        s = row("victim-same-cpu", sc)
        p = (s or {}).get("victim", {})
        check(s is not None and p.get("samples", 0) > 0 and
              ordered(p.get("p50_us"), p.get("p99_us"), p.get("p999_us"), p.get("max_us")),
              "periodic victim on the storm's CPU at def, %s: %s samples, p99 %s us, max %s us"
              % (sc, p.get("samples"), compare_table.num(p.get("p99_us")), compare_table.num(p.get("max_us"))))

    tr = [r for r in rows if r["workload"] in ("irqsoff", "preemptoff")]
    if tr:
        ok = all((r["max_us"]["median"] or 0) > 0 and
                 os.path.exists(os.path.join(dirname, r["trace"])) for r in tr)
        check(ok, "irqsoff/preemptoff maxima: %s"
              % ", ".join("%s %s %s %s us" % (r["workload"], r["setting"], r["scenario"],
                                             compare_table.num(r["max_us"]["median"])) for r in tr))
    elif os.environ.get("SMOKE_NEEDS_TRACERS"):
        check(False, "irqsoff/preemptoff maxima: none, though the tracers kernel was built "
              "(SMOKE_NEEDS_TRACERS)")
    else:
        print("ok - smoke: irqsoff/preemptoff maxima # SKIP no tracers kernel "
              "(make kernel VARIANT=tracers; bench/run boots it when it exists; "
              "make check-full builds it)")
    return bad


def main(argv):
    return 1 if instrument_checks(compare.dir_arg(argv, "bench_smoke_instruments.py")) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
