"""runs_md - every run of a committed results file as Markdown tables.

render(rows) gives one table per kind of row (workload, timing, scenario) of
a results file (docs/results/NAME.json), one line per kernel and setting,
with the values of every run ("a-b" is the range over all runs, n the run
count) where the file keeps them, and the pooled figure where it keeps only
that.  After them, where the file has such rows, the tables report.md
gives them: the zone->lock paths and the cost under contention
(paths_table.py), the refill under Yafang Shao's reproducer and with
fragmented free lists (refill_harm.py), and bench/guest/workloads-run's
rows against the default in mmtests compare form (workloads.py).
bench/analysis/figures.py writes docs/results/NAME.md from it and `make
check` re-renders and compares, so these tables are never typed.
"""
import glob
import os

import paths_table
import refill_harm
import settings
import workloads
from stats import spread_pct


def get(c, *path):
    for k in path:
        if not isinstance(c, dict) or c.get(k) is None:
            return None
        c = c[k]
    return c


def num(x, nd=None):
    if x is None:
        return "-"
    if nd is None:
        nd = 0 if abs(x) >= 100 or x == int(x) else (1 if abs(x) >= 10 else 2)
    return "%.*f" % (nd, x)


def span(runs, nd=None, scale=1.0):
    """'a-b (n)': the range over every run, and how many runs there were."""
    runs = [r * scale for r in runs or [] if r is not None]
    if not runs:
        return "-"
    lo, hi = num(min(runs), nd), num(max(runs), nd)
    return "%s (%d)" % (lo if lo == hi else "%s-%s" % (lo, hi), len(runs))


def med(d, nd=None, scale=1.0):
    if not isinstance(d, dict) or d.get("median") is None:
        return "-"
    return num(d["median"] * scale, nd)


def setting_key(c):
    s = c.get("setting") or ""
    return (0 if c.get("kernel") == "base" else 1, settings.rank(s), s, c.get("kernel") or "")


# the series' patches (patches/NNNN-*.patch): a patched kernel built from
# fewer of them is named for what it is, not "series"
SERIES_LEN = len(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "patches", "[0-9][0-9][0-9][0-9]-*.patch")))


def who(c):
    k = {"base": "unpatched", "patched": "series"}.get(c.get("kernel"), c.get("kernel"))
    ids = get(c, "provenance", "patch_ids")
    if c.get("kernel") == "patched" and ids and SERIES_LEN and len(ids) < SERIES_LEN:
        k = "partial series (%d of %d patches)" % (len(ids), SERIES_LEN)
    if get(c, "provenance", "variant") == "rt":
        k += " (PREEMPT_RT)"
    return "%s %s" % (k, c.get("setting") or "-")


def _storm(c):
    refill = get(c, "holds", "refill") or {}
    return [
        ("storm ms, median", med(c.get("storm_ms"))),
        ("storm ms, runs", span(get(c, "storm_ms", "runs"))),
        ("refill pages/hold, max", num(refill.get("max_pages"))),
        ("free pages/hold, max", num(get(c, "holds", "free", "max_pages"))),
        ("drain holds", num(get(c, "holds", "drain", "calls"))),
        ("victim (untraced) p99 us, runs", span(get(c, "victim_untraced", "p99_us", "runs"))),
        ("victim (untraced) max us, runs", span(get(c, "victim_untraced", "max_us", "runs"))),
    ]


def _same_cpu(c):
    return [
        ("worst fault us, runs", span(get(c, "victim_runs", "max_us", "runs"), 1)),
        ("p99 us, runs", span(get(c, "victim_runs", "p99_us", "runs"), 1)),
        ("storm ms, runs", span(get(c, "storm_ms", "runs"), 1)),
    ]


def holder(section):
    """What held the section: a refill (rmqueue_bulk() under
    __rmqueue_pcplist), a pcp free or trim, or something else."""
    top = (section.get("stack") or ["?"])[0]
    return {"__rmqueue_pcplist": "refill", "free_frozen_page_commit": "free"}.get(top, "other")


def _tracer(c):
    held = [holder(s) for s in c.get("sections") or []]
    return [
        ("longest section us, runs", span(get(c, "max_us", "runs"))),
        ("held by (runs)", ", ".join("%s %d" % (h, held.count(h))
                                     for h in ("refill", "free", "other") if h in held) or "-"),
    ]


def _cyclictest(c):
    return [
        ("max us, runs", span(get(c, "latency_runs", "max_us", "runs"))),
        ("p99 us, runs", span(get(c, "latency_runs", "p99_us", "runs"))),
    ]


def _waits(c):
    w = get(c, "waits", "all") or c.get("waits_all_phases") or {}
    victim = get(c, "waits", "victim") or {}
    probe = c.get("probe_in_holds") or {}
    dap = c.get("drain_all_pages") or {}
    calls = dap.get("calls")
    return [
        ("waits, both CPUs (pooled)", num(w.get("count"))),
        ("of them the victim's", num(victim.get("count"))),
        ("total ms", "-" if w.get("total_us") is None else num(w["total_us"] / 1e3, 1)),
        ("p99 us", num(w.get("p99_us"))),
        ("longest us", num(w.get("max_us"))),
        ("probe per wait us", num(probe.get("per_wait_us"), 2)),
        ("probe in holds ms", "-" if probe.get("total_us") is None else num(probe["total_us"] / 1e3, 1)),
        ("drain_all_pages calls", num(calls)),
        ("drain_all_pages ms a call", "-" if not calls else num(dap["total_us"] / calls / 1e3, 2)),
        ("drain_all_pages longest ms", "-" if dap.get("max_us") is None else num(dap["max_us"] / 1e3, 1)),
    ]


def _pcp(c):
    return [
        ("pages on pcp lists, run means", span(get(c, "mean_pages", "runs"))),
        ("largest, runs", span(get(c, "max_pages", "runs"))),
        ("samples (pooled)", num(c.get("samples"))),
    ]


def _micro(c):
    v = c.get("value") or {}
    return [
        ("unit", v.get("unit", "-")),
        ("median", med(v)),
        ("runs", span(v.get("runs"))),
        ("spread", "-" if spread_pct(v.get("runs") or []) is None else "%.2f%%" % spread_pct(v["runs"])),
    ]


def _micro_fh(c):
    """A counted net row (bench/guest/free-high.bt): the throughput, then
    the script's counters, every run."""
    fh = c["free_high"]
    return _micro(c) + [(label, span(fh[k]["runs"])) for label, k in (
        ("order 1-3 frees, runs", "hi_frees"), ("free_high set, runs", "free_high"),
        ("check: short", "free_high_short"), ("check: missed", "missed"),
        ("free_count max, runs", "hi_free_count_max"), ("threshold, runs", "threshold_max"))]


def _kind(c):
    w = c.get("workload", "")
    if w.startswith("exit-storm") or w == "refill":
        return _storm
    if w == "victim-same-cpu":
        return _same_cpu
    if w in ("irqsoff", "preemptoff"):
        return _tracer
    if w == "cyclictest":
        return _cyclictest
    if w == "zone-lock-waits":
        return _waits
    if w.startswith("micro") and "free_high" in c:
        return _micro_fh
    if w.startswith("micro"):
        return _micro
    if w == "pcp-lists":
        return _pcp
    return None


def render(rows, title):
    out = ["# %s: every run" % title, "",
           "Rendered by `bench/analysis/figures.py runs-md` from [%s.json](%s.json); do not edit."
           % (title, title),
           "\"a-b (n)\": the range over all n runs; a single figure is pooled over the runs.", ""]
    # the command that measured the file, where its rows keep it (scripts/rt-bench)
    for cmd in sorted({get(c, "provenance", "command") for c in rows} - {None}):
        out += ["Measured by `%s`." % cmd, ""]
    groups = {}
    for c in rows:
        if _kind(c) is None:
            continue
        key = (c.get("workload"), c.get("timing"), c.get("scenario") or "-")
        groups.setdefault(key, []).append(c)
    for key in sorted(groups, key=lambda k: (k[1] or "", k[0] or "", k[2])):
        cs = sorted(groups[key], key=setting_key)
        cols = [name for name, _ in _kind(cs[0])(cs[0])]
        out.append("## %s, %s, %s" % key)
        out.append("")
        out.append("| kernel, setting | reps | " + " | ".join(cols) + " |")
        out.append("|---" * (len(cols) + 2) + "|")
        for c in cs:
            vals = [v for _, v in _kind(c)(c)]
            out.append("| %s | %s | %s |" % (who(c), c.get("reps", "-"), " | ".join(vals)))
        out.append("")
    return "\n".join(out + case_sections(rows))


def case_sections(rows):
    """The report's tables of the rows the per-run tables do not show."""
    out = []
    paths = paths_table.section(rows)
    if paths:
        out += [paths]
    out += refill_harm.section(rows)
    wl = [r for r in rows if r.get("source") == workloads.SOURCE]
    if wl:
        out += ["## Workloads against the default (bench/guest/workloads-run)"]
        out += workloads.settings_table(wl) + workloads.hahn_table(wl) + [""]
    return out
