"""figure_defs - the figures the texts quote, each computed from a committed
results file (docs/results/*.json, by the label SOURCES gives it), ranges
over ALL its runs.  bench/analysis/figures.py checks the texts against them and
shows them; bench/analysis/figure_quotes.py says where each is quoted.  A figure
is a function of Results registered with @fig; a result it needs and
cannot find raises Missing.
"""
import json
import os
import statistics

import runs_md
import settings
from stats import spread_pct

HERE = os.path.dirname(os.path.abspath(__file__))

# The committed results files, by the label the texts use for them.
SOURCES = {
    "P": ["7.3.json"],
    "F": ["2026-12-02-tcg-short-series.json", "2026-12-02-icount-short-series.json"],
    "L": ["2026-12-02-tcg-waits-light-probe.json"],
    "Q": ["2026-12-02-tcg-quiet-chunked-refill.json"],
    "S612": ["2026-12-02-6.12-tcg-short-series.json"],
    "PR": ["2026-12-03-probes-icount.json", "2026-12-03-probes-tcg.json"],
    "PC": ["2026-12-03-pcp-icount.json"],
    "W": ["2026-12-03-workloads-icount.json"],
    "WT": ["2026-12-03-workloads-tcg.json"],
}


class Missing(Exception):
    pass


class Results:
    def __init__(self, root):
        self.root = root
        self.cache = {}

    def rows(self, src, **kw):
        if src not in self.cache:
            rows = []
            for name in SOURCES[src]:
                path = os.path.join(self.root, "docs", "results", name)
                try:
                    with open(path) as f:
                        rows += json.load(f)
                except (OSError, ValueError) as e:
                    raise Missing("%s: %s" % (path, e))
            self.cache[src] = rows
        out = [r for r in self.cache[src] if all(r.get(k) == v for k, v in kw.items())]
        if not out:
            raise Missing("%s has no row with %s" % (src, kw))
        return out

    def one(self, src, **kw):
        rs = self.rows(src, **kw)
        if len(rs) != 1:
            raise Missing("%s has %d rows with %s, not one" % (src, len(rs), kw))
        return rs[0]


def get(row, *path):
    v = runs_md.get(row, *path)
    if v is None:
        raise Missing("no %s in the row %s/%s/%s/%s" % (".".join(path), row.get("workload"),
                      row.get("timing"), row.get("kernel"), row.get("setting")))
    return v


def fmt(x, nd=0):
    return "%.*f" % (nd, x)


def rng(values, nd=0):
    """'a-b', the range of every value given; 'a' when both ends print alike."""
    lo, hi = fmt(min(values), nd), fmt(max(values), nd)
    return lo if lo == hi else "%s-%s" % (lo, hi)


def pct(new, old, nd=1):
    x = 100.0 * (new - old) / old
    return "%.*f%%" % (nd, 0.0) if round(x, nd) == 0 else "%+.*f%%" % (nd, x)


# ---- the figures ------------------------------------------------------------
FIGS = {}


def fig(fn):
    FIGS[fn.__name__] = fn
    return fn


def _tracer_runs(R, setting, kind="irqsoff"):
    """Every run's longest section, both scenarios (icount, one vCPU)."""
    runs = []
    for r in R.rows("P", workload=kind, timing="icount", kernel="tracers", setting=setting):
        runs += get(r, "max_us", "runs")
    return runs


def _holders(R, setting, kind="irqsoff"):
    held = []
    for r in R.rows("P", workload=kind, timing="icount", kernel="tracers", setting=setting):
        held += [runs_md.holder(s) for s in r.get("sections") or []]
    return held


def _rt(R, scenario, kernel, setting):
    return get(R.one("P", workload="victim-same-cpu", scenario=scenario, kernel=kernel,
                     setting=setting), "victim_runs", "max_us", "runs")


def _storm(R, workload, timing, kernel, setting):
    return get(R.one("P", workload=workload, timing=timing, kernel=kernel, setting=setting),
               "storm_ms")


def _pf1(R, setting):
    return get(R.one("P", workload="micro-sweep:pf", kernel="patched", setting=setting), "value")


KVF = settings.by_bound("text")


@fig
def knob_vs_fraction(R):
    """The knob against the fraction, one kernel, one run (P): the latency
    bound and the cost of every setting, ranges over every run."""
    def med(workload, s):
        return statistics.median(_storm(R, workload, "icount", "patched", s)["runs"])
    e0, r0, p0 = med("exit-storm", "def"), med("refill", "def"), _pf1(R, "def")["median"]
    row = "%-17s %-8s %-8s %-7s %-10s %-8s %s"
    n_irq = {len(_tracer_runs(R, s)) for s in KVF}
    n_rt = {len(_rt(R, sc, "patched", s)) for s in KVF for sc in ("refill", "exit-storm")}
    if len(n_irq) != 1 or len(n_rt) != 1:
        raise Missing("P's settings have %s irqs-off and %s RT runs, not one count each"
                      % (sorted(n_irq), sorted(n_rt)))
    # every cost column is a time (pf1: per page), so + is slower in all
    lines = ["%-17s %-8s %-16s %s" % ("", "irqs off", "RT worst fault,", "time against the default"),
             "%-17s %-8s %-16s %s" % ("", "max, us", "us, %d runs each" % n_rt.pop(),
                                      "(+ = slower), icount"),
             row % ("setting", "%d runs" % n_irq.pop(), "refill", "exit", "exit storm", "refill",
                    "pf1/page")]
    for s in KVF:
        e, r, p = med("exit-storm", s), med("refill", s), _pf1(R, s)["median"]
        lines.append(row % (
            settings.name(s), rng(_tracer_runs(R, s)), rng(_rt(R, "refill", "patched", s)),
            rng(_rt(R, "exit-storm", "patched", s)),
            "%.1fms" % e if s == "def" else pct(e, e0), "%.1fms" % r if s == "def" else pct(r, r0),
            "%.2fus" % (1e6 / p0) if s == "def" else pct(p0, p)))
    return "\n".join(line.rstrip() for line in lines)


def _traced_holds(R, setting, kernel="patched"):
    """The refill load's traced runs (exact counts; the times are the
    plain runs'): holds per kind and the pages refills moved."""
    r = R.one("P", workload="refill", timing="tcg", kernel=kernel, setting=setting)
    h = get(r, "holds")
    pages = get(h, "refill", "per_refill", "pages_total")
    return h, pages


@fig
def lock_holds(R):
    """What each setting does to the pcp lists in the refill load (P, the
    traced runs, counted by the per-hold events over all of them): the
    largest refill, and zone->lock holds of the bulk transfers per MiB the
    refills moved, refills alone and every bulk hold (refills, trims,
    decay, drains) together."""
    row = "%-17s %-8s %-8s %s"
    lines = ["%-17s %-8s %s" % ("", "largest", "zone->lock holds per"),
             "%-17s %-8s %s" % ("", "refill,", "MiB refilled"),
             row % ("setting", "pages", "refills", "all bulk")]
    for s in KVF:
        h, pages = _traced_holds(R, s)
        mib = pages / 256.0
        every = sum(get(h, k, "tp_calls") if k == "refill" else (runs_md.get(h, k, "tp_calls") or 0)
                    for k in ("free", "refill", "drain", "decay"))
        lines.append(row % (settings.name(s), get(h, "refill", "max_pages"),
                            "%.2f" % (get(h, "refill", "tp_calls") / mib), "%.2f" % (every / mib)))
    return "\n".join(line.rstrip() for line in lines)


@fig
def lock_cost(R):
    """What each timing charges for a spin lock's atomic (bench/micro lock:
    lock cmpxchg and a release store around an increment), alone on one
    vCPU and with both vCPUs taking turns on the lock, against a plain
    loop (micro add): ns per operation, the range over every run (PR)."""
    def r(timing, probe):
        return rng(get(R.one("PR", workload="micro:" + probe, timing=timing, kernel="patched"),
                       "value", "runs"), 1)
    reps = {x.get("reps") for x in R.rows("PR") if str(x.get("workload")).startswith("micro:lock")}
    if len(reps) != 1:
        raise Missing("PR's lock rows have %s runs, not one count" % sorted(reps))
    return ("under TCG %s ns alone and %s ns with both vCPUs on the lock, against %s ns for "
            "a plain loop's step; under icount %s, %s and %s ns (%d runs each, the series' kernel)" % (
                r("tcg", "lock"), r("tcg", "lock-x2"), r("tcg", "add"),
                r("icount", "lock"), r("icount", "lock-x2"), r("icount", "add"), reps.pop()))


@fig
def default_cost(R):
    """The series at its defaults against unpatched, icount (PR): the
    regression probes, each run's figure."""
    names = [("pf", "page_fault1", "pages/s"), ("pf-x2", "page_fault1 x2", "pages/s"),
             ("pf2", "page_fault2", "pages/s"), ("pf2-x2", "page_fault2 x2", "pages/s"),
             ("fork", "fork+exit", "us"), ("mmap", "mmap+munmap", "us")]
    parts = []
    for probe, name, unit in names:
        def runs(kernel):
            return get(R.one("PR", workload="micro:" + probe, timing="icount", kernel=kernel),
                       "value", "runs")
        b, p = runs("base"), runs("patched")
        nd = 0 if unit == "pages/s" else 2
        # in brackets a time, + = slower: a rate's change inverted
        t = pct(statistics.median(b), statistics.median(p)) if unit == "pages/s" else \
            pct(statistics.median(p), statistics.median(b))
        parts.append("%s %s against %s %s (%s)" % (name, rng(p, nd), rng(b, nd), unit, t))
    return "; ".join(parts)


@fig
def hf_cost(R):
    """What fraction -1 costs against the default, one kernel (P), icount:
    times, + = slower (page_fault1's rate inverted to a time per page)."""
    p, p0 = _pf1(R, "hf-1"), _pf1(R, "def")
    e = _storm(R, "exit-storm", "icount", "patched", "hf-1")
    e0 = _storm(R, "exit-storm", "icount", "patched", "def")
    return ("will-it-scale page_fault1 in one process %s per page (%d against %d pages/s, "
            "runs %s and %s), an exit storm of four 64 MiB processes %s (%.1f against %.1f ms, "
            "runs %s and %s ms)" % (
                pct(p0["median"], p["median"]), p["median"], p0["median"],
                rng(p["runs"]), rng(p0["runs"]),
                pct(statistics.median(e["runs"]), statistics.median(e0["runs"])),
                statistics.median(e["runs"]), statistics.median(e0["runs"]),
                rng(e["runs"], 1), rng(e0["runs"], 1)))


def _reps(R, src, rows):
    """The one repetition count of ROWS (of SRC), or Missing saying which."""
    n = {r.get("reps") for r in rows if r.get("reps")}
    if len(n) != 1:
        raise Missing("%s's rows have %s repetitions, not one count" % (src, sorted(n)))
    return "%d" % n.pop()


@fig
def p_reps(R):
    """The repetitions of every setting in P."""
    return _reps(R, "P", R.rows("P"))


@fig
def pc_reps(R):
    """The repetitions of every setting in PC."""
    return _reps(R, "PC", R.rows("PC", workload="pcp-lists"))


@fig
def w_reps(R):
    """The repetitions of every row in W."""
    return _reps(R, "W", R.rows("W", timing="icount"))


@fig
def wt_reps(R):
    """The repetitions of every row in WT but the traced pass (one a setting)."""
    return _reps(R, "WT", [r for r in R.rows("WT", timing="tcg") if "traced" not in r["workload"]])


@fig
def s612_free_pages(R):
    """6.12: the largest bulk free (pages, from the per-hold event) unpatched,
    at the default, at 2 and at 0, exit storm."""
    def mx(kernel, setting):
        rows = R.rows("S612", workload="exit-storm", kernel=kernel, setting=setting)
        return max(get(r, "holds", "free", "max_pages") for r in rows)
    return "%d pages unpatched and %d at the default, %d at 2 and %d at 0" % (
        mx("base", "def"), mx("patched", "def"), mx("patched", "k2"), mx("patched", "k0"))


def _rt_runs(R, src, scenario, kernel, setting):
    """icount only: under TCG the host's scheduling sets the worst fault."""
    return get(R.one(src, workload="victim-same-cpu", timing="icount", scenario=scenario,
                     kernel=kernel, setting=setting), "victim_runs", "max_us", "runs")


@fig
def rt_summary(R):
    """The RT task's worst fault per run: unpatched in both loads, and every
    exit-storm run above 60 us (P)."""
    out = []
    for src in ("P",):
        refill = _rt_runs(R, src, "refill", "base", "def")
        exitst = _rt_runs(R, src, "exit-storm", "base", "def")
        high = []
        for k, s in [("base", "hfmax")] + [("patched", s) for s in KVF]:
            try:
                runs = _rt_runs(R, src, "exit-storm", k, s)
            except Missing:
                continue
            over = sorted(x for x in runs if x > 60)
            if over:
                high.append("%s us %s" % (" and ".join("%.0f" % x for x in over),
                                          "unpatched at fraction 2147483647" if k == "base"
                                          else "at " + settings.name(s)))
        out.append("unpatched %s us in the refill load and %s us in the exit storm "
                   "(%d runs each), exit-storm runs above 60 us: %s" % (
                       rng(refill), rng(exitst), len(refill), ", ".join(high) or "none"))
    return "; ".join(out)


def _holders_text(R, setting):
    held = _holders(R, setting)
    return ", ".join("%s %d" % (h, held.count(h)) for h in ("refill", "free", "other") if h in held)


@fig
def irq_holders_def(R):
    return _holders_text(R, "def")


@fig
def irq_holders_k1(R):
    return _holders_text(R, "k1")


@fig
def irq_holders_k0(R):
    return _holders_text(R, "k0")


def _storm_src(R, src, workload, timing, kernel, setting):
    return get(R.one(src, workload=workload, timing=timing, kernel=kernel, setting=setting),
               "storm_ms")


def _waits(R, src, scenario, kernel, setting, key="count"):
    r = R.one(src, workload="zone-lock-waits", scenario=scenario, kernel=kernel, setting=setting)
    w = runs_md.get(r, "waits", "all") or get(r, "waits_all_phases")
    return w[key]


def _name(kernel, setting):
    alone = setting.endswith("-a")
    setting = setting[:-2] if alone else setting
    name = settings.prose(setting)
    if kernel == "base":
        name = "unpatched" if setting == "def" else "unpatched at " + name
    return name + (" alone" if alone else "")


def _every_setting(rows):
    """The rows of the unpatched kernel and of the series, in setting order
    (another kernel, such as an experiment, is not the series)."""
    return sorted((r for r in rows if r.get("kernel") in ("base", "patched")),
                  key=runs_md.setting_key)


@fig
def pcp_parked(R):
    """What each setting keeps on the pcp lists (PC: bench/run --instruments
    pcp, icount, every run): the pages on all CPUs' lists, the mean over a
    run's samples, median and range over the runs, in the refill load and
    in the exit storm.  (zoneinfo's high: is left out: a pcp whose CPU has
    not freed since a write to the fraction shows its old high until
    nr_pcp_high() or decay_pcp_high() next touches it.)"""
    row = "%-27s %-19s %s"
    lines = ["%-27s %s" % ("", "pages on the pcp lists, a run's mean:"),
             "%-27s %s" % ("", "median (range) of the runs"),
             row % ("kernel, setting", "refill load", "exit storm")]
    order = {"base": 0, "patched": 1}
    rows = sorted((r for r in R.rows("PC", workload="pcp-lists", scenario="refill")
                   if r["kernel"] in order),
                  key=lambda r: (order[r["kernel"]], KVF.index(r["setting"])))
    for r in rows:
        k, s = r["kernel"], r["setting"]
        e = R.one("PC", workload="pcp-lists", scenario="exit-storm", kernel=k, setting=s)
        cells = []
        for x in (r, e):
            m = get(x, "mean_pages", "runs")
            cells.append("%d (%s)" % (round(statistics.median(m)), rng(m)))
        lines.append(row % (("unpatched" if k == "base" else "series") + ", " + settings.name(s),
                            cells[0], cells[1]))
    return "\n".join(line.rstrip() for line in lines)


def _pcp_refill(R, kernel, setting):
    m = get(R.one("PC", workload="pcp-lists", scenario="refill", kernel=kernel,
                  setting=setting), "mean_pages", "runs")
    return "%d (%s)" % (round(statistics.median(m)), rng(m))


@fig
def pcp_short(R):
    """0003: the pages on the pcp lists during the refill load (PC), the
    fraction against the default and knob 0, median (range) of the runs."""
    return ("the fraction 2147483647 keeps %s pages on the pcp lists, the default %s and "
            "knob 0 %s" % (_pcp_refill(R, "patched", "hfmax"), _pcp_refill(R, "patched", "def"),
                           _pcp_refill(R, "patched", "k0")))


WL_COLS = [("page_fault1_processes-x2", "procs"), ("page_fault1_threads-x2", "threads"),
           ("page_fault2_processes-x2", "procs"), ("page_fault2_threads-x2", "threads"),
           ("anon-w-seq-x2", "MiB/s")]


def _wl(R, kernel, setting, name):
    pre = "micro:" if setting == "def" else "micro-sweep:"
    return get(R.one("W", workload=pre + name, timing="icount", kernel=kernel, setting=setting),
               "value")


@fig
def workloads_cost(R):
    """The workloads' throughput at each setting (W: bench/run --instruments
    none --workloads pf,anon, icount, 2 tasks): the unpatched default's
    median rate, every other setting's time per operation against it in %
    (+ = slower, as the other tables), and per setting the largest spread
    (half the range over the median) of its cells."""
    order = {"base": 0, "patched": 1}
    keys = sorted({(r["kernel"], r["setting"]) for r in R.rows("W", timing="icount")
                   if r["kernel"] in order},
                  key=lambda k: (order[k[0]], KVF.index(k[1])))
    row = "%-27s" + " %-7s" * len(WL_COLS) + " %s"
    lines = ["%-27s %-15s %-15s %-7s %s" % ("", "page_fault1", "page_fault2", "anon", "spread,"),
             row % (("kernel, setting",) + tuple(c for _, c in WL_COLS) + ("largest",))]
    ref = {n: _wl(R, "base", "def", n)["median"] for n, _ in WL_COLS}
    for k, s in keys:
        cells, spreads = [], []
        for n, _ in WL_COLS:
            v = _wl(R, k, s, n)
            spreads.append(spread_pct(v["runs"]))
            cells.append(("%d" % v["median"] if "page_fault" in n else "%.1f" % v["median"])
                         if (k, s) == ("base", "def") else pct(ref[n], v["median"]))
        lines.append(row % ((("unpatched" if k == "base" else "series") + ", " + settings.name(s),)
                            + tuple(cells) + ("%.1f%%" % max(spreads),)))
    return "\n".join(line.rstrip() for line in lines)


def _wl_pcts(R, kernel, labels):
    """Every page-fault cell of LABELS against the unpatched default: the
    time per fault, % (+ = slower)."""
    return [100.0 * (_wl(R, "base", "def", n)["median"] - _wl(R, kernel, s, n)["median"]) /
            _wl(R, kernel, s, n)["median"]
            for s in labels for n, _ in WL_COLS if "page_fault" in n]


def _pct_range(xs):
    lo, hi = min(xs), max(xs)
    return "%+.1f%%" % lo if round(lo, 1) == round(hi, 1) else "%+.1f%% to %+.1f%%" % (lo, hi)


@fig
def wl_short(R):
    """0003: the page-fault workloads with two tasks (W), the fraction and
    the knob at 1 and 0 against the unpatched default, ranges over the
    four tests' medians."""
    return ("fraction 2147483647 %s, knob 1 and 0 %s" %
            (_pct_range(_wl_pcts(R, "patched", ["hfmax"])),
             _pct_range(_wl_pcts(R, "patched", ["k1", "k0"]))))


@fig
def workloads_tcg(R):
    """The kbuild-like set and lru-file-mmap-read in real time (WT: bench/run
    --instruments none --workloads lru,kbuild, TCG, 2 vCPUs): median and
    range of every run, each kernel and setting of the run."""
    order = {"base": 0, "patched": 1}
    keys = sorted({(r["kernel"], r["setting"]) for r in R.rows("WT", timing="tcg")
                   if r["kernel"] in order},
                  key=lambda k: (order[k[0]], KVF.index(k[1])))
    row = "%-27s %-20s %s"
    lines = [row % ("", "kbuild, seconds", "lru-file-mmap-read,"),
             row % ("kernel, setting", "median (range)", "MiB/s, median (range)")]
    for k, s in keys:
        cells = []
        for name, nd in (("kbuild-x2", 1), ("lru-file-mmap-read-x2", 1)):
            pre = "micro:" if s == "def" else "micro-sweep:"
            v = get(R.one("WT", workload=pre + name, timing="tcg", kernel=k, setting=s), "value")
            cells.append("%.*f (%s)" % (nd, v["median"], rng(v["runs"], nd)))
        lines.append(row % ((("unpatched" if k == "base" else "series") + ", " + settings.name(s),)
                            + tuple(cells)))
    return "\n".join(line.rstrip() for line in lines)


@fig
def tcg_table(R):
    """Real time with two vCPUs (TCG), every setting of both kernels (P):
    the refill load's rate (median and range of its runs: the load runs to
    a deadline, so each run does its own amount of work and its rate, not
    its time, compares), the waits of both CPUs for zone->lock in it
    (pooled over the runs of the traced boot), and drain_all_pages() per
    call in the exit-storm window ("-": no call)."""
    row = "%-27s %-19s %-7s %s"
    lines = [row % ("", "refill load", "zone->", "exit storm"),
             row % ("", "MiB/s, median", "lock", "drain_all_pages"),
             row % ("kernel, setting", "(range)", "waits", "ms per call")]
    order = {"base": 0, "patched": 1}
    rates = sorted((r for r in R.rows("P", workload="refill", timing="tcg") if r["kernel"] in order),
                   key=lambda r: (order[r["kernel"]], KVF.index(r["setting"])))
    for r in rates:
        k, s = r["kernel"], r["setting"]
        runs = get(r, "refill_mib_s", "runs")
        w = R.one("P", workload="zone-lock-waits", scenario="refill", kernel=k, setting=s)
        w = runs_md.get(w, "waits", "all") or get(w, "waits_all_phases")
        d = R.one("P", workload="zone-lock-waits", scenario="exit-storm", kernel=k,
                  setting=s).get("drain_all_pages") or {}
        name = ("unpatched" if k == "base" else "series") + ", " + settings.name(s)
        lines.append(row % (name, "%.1f (%s)" % (statistics.median(runs), rng(runs, 1)),
                            w["count"], "%.2f" % (d["total_us"] / d["calls"] / 1e3)
                            if d.get("calls") else "-"))
    return "\n".join(line.rstrip() for line in lines)


@fig
def probe_per_wait(R):
    """P: what waits.bt's handler adds to each wait in the refill load, the
    range over every setting of both kernels."""
    pw = [get(r, "probe_in_holds", "trap_us") + get(r, "probe_in_holds", "body_mean_us")
          for r in _every_setting(R.rows("P", workload="zone-lock-waits", scenario="refill"))]
    return "%s us" % rng(pw, 1)
