"""compare_table - bench/analysis/compare.py's compare table (mmtests form) and the
small helpers its rows share with it (med, spread_pct, delta).

compare_table(results) renders one row per metric, columns unpatched def,
then the patched kernel at the settings of configs/settings' view compare
(def first), each a median with its spread (half the range of the
repetitions over the median), the change against unpatched, and `*` where
that change exceeds the larger spread (stats.exceeds).  Cost rows
prefer icount, waits tcg (metric_rows names the timing of each).
"""
import statistics

import settings
from stats import exceeds


def columns():
    """(kernel, setting): the unpatched default, then the patched kernel at
    each setting of view compare (def first)."""
    shown = sorted(settings.in_view("compare"), key=lambda s: s != "def")
    return [("base", "def")] + [("patched", s) for s in shown]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread_pct(runs):
    runs = [x for x in runs if x is not None]
    m = med(runs)
    if not runs or not m:
        return None
    return 100.0 * (max(runs) - min(runs)) / 2 / m


def delta(x, ref):
    return None if x is None or not ref else 100.0 * (x - ref) / ref


def metric_rows(rows):
    """(metric, timing, getter of (median, runs)) per row of the table."""
    def g(workload, scenario, *path, runs=True):
        def get(r):
            if r.get("workload") != workload or r.get("scenario") != scenario:
                return None
            x = r
            for p in path:
                x = (x or {}).get(p)
            if isinstance(x, dict) and "median" in x:
                return x["median"], x["runs"]
            return (x, []) if x is not None else None
        return get
    out = []
    for sc, short in (("exit-storm", "exit"), ("refill", "refill")):
        wl = "exit-storm" if sc == "exit-storm" else "refill"
        out += [
            ("%s: storm ms, untraced" % short, "icount", g(wl, sc, "storm_ms")),
            ("%s: victim(same CPU) p99 us" % short, "icount", g("victim-same-cpu", sc, "victim_runs", "p99_us")),
            ("%s: victim(same CPU) max us" % short, "icount", g("victim-same-cpu", sc, "victim_runs", "max_us")),
            ("%s: victim(same CPU) sum ms" % short, "icount", g("victim-same-cpu", sc, "victim_runs", "sum_ms")),
            ("%s: cyclictest p99 us" % short, "icount", g("cyclictest", sc, "latency_runs", "p99_us")),
            ("%s: cyclictest max us" % short, "icount", g("cyclictest", sc, "latency_runs", "max_us")),
            ("%s: cyclictest p99 us" % short, "tcg", g("cyclictest", sc, "latency_runs", "p99_us")),
            ("%s: cyclictest max us" % short, "tcg", g("cyclictest", sc, "latency_runs", "max_us")),
            ("%s: victim p99 us, untraced" % short, "tcg", g(wl, sc, "victim_untraced", "p99_us")),
            ("%s: victim p99.9 us, untraced" % short, "tcg", g(wl, sc, "victim_untraced", "p999_us")),
            ("%s: victim sum ms, untraced" % short, "tcg", g(wl, sc, "victim_untraced", "sum_ms")),
            ("%s: victim p99 us, paths.bt" % short, "tcg", g(wl, sc, "victim_traced", "p99_us")),
            ("%s: zone->lock waits, count" % short, "tcg", g("zone-lock-waits", sc, "waits", "all", "count")),
            ("%s: zone->lock waits, total us" % short, "tcg", g("zone-lock-waits", sc, "waits", "all", "total_us")),
            ("%s: zone->lock wait p50 us" % short, "tcg", g("zone-lock-waits", sc, "waits", "all", "p50_us")),
            ("%s: zone->lock wait p99 us" % short, "tcg", g("zone-lock-waits", sc, "waits", "all", "p99_us")),
            ("%s: zone->lock wait max us" % short, "tcg", g("zone-lock-waits", sc, "waits", "all", "max_us")),
            ("%s: victim waits, count" % short, "tcg", g("zone-lock-waits", sc, "waits", "victim", "count")),
            ("%s: victim waits, total us" % short, "tcg", g("zone-lock-waits", sc, "waits", "victim", "total_us")),
            ("%s: storm ms under waits.bt" % short, "tcg", g("zone-lock-waits", sc, "storm_ms")),
            ("%s: waits.bt cost, storm %%" % short, "tcg", g("zone-lock-waits", sc, "probe_cost", "delta_pct")),
            ("%s: waits.bt in holds, us/wait" % short, "tcg", g("zone-lock-waits", sc, "probe_in_holds", "per_wait_us")),
            ("%s: waits.bt in holds, total us" % short, "tcg", g("zone-lock-waits", sc, "probe_in_holds", "total_us")),
            ("%s: paths.bt cost, storm %%" % short, "tcg", g(wl, sc, "probe_cost", "paths", "delta_pct")),
            ("%s: irqsoff max us" % short, "tcg", g("irqsoff", sc, "max_us")),
            ("%s: preemptoff max us" % short, "tcg", g("preemptoff", sc, "max_us")),
            ("%s: irqsoff max us" % short, "icount", g("irqsoff", sc, "max_us")),
            ("%s: irqsoff max, allocator runs" % short, "icount", g("irqsoff", sc, "allocator_runs")),
            ("%s: preemptoff max us" % short, "icount", g("preemptoff", sc, "max_us")),
            ("%s: preemptoff max, allocator runs" % short, "icount",
             g("preemptoff", sc, "allocator_runs")),
            ("%s: pages on pcp lists, mean" % short, "icount", g("pcp-lists", sc, "mean_pages")),
            ("%s: pages on pcp lists, max" % short, "icount", g("pcp-lists", sc, "max_pages")),
        ]
    out += [("drain_all_pages calls", "tcg", g("zone-lock-waits", "exit-storm", "drain_all_pages", "calls")),
            ("drain_all_pages max us", "tcg", g("zone-lock-waits", "exit-storm", "drain_all_pages", "max_us")),
            ("drain_all_pages total us", "tcg", g("zone-lock-waits", "exit-storm", "drain_all_pages", "total_us")),
            ("extfrag events", "tcg", g("zone-lock-waits", "exit-storm", "extfrag"))]
    return out


def num(x):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return "%.0f" % x
    return "%.2f" % x if abs(x) < 10 else "%.1f" % x


def compare_rows(res):
    table = []
    for metric, timing, get in metric_rows(res):
        # the timing the row asks for, else the other one (a tcg-only run)
        for t in (timing, "icount" if timing == "tcg" else "tcg"):
            cells = []
            for kernel, setting in columns():
                hit = None
                for r in res:
                    if r.get("timing") == t and r.get("kernel") in (kernel, "tracers" if kernel == "patched" else kernel) \
                            and r.get("setting") == setting:
                        v = get(r)
                        if v is not None:
                            hit = v
                            break
                cells.append(hit)
            if any(c is not None for c in cells):
                # the icount row fell back to tcg, which has its own row
                if (metric, t) not in [(m, x) for m, x, _ in table]:
                    table.append((metric, t, cells))
                break
    return table


def compare_table(res):
    rows = compare_rows(res)
    if not rows:
        return "(no instrument rows in results.json)\n"
    head = "%-38s %-6s" % ("metric", "timing")
    names = ["unpatched"] + [s for _, s in columns()[1:]]
    for n in names:
        head += " %18s" % n
    for n in names[1:]:
        head += " %9s" % ("d% " + n)
    lines = [head]
    for metric, t, cells in rows:
        line = "%-38s %-6s" % (metric, t)
        for c in cells:
            if c is None:
                line += " %18s" % "-"
            else:
                sp = spread_pct(c[1])
                line += " %18s" % ("%s +-%s%%" % (num(c[0]), num(sp)) if sp is not None else num(c[0]))
        ref = cells[0]
        for c in cells[1:]:
            d = None if c is None or ref is None else delta(c[0], ref[0])
            mark = "*" if d is not None and exceeds(d, spread_pct(c[1]), spread_pct(ref[1])) else ""
            line += " %9s" % ("-" if d is None else "%+.1f%s" % (d, mark))
        lines.append(line)
    return "\n".join(lines) + "\n"


def sections_table(res, timing="icount"):
    """The tracers' longest sections at every setting of the tracer kernel
    (icount: one vCPU), per scenario: median and range of the maxima, how
    many runs' maximum was the page allocator's, and where the longest one
    started with its first frames."""
    rows = [r for r in res if r.get("workload") in ("irqsoff", "preemptoff")
            and r.get("timing") == timing]
    if not rows:
        return ""
    lines = ["%-8s %-10s %-10s %10s %14s %6s  %s" % ("setting", "scenario", "tracer", "max us",
                                                   "range", "alloc", "the longest: started at <- stack")]
    for r in rows:
        runs = r["max_us"]["runs"]
        top = max(r.get("sections") or [{}], key=lambda x: x.get("latency_us") or 0)
        where = "%s <- %s" % (top.get("started_at"), " <- ".join(top.get("stack", [])[:3])) \
            if top else "-"
        lines.append("%-8s %-10s %-10s %10s %14s %3d/%-2d  %s" % (
            r["setting"], r["scenario"], r["workload"], num(r["max_us"]["median"]),
            "%s-%s" % (num(min(runs)), num(max(runs))) if runs else "-",
            r.get("allocator_runs", 0), len(runs), where))
    return "\n".join(lines) + "\n"


SECTIONS_TEXT = """### The longest irqs-off and preempt-off sections, one vCPU (icount)

The tracer kernel booted under icount with one vCPU: no host scheduling
stretches a section and no second vCPU's turns count inside it, so each
maximum is what that CPU's own section cost, in instructions (1 ns each).
`alloc`: runs whose maximum had a page-allocator frame (rmqueue,
free_pcppages_bulk, drain, decay, ...) in its stack, of all runs.
"""


SECTION = """## Instruments (bench/analysis/compare.py)

One row per metric, mmtests compare form: median +-spread (half the range
of the repetitions over the median; none for a figure pooled over them),
columns unpatched def, patched def, knob 0 (k0), high fraction -1 (hf-1);
d%: the change against unpatched, `*` where it exceeds the larger spread.
Cost and same-CPU latency rows come from icount boots (the storm and the
timed task on CPU 0, the other vCPU idle) where the run has them, waits
from tcg (a real second CPU).  Instruments: `victim ... untraced` (no probe
attached; bench/storm's clock_gettime around each fault); `victim(same
CPU)` (storm -w 500: a SCHED_FIFO task on the storm's CPU faulting one page
every 500 us, timed from its deadline); `cyclictest` (rt-tests, SCHED_FIFO
95, 500 us, on the storm's CPU, no victim); `zone->lock wait`
(bench/guest/waits.bt: entry to return of queued_spin_lock_slowpath() on a zone
lock, with 2 vCPUs the pending path, which also spins there; no probe in
a hold, none on _raw_spin_*; percentiles to 5 us below 1 ms); `waits.bt
cost` and `paths.bt cost`: the storm's time under that probe against the
untraced runs; `waits.bt in holds`: what its return probe adds to the hold
each waiter starts (the int3 trap, from getppid timed with and without such
a probe, plus the handler body's own time, in place), per wait and summed
over the window's waits, to read beside `zone->lock waits, total us`; `irqsoff/preemptoff max` (the tracer kernel, bench/run
--tracers); `drain_all_pages` (kprobe/kretprobe on __drain_all_pages after
the drain trigger: hugetlb pages asked beyond free memory); `extfrag`
(mm_page_alloc_extfrag events, a count).  Each row of results.json has the
runs.
"""
