"""tables - the text tables of a results.json: report.md, --table, the cover letter.

table() is the comparison, one metric per row: the value, its spread (half
the range of the repetitions over the median, where there are
repetitions), the change against the unpatched kernel at the same
workload and setting, else at def (named in the column against), and '*'
where that change exceeds the spread of either side (stats.exceeds);
rendered once and reused by report.md, report.py --table and
the cover letter (kind "cover": COVER_METRICS only).

regression_table() is in the form of mmtests compare-kernels and LKP: one
metric per row, unpatched and patched medians with their spreads, the
change, and '*' where the change exceeds the larger spread;
tradeoff_table() gives every setting's cost with its spread, sweep_table()
the page-fault probe at every setting, cost_table() where the cost goes
(lock round trips per path), chunked_verdict() the refills by hold
(docs/experiments/chunked-refill.patch).  Costs prefer the icount rows, waits and holds the tcg ones.
"""
import settings
from results import PATHS
from stats import exceeds, spread_pct


PROBE_NAMES = {"pf": "page_fault1", "pf2": "page_fault2", "pflat": "fault latency",
               "fork": "fork+exit", "mmap": "mmap+munmap", "build": "gcc -c storm.c"}


def preferred_timing(cases):
    return "icount" if any(c.get("timing") == "icount" for c in cases) else "tcg"


def fmt_num(x, nd=None):
    if x is None:
        return "-"
    if nd is not None:
        return "%.*f" % (nd, x)
    if abs(x) >= 100 or x == int(x):
        return "%.0f" % x
    return "%.2f" % x


def fmt_spread(runs):
    sp = spread_pct(runs or [])
    return "-" if sp is None else "+-%.2f%%" % sp


def getter(*path):
    """A getter of c[path...], None where any step is missing."""
    def get(c):
        for k in path:
            if not isinstance(c, dict) or c.get(k) is None:
                return None
            c = c[k]
        return c
    return get


def in_ms(get):
    return lambda c: None if get(c) is None else get(c) / 1e3


def _storm_metrics():
    """(name, scenario, value of a case, its repetitions or None): the rows
    of the comparison, per scenario."""
    m = []
    for sc, short, win in (("exit-storm", "exit", "exit"), ("refill", "refill", "refill")):
        for p in PATHS:
            m.append(("%s: hold p99 us %s" % (short, p), sc, getter("holds", p, "p99_us"), None))
        for p in ("free", "refill", "drain"):
            m.append(("%s: max pages %s" % (short, p), sc, getter("holds", p, "max_pages"), None))
        for ph in ("alone", "fault_in", win, "quiet"):
            m.append(("%s: wait p99 us %s" % (short, ph), sc,
                      getter("victim_lock_wait_by_phase", ph, "p99_us"), None))
            m.append(("%s: wait sum ms %s" % (short, ph), sc,
                      in_ms(getter("victim_lock_wait_by_phase", ph, "total_us")), None))
        for p in PATHS:
            m.append(("%s: wait p99 us by %s" % (short, p), sc,
                      getter("victim_lock_wait_by_holder", p, "p99_us"), None))
            m.append(("%s: wait sum ms by %s" % (short, p), sc,
                      in_ms(getter("victim_lock_wait_by_holder", p, "total_us")), None))
        m.append(("%s: victim fault p99.9 us" % short, sc, getter("victim", "p999_us"), None))
        if sc == "exit-storm":
            m.append(("exit: storm ms", sc, getter("storm_ms", "median"), getter("storm_ms", "runs")))
        else:
            m.append(("refill: MiB/s", sc, getter("refill_mib_s", "median"),
                      getter("refill_mib_s", "runs")))
    return tuple(m)


STORM_METRICS = _storm_metrics()
# the rows the cover letter quotes (as before the per-path split, + refill)
COVER_METRICS = ("exit: max pages free", "exit: hold p99 us free", "exit: wait p99 us exit",
                 "exit: wait sum ms exit", "exit: wait p99 us by free",
                 "exit: victim fault p99.9 us", "exit: storm ms", "refill: max pages refill",
                 "refill: hold p99 us refill", "refill: wait p99 us refill",
                 "refill: wait sum ms refill", "refill: MiB/s")


def reference(base_rows, c):
    """The unpatched row C's change is against: the same workload at C's
    setting, else at def; (row, its setting) or (None, None)."""
    setting = c.get("setting", "def")
    for s in (setting, "def"):
        r = base_rows.get((c["workload"], s))
        if r:
            return r, s
    return None, None


def table_rows(res, kind=None):
    """The comparison, one metric of one case per row: (metric, kernel,
    setting, value, spread %, change % against the unpatched kernel at the
    same workload and setting, else at def, mark, that setting)."""
    # waits and holds come from the real-time (tcg) boots; the probes from
    # the icount ones where there are any
    storms = [c for c in res if c.get("scenario") and c.get("timing", "tcg") == "tcg"
              and kind != "micro"]
    micro = [c for c in res if c["workload"].startswith("micro:") and kind in (None, "micro")]
    mt = "icount" if any(c.get("timing") == "icount" for c in micro) else "tcg"
    micro = [c for c in micro if c.get("timing", "tcg") == mt]
    base = {(c["workload"], c.get("setting", "def")): c for c in storms + micro
            if c["kernel"] == "base"}
    rows = []

    def row(metric, c, val, runs, get, get_runs, setting):
        if val is None:
            return
        sp = spread_pct(runs) if runs else None
        r, against = reference(base, c) if c["kernel"] != "base" else (None, None)
        ref_val = get(r) if r else None
        delta = mark = None
        if ref_val:
            delta = (val - ref_val) / ref_val * 100
            ref_runs = get_runs(r) if get_runs else None
            mark = "*" if exceeds(delta, sp, spread_pct(ref_runs) if ref_runs else None) else ""
        rows.append((metric, c["kernel"], setting, val, sp, delta, mark or "",
                     against if delta is not None else None))

    for metric, sc, get, get_runs in STORM_METRICS:
        if kind == "cover" and metric not in COVER_METRICS:
            continue
        for c in storms:
            if c["scenario"] == sc:
                row(metric, c, get(c), get_runs(c) if get_runs else None, get, get_runs,
                    c["setting"])
    for c in micro:
        row("%s %s" % (c["workload"][len("micro:"):], c["value"]["unit"]), c,
            c["value"]["median"], c["value"]["runs"], getter("value", "median"),
            getter("value", "runs"), "def")
    # a metric that is 0 or absent for every case says nothing: no rows
    keep = {r[0] for r in rows if r[3]}
    return [r for r in rows if r[0] in keep]


def table(res, kind=None):
    """The comparison table as fixed-width text (report.md, --table, cover);
    kind "storm" or "micro" keeps those rows only, "cover" the storm rows
    of COVER_METRICS.  against: the unpatched setting the change is
    against."""
    def num(x):
        if x is None:
            return "-"
        return "%.0f" % x if abs(x) >= 100 or x == int(x) else "%.1f" % x
    fmt_row = "%-30s %-9s %-7s %8s %8s %10s %s"
    lines = [fmt_row % ("metric", "kernel", "setting", "value", "spread", "change", "against"),
             fmt_row % ("-" * 30, "-" * 9, "-" * 7, "-" * 8, "-" * 8, "-" * 10, "-" * 7)]
    last = None
    for metric, kernel, setting, val, sp, delta, mark, against in table_rows(res, kind):
        if last is not None and metric != last:
            lines.append("")
        last = metric
        change = "-" if delta is None else "%+.1f%%" % delta + (" " + mark if mark else "")
        lines.append(fmt_row % (
            metric, "unpatched" if kernel == "base" else kernel, setting, num(val),
            "-" if sp is None else "+-%.1f%%" % sp, change, against or "-"))
    return "\n".join(lines) + "\n"


def regression_rows(res):
    """(base, timing, metric, unit, unpatched median, runs, patched median,
    runs) at the default settings, per base, in the preferred timing: the
    probes and the scenarios' cost."""
    rows = []
    for b in sorted({c.get("base") or "?" for c in res}):
        cs = [c for c in res if (c.get("base") or "?") == b]
        t = preferred_timing(cs)
        cs = [c for c in cs if c.get("timing", "tcg") == t]
        by = {(c["kernel"], c["workload"], c.get("setting", "def")): c for c in cs}
        for c in cs:
            if c["kernel"] != "base" or not c["workload"].startswith("micro:"):
                continue
            p = by.get(("patched", c["workload"], "def"))
            probe, _, procs = c["workload"][len("micro:"):].partition("-x")
            name = "%s x%s" % (PROBE_NAMES.get(probe, probe), procs or "1")
            rows.append((b, t, name, c["value"]["unit"], c["value"]["median"], c["value"]["runs"],
                         p["value"]["median"] if p else None, p["value"]["runs"] if p else None))
        for wl, metric, unit, get in (
                ("exit-storm", "exit storm time", "ms", getter("storm_ms")),
                ("exit-storm", "exit storm sys time", "ms", getter("storm_sys_ms")),
                ("refill", "refill load", "MiB/s", getter("refill_mib_s"))):
            c, p = by.get(("base", wl, "def")), by.get(("patched", wl, "def"))
            if c and get(c) and get(c)["median"] is not None:
                rows.append((b, t, metric, unit, get(c)["median"], get(c)["runs"],
                             get(p)["median"] if p and get(p) else None,
                             get(p)["runs"] if p and get(p) else None))
    return rows


def regression_table(res):
    """mmtests compare / LKP form: per base and timing, one metric per row."""
    rows = regression_rows(res)
    if not rows:
        return "(no regression probes in results.json)\n"
    fmt_row = "%-24s %-7s %12s %9s %12s %9s %8s %s"
    out, last = [], None
    worst = {}
    for b, t, name, unit, bv, br, pv, pr in rows:
        if (b, t) != last:
            if last:
                out.append("")
            out.append("base %s, timing %s, default settings (runs: %d)" % (b, t, len(br)))
            out.append((fmt_row % ("metric", "unit", "unpatched", "spread", "patched", "spread",
                                   "change", "")).rstrip())
            last = (b, t)
        delta = mark = None
        if pv is not None and bv:
            delta = (pv - bv) / bv * 100
            noise = [x for x in (spread_pct(br), spread_pct(pr or [])) if x is not None]
            mark = "*" if exceeds(delta, *noise) else ""
            w = worst.setdefault((b, t), [0.0, 0.0])
            w[0] = max(w[0], abs(delta))
            w[1] = max([w[1]] + noise)
        out.append((fmt_row % (name, unit, fmt_num(bv), fmt_spread(br), fmt_num(pv), fmt_spread(pr),
                               "-" if delta is None else "%+.2f%%" % delta, mark or "")).rstrip())
    out.append("")
    for (b, t), (d, sp) in sorted(worst.items()):
        out.append("base %s, %s: largest |change| %.2f%%, largest spread %.2f%%" % (b, t, d, sp))
    return "\n".join(out) + "\n"


def tradeoff_rows(res):
    """Per base, the patched kernel at every setting (+ unpatched def), in
    the preferred timing: (base, timing, kernel, setting, exit-storm case,
    refill case)."""
    rows = []
    for b in sorted({c.get("base") or "?" for c in res}):
        cs = [c for c in res if (c.get("base") or "?") == b and c.get("scenario")
              and not settings.alone(c["setting"])]
        t = preferred_timing(cs)
        cs = [c for c in cs if c.get("timing", "tcg") == t]
        by = {(c["kernel"], c["setting"], c["scenario"]): c for c in cs}
        for k, s in [("base", "def")] + [("patched", s) for s in settings.labels()]:
            e, r = by.get((k, s, "exit-storm")), by.get((k, s, "refill"))
            if e or r:
                rows.append((b, t, k, s, e, r))
    return rows


def tradeoff_table(res):
    """Every setting's cost, median and spread: the exit storm's time and
    system time, the refill load's throughput, the victim's fault time p99
    and sum in the exit window, the storm time's change against def.  The
    icount runs have no victim (bench/run: each run alone): there the
    victim's columns come from the same setting's untraced tcg run."""
    rows = tradeoff_rows(res)
    if not rows:
        return "(no scenario runs in results.json)\n"
    tcg = {(c.get("base") or "?", c["kernel"], c["setting"]): c for c in res
           if c.get("scenario") == "exit-storm" and c.get("timing", "tcg") == "tcg"
           and c.get("victim_runs")}

    def mr(get, c):
        v = get(c) if c else None
        if not v or v.get("median") is None:
            return "-", "-"
        return fmt_num(v["median"]), fmt_spread(v.get("runs"))
    fmt_row = "%-9s %-6s %8s %8s %8s %8s %7s %8s %8s %8s %7s"
    out, last, ref = [], None, {}
    for b, t, k, s, e, r in rows:
        if (b, t) != last:
            if last:
                out.append("")
            out.append("base %s, timing %s; change: storm time against patched def%s"
                       % (b, t, "; v. columns: tcg" if t != "tcg" else ""))
            out.append(fmt_row % ("kernel", "setting", "storm ms", "spread", "sys ms", "spread",
                                  "refill", "spread", "v.p99 us", "v.sum ms", "change"))
            out.append(fmt_row % ("", "", "(exit)", "", "(exit)", "", "MiB/s", "", "(exit)",
                                  "(exit)", ""))
            last = (b, t)
            ref = {x[3]: x[4] for x in rows if x[0] == b and x[1] == t and x[2] == "patched"}
        sm, ssp = mr(getter("storm_ms"), e)
        ym, ysp = mr(getter("storm_sys_ms"), e)
        rm, rsp = mr(getter("refill_mib_s"), r)
        v = e if e and e.get("victim_runs") else tcg.get((b, k, s))
        vp, _ = mr(getter("victim_runs", "p99_us"), v)
        vs, _ = mr(getter("victim_runs", "sum_ms"), v)
        d = ref.get("def")
        change = "-"
        if e and d and k == "patched" and d["storm_ms"]["median"] and e["storm_ms"]["median"]:
            change = "%+.2f%%" % ((e["storm_ms"]["median"] / d["storm_ms"]["median"] - 1) * 100)
        out.append(fmt_row % ("unpatched" if k == "base" else k, s, sm, ssp, ym, ysp, rm, rsp,
                              vp, vs, change))
    return "\n".join(out) + "\n"


def sweep_table(res):
    """page_fault1 (one process) per setting, icount: the knob's cost to the
    CPU that faults in and unmaps, with its spread."""
    cs = [c for c in res if c["workload"] == "micro-sweep:pf"]
    if not cs:
        return "(no page-fault sweep in results.json)\n"
    cs.sort(key=lambda c: (c.get("base") or "", settings.rank(c["setting"])))
    fmt_row = "%-5s %-7s %5s %5s %10s %9s %9s %8s %s"
    out = [fmt_row % ("base", "setting", "scale", "hfrac", "pages/s", "spread", "sys ms",
                      "change", "")]
    ref = {c.get("base"): c for c in cs if c["setting"] == "def"}
    for c in cs:
        d = ref.get(c.get("base"))
        delta = mark = ""
        if d and c is not d:
            dv = (c["value"]["median"] / d["value"]["median"] - 1) * 100
            delta = "%+.2f%%" % dv
            mark = "*" if exceeds(dv, spread_pct(c["value"]["runs"]),
                                  spread_pct(d["value"]["runs"])) else ""
        st = c.get("settings", {})
        out.append((fmt_row % (c.get("base") or "?", c["setting"],
                               st.get("pcp_batch_scale_max"), st.get("percpu_pagelist_high_fraction"),
                               fmt_num(c["value"]["median"]),
                               fmt_spread(c["value"]["runs"]), fmt_num(c["cpu_ms"]["median"]),
                               delta or "-", mark)).rstrip())
    return "\n".join(out) + "\n"


def cost_table(res):
    """Where a setting's cost goes, from the traced real-time runs: zone->lock
    holds (lock round trips) per path, the time they held it, and the
    largest refill."""
    cs = [c for c in res if c.get("scenario") and c.get("timing", "tcg") == "tcg"
          and c.get("holds") and not settings.alone(c["setting"])
          and any(h["calls"] for h in c["holds"].values())]
    if not cs:
        return "(no traced runs in results.json)\n"
    fmt_row = "%-9s %-7s %-10s %8s %8s %8s %8s %9s %9s %9s"
    out = [fmt_row % ("kernel", "setting", "scenario", "free", "refill", "drain", "decay",
                      "free ms", "refill ms", "pages/rf"),
           fmt_row % ("", "", "", "holds", "holds", "holds", "holds", "held", "held", "max")]
    cs.sort(key=lambda c: (c.get("base") or "", c["scenario"], c["kernel"] != "base",
                           settings.rank(c["setting"])))
    for c in cs:
        h = c["holds"]
        per = (h["refill"].get("per_refill") or {}).get("max_pages_per_refill")
        out.append(fmt_row % ("unpatched" if c["kernel"] == "base" else c["kernel"], c["setting"],
                              c["scenario"], h["free"]["calls"], h["refill"]["calls"],
                              h["drain"]["calls"], h["decay"]["calls"],
                              fmt_num(h["free"]["total_us"] / 1e3, 1),
                              fmt_num(h["refill"]["total_us"] / 1e3, 1), fmt_num(per)))
    return "\n".join(out) + "\n"


def chunked_verdict(res):
    """Refills in pcp->batch sized zone->lock holds (docs/experiments/chunked-refill.patch on
    mainline): the unpatched kernel (one hold per refill), the patched one
    at the default and at knob 0: the victim's wait tail per
    phase, the largest refill hold and refill, and the cost in the
    preferred timing against the unpatched kernel."""
    tcg = {(c["kernel"], c["setting"], c["scenario"]): c for c in res
           if c.get("scenario") and c.get("timing", "tcg") == "tcg"}
    cols = [(k, s) for k, s in (("base", "def"), ("patched", "def"), ("patched", "k0"))
            if tcg.get((k, s, "exit-storm"))]
    if ("patched", "def") not in cols:
        return "(no tcg exit-storm run of the patched kernel at def in results.json)"

    def name(k, s):
        return "unpatched" if k == "base" else s
    lines = []
    for sc, ph in (("exit-storm", "fault_in"), ("exit-storm", "exit"), ("refill", "refill")):
        vals = []
        for k, s in cols:
            c = tcg.get((k, s, sc))
            w = (c or {}).get("victim_lock_wait_by_phase", {}).get(ph, {})
            vals.append("%s %s" % (name(k, s), fmt_num(w.get("p99_us"))))
        lines.append("victim zone->lock wait p99 us, %s phase: %s" % (ph, ", ".join(vals)))
    for sc in ("exit-storm", "refill"):
        vals = []
        for k, s in cols:
            c = tcg.get((k, s, sc))
            if c:
                r = c["holds"]["refill"]
                per = r.get("per_refill") or {}
                vals.append("%s: %s holds, max %s pages / %s us (p99 %s us), refill max %s pages"
                            % (name(k, s), fmt_num(r["calls"]), fmt_num(r["max_pages"]),
                               fmt_num(r["max_us"]), fmt_num(r["p99_us"]),
                               fmt_num(per.get("max_pages_per_refill"))))
        lines.append("%s refills: %s" % (sc, "; ".join(vals)))
    t = preferred_timing([c for c in res if c.get("scenario")])
    cost = {(c["kernel"], c["setting"], c["scenario"]): c for c in res
            if c.get("scenario") and c.get("timing", "tcg") == t}
    for sc, get, what in (("exit-storm", getter("storm_ms"), "exit storm ms"),
                          ("refill", getter("refill_mib_s"), "refill MiB/s")):
        ref = cost.get(("base", "def", sc)) or cost.get(("patched", "def", sc))
        if not (ref and get(ref) and get(ref)["median"]):
            continue
        vals = []
        for k, s in cols:
            c = cost.get((k, s, sc))
            if c and get(c):
                vals.append("%s %s %s (%+.2f%%)" % (name(k, s), fmt_num(get(c)["median"]),
                                                   fmt_spread(get(c)["runs"]),
                                                   (get(c)["median"] / get(ref)["median"] - 1) * 100))
        lines.append("%s (%s): %s" % (what, t, ", ".join(vals)))
    return "\n".join(lines)


def legend():
    """The setting labels, from configs/settings."""
    lines = settings.legend()
    lines.append("%-7s %s" % ("X-a", "setting X, the exit storm alone (no victim)"))
    return "\n".join(lines) + "\n"
