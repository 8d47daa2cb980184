#!/usr/bin/python3
"""compare - the instruments' rows and their compare table (mmtests form).

Usage: bench/analysis/compare.py DIR      (prints DIR/results.json's table)

bench/analysis/report.py calls instrument_rows(DIR, rows) with its own
scenario rows: it reads the raw output of bench/guest/guest-run's phases
in DIR/raw/KERNEL/ (tcg) and DIR/icount/raw/KERNEL/ (icount), and gives
(for report.py's one results.json):

- on every exit-storm and refill row: "victim_untraced" and "victim_traced",
  the victim's fault time per repetition of the plain (no probe attached)
  and the traced (bench/guest/paths.bt) phase, {p50_us|p99_us|p999_us|max_us|
  sum_ms: {median, runs}} plus "storm_ms" {median, runs} and "reps"; and
  "probe_cost": per instrument phase (paths, waits), the storm time under it
  against the untraced one ({storm_ms, storm_ms_untraced, delta_pct}).
- rows of workload "zone-lock-waits" (bench/guest/waits.bt, tcg): "waits" {all|
  victim|storm|other: {count, total_us, p50_us, p99_us, max_us}} in the
  scenario's window (exit or refill), "waits_all_phases" the same over the
  whole run, "waits_by_holder" {free|refill|other: {...}} (the window's
  waits by the hold they waited for, from the series' per-hold events;
  absent without them), "holds_tp" {free|refill: {calls, total_us,
  max_us, avg_us}} (the per-hold events in the window), "drain_all_pages" {calls,
  total_us, p50_us, p99_us, max_us} (after the drain trigger), "extfrag"
  (mm_page_alloc_extfrag events over the run), "storm_ms", "probe_cost",
  "probe_in_holds" {trap_us, warm_runs, body_p50_us (None without a warm
    run), body_mean_us, per_wait_us,
  total_us, of_total_wait_pct} (what waits.bt's return probe adds to the
  holds its waiters start: per wait trap + median body; total: trap x waits
  + the bodies' sum; against the window's total wait, may exceed 100).
- rows of workload "victim-same-cpu" (storm -w 500 on the storm's CPU):
  "victim_runs" {p50_us|p99_us|p999_us|max_us|sum_ms: {median, runs}},
  "victim" pooled, "storm_ms".
- rows of workload "cyclictest": "latency" {samples, p50_us, p99_us,
  p999_us, max_us} pooled and "latency_runs" {p99_us|max_us: {median,
  runs}}, "storm_ms".
- rows of workload "pcp-lists" (bench/guest/guest-run -i pcp, no victim): the
  pages on every CPU's pcp lists during each run, "mean_pages",
  "max_pages" and "high_pages" (the largest sum of zoneinfo's high:, which
  for a pcp whose CPU has not freed since a sysctl write is still the old
  high) {median, runs}, "samples" (20 ms apart, over all runs), "storm_ms".
- rows of workload "irqsoff" and "preemptoff": "max_us" {median, runs},
  "sections" (per run: the maximum's latency, where it started and ended,
  its stack's first frames, "allocator": whether a frame is the page
  allocator's), "allocator_runs" (how many), and "trace" (the file).

section(rows) is report.md's "## Instruments": one row per metric,
columns unpatched def, then the patched kernel at configs/settings' view
compare,
median and spread (half the range over the median, %), delta % against
unpatched, `*` where the delta exceeds the larger spread.  Cost rows come
from icount where the run has it, waits from tcg.
"""
import json
import os
import re
import sys

from compare_table import SECTION, SECTIONS_TEXT, compare_table, delta, med, sections_table
from results import base_of, bpf_maps, dir_arg, jsonl, need, samples
from stats import hist_upper

SCENARIOS = {"exit-storm": ("E", "", "storm", "victim_window"),
             "refill": ("R", ".r", "refill", "victim_refill")}
WHO = {"v": "victim", "s": "storm", "-": "other"}
STATS = ("p50_us", "p99_us", "p999_us", "max_us", "sum_ms")


def series(xs):
    return {"median": med(xs), "runs": xs}


def pct(v, n, q):
    """The q-quantile of a sorted list (as bench/storm does)."""
    return v[min(n - 1, int(n * q))] if n else None


def runs_of(rows, key):
    per = [r[key] for r in rows if r.get(key, {}).get("samples")]
    out = {k: series([x.get(k) for x in per]) for k in STATS}
    out["reps"] = len(per)
    return out


# --- per scenario rows -------------------------------------------------

def scenario_lines(d, label, scenario, phase):
    """Label's run in the scenario (label, label.r) and its lines of phase."""
    _, suffix, stem, _ = SCENARIOS[scenario]
    run = label + suffix
    return run, [r for r in jsonl(os.path.join(d, "%s-%s.jsonl" % (stem, phase)))
                 if r.get("label") == run]


def victim_phases(d, label, scenario):
    """victim_untraced / victim_traced and the storm times of each phase."""
    vkey = SCENARIOS[scenario][3]
    out = {}
    for phase in ("plain", "traced", "waits"):
        _, rows = scenario_lines(d, label, scenario, phase)
        if rows:
            v = runs_of(rows, vkey)
            v["storm_ms"] = series([r["storm_ms"] for r in rows])
            out[phase] = v
    return out


def entries(maps, name, runs, letters=None):
    """(key, value, REST) of map NAME's entries "PHASE:LABEL[,REST]" with a
    label in RUNS and (given LETTERS) a phase letter in LETTERS."""
    for key, val in maps.get(name, {}).items():
        ph, _, rest = key.partition(",")
        letter, _, lab = ph.partition(":")
        if lab in runs and (letters is None or letter in letters):
            yield key, val, rest


def sum_max_ns(maps, stem, key):
    """Key's entries in the maps @STEM_sum_ns and @STEM_max_ns (0 without)."""
    return tuple(maps.get("@%s_%s_ns" % (stem, x), {}).get(key, 0) for x in ("sum", "max"))


def pool(maps, stem, found):
    """Count, total ns and max ns over FOUND, entries() of @STEM_ns."""
    sm = [sum_max_ns(maps, stem, key) for key, _, _ in found]
    return (sum(b["count"] for _, hist, _ in found for b in hist),
            sum(s for s, _ in sm), max([0] + [m for _, m in sm]))


def add_us(h, sum_max):
    """Add a (sum, max) in ns to h's total_us and max_us."""
    h["total_us"] += sum_max[0] / 1e3
    h["max_us"] = max(h["max_us"], sum_max[1] / 1e3)


def wait_stats(maps, run, letters, who=None):
    """Waits of run in the phases of letters (who: v, s, - or all) from
    waits.bt's maps: count, total, percentiles (5 us steps below 1 ms, 500
    us above: the upper bound of the step), max."""
    found = [e for e in entries(maps, "@wait_ns", (run,), letters) if not who or e[2] == who]
    n, tot, mx = pool(maps, "wait", found)
    fine = [b for key, _, _ in found for b in maps.get("@wait_fine_us", {}).get(key, [])]
    coarse = [b for key, _, _ in found for b in maps.get("@wait_coarse_us", {}).get(key, [])]
    res = {"count": n, "total_us": tot / 1e3, "max_us": mx / 1e3 if n else None}
    # the two linear histograms as one list of us buckets
    buckets = [b for b in fine if b["count"]] + [b for b in coarse if b["count"]]
    for q, name in ((0.5, "p50_us"), (0.99, "p99_us")):
        v = hist_upper(buckets, q)
        res[name] = None if v is None else min(v, res["max_us"] or v)
    return res


def holder_stats(maps, run, letters):
    """Waits of run in the phases of letters by the hold they waited for
    (free, refill, other): count, total, max, log2 p50 and p99."""
    out = {}
    for key, hist, rest in entries(maps, "@hwait_ns", (run,), letters):
        who_kind = rest.split(",")
        if len(who_kind) != 2:
            continue
        h = out.setdefault(who_kind[1], {"count": 0, "total_us": 0.0, "max_us": 0.0, "_b": []})
        h["count"] += sum(b["count"] for b in hist)
        add_us(h, sum_max_ns(maps, "hwait", key))
        h["_b"] += hist
    for h in out.values():
        b = h.pop("_b")
        h["p50_us_log2"] = (hist_upper(b, 0.5) or 0) / 1e3
        h["p99_us_log2"] = (hist_upper(b, 0.99) or 0) / 1e3
    return out


def tp_holds(maps, run, letters):
    """Per-hold events of run in the phases of letters: calls, total, max."""
    out = {}
    for key, n, kind in entries(maps, "@holds", (run,), letters):
        h = out.setdefault(kind, {"calls": 0, "total_us": 0.0, "max_us": 0.0})
        h["calls"] += n
        add_us(h, sum_max_ns(maps, "hold", key))
    for h in out.values():
        h["avg_us"] = h["total_us"] / h["calls"] if h["calls"] else None
    return out


def drain_stats(maps, label):
    found = list(entries(maps, "@drain_ns", (label, label + ".r")))
    n, tot, mx = pool(maps, "drain", found)
    b = [x for _, hist, _ in found for x in hist]
    return {"calls": n, "total_us": tot / 1e3, "max_us": mx / 1e3 if n else None,
            "p50_us_log2": (hist_upper(b, 0.5) or 0) / 1e3 if n else None,
            "p99_us_log2": (hist_upper(b, 0.99) or 0) / 1e3 if n else None}


def trap_ns(d):
    """What one int3 probe costs before its body (bench/guest/guest-run's
    trap_cost): getppid ns/op with the probe minus without, per pair of
    runs; {median, runs} or None."""
    lines = jsonl(os.path.join(d, "waits", "trap.jsonl"))
    off = [r["value"] for r in lines if r.get("int3") == 0]
    on = [r["value"] for r in lines if r.get("int3") == 1]
    return series([b - a for a, b in zip(off, on)]) if off and on else None


def in_holds(maps, run, letter, waits, trap):
    """What waits.bt adds to the holds its waiters start.  Per wait: the
    trap (median of the pairs) plus the return body's median (log2 bucket,
    upper bound); in the window: trap x waits plus the bodies' sum, the
    program's first, cold run (@handler_first_ns) too when the window has
    it, and that
    against the window's total wait (can exceed 100: time added to holds
    against time spent waiting)."""
    n = waits["count"]
    found = list(entries(maps, "@handler_ns", (run,), letter))
    first = list(entries(maps, "@handler_first_ns", (run,), letter))
    if not n or trap is None or not (found or first):
        return None
    body = sum(v for _, v, _ in entries(maps, "@handler_sum_ns", (run,), letter)) + \
        sum(v for _, v, _ in first)
    # a window whose only wait was the program's first has no warm body:
    # no p50 then, and the per-wait figure takes the (cold) mean
    warm = sum(b["count"] for _, h, _ in found for b in h)
    p50 = hist_upper([b for _, h, _ in found for b in h], 0.5) if warm else None
    total = (trap["median"] * n + body) / 1e3
    return {"trap_us": trap["median"] / 1e3, "warm_runs": warm,
            "body_p50_us": p50 / 1e3 if p50 is not None else None,
            "body_mean_us": body / n / 1e3,
            "per_wait_us": (trap["median"] + (p50 if p50 is not None else body / n)) / 1e3,
            "total_us": total,
            "of_total_wait_pct": 100.0 * total / waits["total_us"] if waits["total_us"] else None}


def waits_row(base, d, kernel, label, scenario, timing):
    maps = bpf_maps(os.path.join(d, "waits.json"))
    letter, _, _, vkey = SCENARIOS[scenario]
    run, rows = scenario_lines(d, label, scenario, "waits")
    if not rows:
        return None
    plain = [r["storm_ms"] for r in scenario_lines(d, label, scenario, "plain")[1]]
    sm = series([r["storm_ms"] for r in rows])
    allp = "AFERQD"
    row = {"base": base, "timing": timing, "kernel": kernel, "setting": label,
           "settings": rows[0].get("settings"), "scenario": scenario,
           "workload": "zone-lock-waits", "reps": len(rows),
           "waits": {name: wait_stats(maps, run, letter, w) for w, name in
                     ((None, "all"), ("v", "victim"), ("s", "storm"), ("-", "other"))},
           "waits_all_phases": wait_stats(maps, run, allp),
           "probe_in_holds": None,
           "waits_by_holder": holder_stats(maps, run, letter) or None,
           "holds_tp": tp_holds(maps, run, letter) or None,
           "victim_runs": runs_of(rows, vkey),
           "storm_ms": sm,
           "probe_cost": {"storm_ms": sm["median"], "storm_ms_untraced": med(plain),
                          "delta_pct": delta(sm["median"], med(plain))}}
    row["probe_in_holds"] = in_holds(maps, run, letter, row["waits"]["all"], trap_ns(d))
    if scenario == "exit-storm":
        row["drain_all_pages"] = drain_stats(maps, label)
        row["extfrag"] = sum(n for k, n in maps.get("@extfrag", {}).items()
                             if k.partition(":")[2] in (label, label + ".r"))
        try:
            with open(os.path.join(d, "waits", label + ".hugepages")) as f:
                row["drain_trigger_hugepages"] = [int(x) for x in f.read().split()]
        except FileNotFoundError:
            pass
    return row


def pooled(v):
    n = len(v)
    if not n:
        return {"samples": 0}
    return {"samples": n, "p50_us": pct(v, n, .5) / 1e3, "p99_us": pct(v, n, .99) / 1e3,
            "p999_us": pct(v, n, .999) / 1e3, "max_us": v[-1] / 1e3, "sum_ms": sum(v) / 1e6}


def solo1_row(base, d, kernel, label, scenario, timing):
    vkey = SCENARIOS[scenario][3]
    run, rows = scenario_lines(d, label, scenario, "solo1")
    if not rows:
        return None
    win = "window" if scenario == "exit-storm" else "refill"
    return {"base": base, "timing": timing, "kernel": kernel, "setting": label,
            "settings": rows[0].get("settings"), "scenario": scenario,
            "workload": "victim-same-cpu", "reps": len(rows),
            "victim_period_us": rows[0].get("victim_period_us"),
            "victim_runs": runs_of(rows, vkey),
            "victim": pooled(samples(os.path.join(d, "solo1", "%s.%s" % (run, win)))),
            "storm_ms": series([r["storm_ms"] for r in rows])}


def pcp_row(base, d, kernel, label, scenario, timing):
    """The pages on the pcp lists during each run (bench/guest/guest-run -i pcp):
    per run the mean and the largest of the samples, and the largest high."""
    run, rows = scenario_lines(d, label, scenario, "pcp")
    lines = [r for r in jsonl(os.path.join(d, "pcp", "pcp.jsonl")) if r.get("label") == run]
    if not rows or not lines:
        return None
    return {"base": base, "timing": timing, "kernel": kernel, "setting": label,
            "settings": rows[0].get("settings"), "scenario": scenario,
            "workload": "pcp-lists", "reps": len(lines),
            "samples": sum(x["samples"] for x in lines),
            "mean_pages": series([x["mean_pages"] for x in lines]),
            "max_pages": series([x["max_pages"] for x in lines]),
            "high_pages": series([x["high_pages"] for x in lines]),
            "storm_ms": series([r["storm_ms"] for r in rows])}


def text_lines(path):
    """The lines of PATH, [] without the file."""
    try:
        with open(path) as f:
            return f.readlines()
    except FileNotFoundError:
        return []


def cyclictest_hist(path):
    """cyclictest -h output, possibly several runs appended: per run the
    sorted bucket counts (1 us) plus overflows, and its max."""
    runs, cur = [], None
    for line in text_lines(path):
        m = re.match(r"^(\d+)\s+(\d+)", line)
        if m:
            if cur is None:
                cur = {"b": {}, "max": None, "over": 0}
                runs.append(cur)
            if int(m.group(2)):
                cur["b"][int(m.group(1))] = int(m.group(2))
        elif cur is not None and line.startswith("# Max Latencies:"):
            cur["max"] = int(line.split(":")[1].split()[0])
        elif cur is not None and line.startswith("# Histogram Overflows:"):
            cur["over"] = int(line.split(":")[1].split()[0])
        elif cur is not None and line.startswith("# Thread 0:"):
            cur = None
    return runs


def hist_q(b, over, cap, q):
    total = sum(b.values()) + over
    if not total:
        return None
    seen = 0
    for us in sorted(b):
        seen += b[us]
        if seen >= q * total:
            return float(us)
    return float(cap)


def rt_row(base, d, kernel, label, scenario, timing):
    run, rows = scenario_lines(d, label, scenario, "rt")
    hs = cyclictest_hist(os.path.join(d, "rt", run + ".hist"))
    if not rows or not hs:
        return None
    per = [{"p99_us": hist_q(h["b"], h["over"], h["max"], .99),
            "max_us": float(h["max"]) if h["max"] is not None else None} for h in hs]
    allb, over = {}, 0
    for h in hs:
        over += h["over"]
        for k, v in h["b"].items():
            allb[k] = allb.get(k, 0) + v
    mx = max((h["max"] or 0) for h in hs)
    return {"base": base, "timing": timing, "kernel": kernel, "setting": label,
            "settings": rows[0].get("settings"), "scenario": scenario,
            "workload": "cyclictest", "reps": len(hs),
            "cyclictest": "cyclictest -m -p 95 -a 0 -t 1 -i 500 -h 20000 (CPU 0, the storm's)",
            "latency": {"samples": sum(allb.values()) + over,
                        "p50_us": hist_q(allb, over, mx, .5), "p99_us": hist_q(allb, over, mx, .99),
                        "p999_us": hist_q(allb, over, mx, .999), "max_us": float(mx)},
            "latency_runs": {k: series([p[k] for p in per]) for k in ("p99_us", "max_us")},
            "storm_ms": series([r["storm_ms"] for r in rows])}


# frames of the page allocator's zone->lock and pcp paths: a tracer's
# maximum is the allocator's when one is among the frames of the section's
# own context, i.e. before the first interrupt or exception entry (asm_*):
# below that is the interrupted code, not the section
ALLOC_FRAMES = re.compile(r"rmqueue|free_pcppages_bulk|drain_pages|decay_pcp|free_one_page|"
                          r"free_unref|free_frozen|get_page_from_freelist|__free_pages")


def in_allocator(section):
    own = [section["started_at"] or ""]
    for fr in section["stack"]:
        if fr.startswith("asm_"):
            break
        own.append(fr)
    return any(ALLOC_FRAMES.search(fr) for fr in own)


def tracer_sections(path):
    """Per run of a tracer's .trace file: the maximum's latency (us), where
    it started and ended, and its stack (frames, innermost first)."""
    runs = []
    for line in text_lines(path):
        if line.startswith("=== "):
            runs.append({"latency_us": None, "started_at": None, "ended_at": None, "stack": []})
        elif not runs:
            continue
        elif line.startswith("# latency:"):
            runs[-1]["latency_us"] = float(line.split()[2])
        elif "=> started at:" in line:
            runs[-1]["started_at"] = line.split(":", 1)[1].strip()
        elif "=> ended at:" in line:
            runs[-1]["ended_at"] = line.split(":", 1)[1].strip()
        elif line.startswith(" => "):
            runs[-1]["stack"].append(line[4:].strip())
    return runs


def tracer_rows(base, d, kernel, label, scenario, timing):
    """irqsoff and preemptoff rows; "trace" relative to the run's folder
    (DIR/raw/tracers/... or DIR/icount/raw/tracers/...)."""
    top = os.path.dirname(os.path.dirname(d))
    if os.path.basename(top) == "icount":
        top = os.path.dirname(top)
    _, suffix, _, _ = SCENARIOS[scenario]
    run = label + suffix
    out = []
    for tracer in ("irqsoff", "preemptoff"):
        path = os.path.join(d, "tracers", "%s.%s.max" % (run, tracer))
        try:
            with open(path) as f:
                mx = [float(x) for x in f.read().split()]
        except FileNotFoundError:
            continue
        secs = tracer_sections(path[:-4] + ".trace")
        out.append({"base": base, "timing": timing, "kernel": kernel, "setting": label,
                    "scenario": scenario, "workload": tracer, "reps": len(mx),
                    "max_us": series(mx),
                    "sections": [{"latency_us": x["latency_us"], "started_at": x["started_at"],
                                  "ended_at": x["ended_at"], "stack": x["stack"][:8],
                                  "allocator": in_allocator(x)} for x in secs],
                    "allocator_runs": sum(1 for x in secs if in_allocator(x)),
                    "trace": os.path.relpath(path[:-4] + ".trace", top)})
    return out


def labels_in(d):
    labels = set()
    for stem in ("storm", "refill"):
        for phase in ("plain", "traced", "waits", "rt", "solo1", "pcp"):
            for r in jsonl(os.path.join(d, "%s-%s.jsonl" % (stem, phase))):
                lab = r.get("label", "")
                labels.add(lab[:-2] if lab.endswith(".r") else lab)
    tdir = os.path.join(d, "tracers")
    if os.path.isdir(tdir):
        for f in os.listdir(tdir):
            if f.endswith(".max"):
                lab = f.rsplit(".", 2)[0]
                labels.add(lab[:-2] if lab.endswith(".r") else lab)
    return sorted(labels)


def build_rows(dirname, res):
    new = []
    for timing, raw in (("tcg", os.path.join(dirname, "raw")),
                        ("icount", os.path.join(dirname, "icount", "raw"))):
        for kernel in ("base", "patched", "tracers"):
            d = os.path.join(raw, kernel)
            if not os.path.isdir(d):
                continue
            base = base_of(d)
            for label in labels_in(d):
                for sc in SCENARIOS:
                    ph = victim_phases(d, label, sc)
                    for row in res:
                        if (row.get("timing") == timing and row.get("kernel") == kernel
                                and row.get("setting") == label and row.get("scenario") == sc
                                and row.get("workload") in ("exit-storm", "exit-storm-alone",
                                                            "refill")):
                            if "plain" in ph:
                                row["victim_untraced"] = ph["plain"]
                            if "traced" in ph:
                                row["victim_traced"] = ph["traced"]
                            ref = ph.get("plain", {}).get("storm_ms", {}).get("median")
                            row["probe_cost"] = {
                                name: {"storm_ms": ph[p]["storm_ms"]["median"],
                                       "storm_ms_untraced": ref,
                                       "delta_pct": delta(ph[p]["storm_ms"]["median"], ref)}
                                for p, name in (("traced", "paths"), ("waits", "waits"))
                                if p in ph}
                    for fn in (waits_row, solo1_row, rt_row, pcp_row):
                        r = fn(base, d, kernel, label, sc, timing)
                        if r:
                            new.append(r)
                    new += tracer_rows(base, d, kernel, label, sc, timing)
    return new


def instrument_rows(dirname, res):
    """The instruments' rows of DIR's raw output; adds the victim's phases
    and the probes' cost to RES's scenario rows on the way."""
    return build_rows(dirname, res)


def section(res):
    """report.md's instruments section."""
    text = SECTION + "\n```\n" + compare_table(res) + "```\n"
    secs = sections_table(res)
    return text + ("\n" + SECTIONS_TEXT + "\n```\n" + secs + "```\n" if secs else "")


def main(argv):
    """Print DIR/results.json's instruments table (bench/analysis/report.py
    writes the rows)."""
    path = os.path.join(dir_arg(argv, "compare.py"), "results.json")
    with open(need(path, "run bench/analysis/report.py %s first" % argv[1])) as f:
        print(compare_table(json.load(f)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
