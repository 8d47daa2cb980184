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


HERE = os.path.dirname(os.path.abspath(__file__))

# The committed results files, by the label the texts use for them.
SOURCES = {
    "P": ["2026-12-06-7.3-quoted.json"],
    "F": ["2026-12-02-tcg-short-series.json", "2026-12-02-icount-short-series.json"],
    "L": ["2026-12-02-tcg-waits-light-probe.json"],
    "Q": ["2026-12-02-tcg-quiet-chunked-refill.json"],
    "S612": ["2026-12-02-6.12-tcg-short-series.json"],
    "PR": ["2026-12-03-probes-icount.json", "2026-12-03-probes-tcg.json"],
    "PRI": ["2026-12-03-probes-icount.json"],
    "PC": ["2026-12-03-pcp-icount.json"],
    "W": ["2026-12-03-workloads-icount.json"],
    "WT": ["2026-12-03-workloads-tcg.json"],
    "C": ["2026-12-05-7.3-case.json"],
    "CT": ["2026-12-06-7.3-case-tcg.json"],
    "X1": ["2026-12-02-icount-short.json"],
    "X0": ["2026-12-02-icount-short-first-design.json"],
    "A1": ["2026-12-07-7.3-attr-0001.json"],
    "A13": ["2026-12-07-7.3-attr-0013.json"],
    "FH": ["2026-12-07-7.3-free-high.json"],
    "FHI": ["2026-12-07-7.3-free-high-icount.json"],
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
def default_cost(R):
    """The series at its defaults against unpatched, icount (PR): the
    regression probes, each run's figure."""
    names = [("pf", "page_fault1", "pages/s"), ("pf-x2", "page_fault1 x2", "pages/s"),
             ("pf2", "page_fault2", "pages/s"), ("pf2-x2", "page_fault2 x2", "pages/s"),
             ("fork", "fork+exit", "us"), ("mmap", "mmap+munmap", "us")]
    parts = []
    for probe, name, unit in names:
        def runs(kernel):
            return get(R.one("PRI", workload="micro:" + probe, timing="icount", kernel=kernel),
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


# ---- the knob's case on 7.3 (C: bench/run --case, issue 39) ------------------
CASE = ["def", "k1", "k0"]
CASE4 = CASE + ["hfmax"]
# The bound per hold each path honors, read from mm/page_alloc.c of 7.3
# with the series (bench/analysis/paths_table.py has the long form).
PATH_BOUND = [("refill", "batch << knob"), ("refill-hi", "~batch, THP 1024"), ("free", "batch"),
              ("drain", "batch << knob"), ("decay", "batch"), ("high-order", "2^order")]


def _case_reps(R, workload):
    reps = {r.get("reps") for r in R.rows("C", workload=workload)}
    if len(reps) != 1:
        raise Missing("C's %s rows have %s runs, not one count" % (workload, sorted(reps)))
    return reps.pop()


@fig
def c_reps(R):
    """The run count of every setting in C's rlat, frag and workload rows."""
    n = {_case_reps(R, w) for w in ("refill-yafang", "refill-frag")} | \
        {r["reps"] for r in R.rows("C", source="bench/guest/workloads-run")}
    if len(n) != 1:
        raise Missing("C's rows have %s runs, not one count" % sorted(n))
    return str(n.pop())


@fig
def case_paths(R):
    """Every zone->lock bulk path on 7.3 at def, knob 1 and knob 0 (C, TCG,
    the traced phase of the exit storm and the refill load, pooled over
    the runs): the bound per hold it honors, its holds, the largest hold in
    pages (exact, from 0002's events) and the p99 hold time (upper bound of
    its log2 bucket; high-order: the call, waits included)."""
    row = "%-10s %-16s %-18s %-14s %s"
    lines = [row % ("", "bound", "holds", "largest, pages", "p99 hold, us"),
             row % ("path", "per hold", "def   k1    k0", "def  k1  k0", "def  k1  k0")]
    for path, bound in PATH_BOUND:
        rs = [R.one("CT", workload="zone-lock-paths", path=path, setting=s) for s in CASE]
        holds = ["%d" % get(r, "holds") for r in rs]
        big = ["%d" % r["pages_per_hold"]["max"] if r["holds"] else "-" for r in rs]
        p99 = ["%.0f" % r["hold_us"]["p99_us"] if r["holds"] else "-" for r in rs]
        lines.append(row % (path, bound, "%-5s %-5s %s" % tuple(holds),
                            "%-4s %-3s %s" % tuple(big), "%-4s %-3s %s" % tuple(p99)))
    return "\n".join(line.rstrip() for line in lines)


@fig
def case_big_refills(R):
    """C: the default's refills that moved 1000 pages or more, of all its
    refills (the traced phase, both scenarios)."""
    r = R.one("CT", workload="zone-lock-paths", path="refill", setting="def")
    return "%d of %d" % (get(r, "ge_1000_pages"), get(r, "holds"))


def _wl_case(R, setting, name):
    wl = ("micro:" if setting == "def" else "micro-sweep:") + name
    return R.one("C", workload=wl, setting=setting)


CASE_WL = [("page_fault1, procs", "page_fault1_processes-x2", "value"),
           ("page_fault1, threads", "page_fault1_threads-x2", "value"),
           ("page_fault2, procs", "page_fault2_processes-x2", "value"),
           ("page_fault2, threads", "page_fault2_threads-x2", "value"),
           ("iperf3 over lo", "net", "value"),
           ("bonnie proxy", "bonnie", "value"),
           ("kbuild (tcg)", "kbuild-x2", "value"),
           ("kbuild sys (tcg)", "kbuild-x2", "sys_s"),
           ("lru-file-mmap (tcg)", "lru-file-mmap-read-x2", "value")]
UNITS = {"ops/s/task": "ops/s", "Gbit/s": "Gbit/s", "s": "s", "MiB/s": "MiB/s"}


def _cv(v):
    runs = v["runs"]
    return 100.0 * statistics.stdev(runs) / statistics.mean(runs)


@fig
def case_cost(R):
    """What a lower bound costs (C, every setting in one run; icount but
    the two tcg rows): per load the default's median and coefficient of
    variation, then per setting the change of the median against it and
    its CoV, as mmtests compare and Joshua Hahn's kbuild table give them."""
    row = "%-20s %-6s %-12s %-12s %-12s %s"
    lines = [row % ("", "", "default", "knob 1", "knob 0", "fraction"),
             row % ("load", "unit", "median CoV", "delta  CoV", "delta  CoV", "delta  CoV")]
    for label, name, key in CASE_WL:
        ref = dict(get(_wl_case(R, "def", name), key), unit="s") if key == "sys_s" else \
            get(_wl_case(R, "def", name), key)
        cells = ["%-6s %.1f%%" % (("%.2f" if ref["median"] < 1000 else "%.0f") % ref["median"],
                                  _cv(ref))]
        for s in CASE4[1:]:
            v = get(_wl_case(R, s, name), key)
            cells.append("%-6s %.1f%%" % (pct(v["median"], ref["median"]), _cv(v)))
        lines.append(row % ((label, UNITS.get(ref["unit"], ref["unit"])) + tuple(cells)))
    return "\n".join(line.rstrip() for line in lines)


@fig
def case_yafang(R):
    """Yafang Shao's reproducer scaled to the guest (C, rlat): the refill
    call as his funclatency measured it (refill-lat.bt, waits and the
    probe included), the hold alone (0002's event), and an RT task
    (cyclictest, SCHED_FIFO, the loaded CPU) in the untraced runs, pooled
    over the runs; icount (the TCG rows are in the file's .md)."""
    row = "%-17s %-6s %-7s %-7s %-7s %-7s %-9s %s"
    lines = [row % ("", "refill calls", "", "", "hold alone", "", "RT task", ""),
             row % ("setting", "count", "avg us", "max us", "avg us", "max us", "p99.9 us", "max us")]
    for s in CASE4:
        r = R.one("C", workload="refill-yafang", timing="icount", setting=s)
        c, h, rt = get(r, "refill_call"), get(r, "hold"), get(r, "rt")
        lines.append(row % (settings.name(s), c["calls"], "%.1f" % (c["avg_ns"] / 1e3),
                            "%.0f" % (c["max_ns"] / 1e3), "%.1f" % (h["avg_ns"] / 1e3),
                            "%.0f" % (h["max_ns"] / 1e3), "%.0f" % rt["p999_us"],
                            "%.0f" % rt["max_us"]))
    return "\n".join(line.rstrip() for line in lines)


def _frag_runs(r):
    """Runs whose fragmented load fell back (extfrag events) at least ten
    times as often as the largest as-is run: the runs that fragmented."""
    lim = 10 * max(max(r["as_is"]["extfrag_runs"]), 1)
    return sum(1 for x in r["fragmented"]["extfrag_runs"] if x >= lim)


@fig
def case_frag(R):
    """The refill with the free lists fragmented on purpose (C, frag,
    icount, pooled over the runs): the longest hold (0002's event) and ns
    per page moved per setting, as is then fragmented, and how many runs
    fragmented."""
    rs = [R.one("C", workload="refill-frag", setting=s) for s in CASE4]
    def per(key):
        return ", ".join("%.0f" % r["fragmented"][key] for r in rs)
    asis = rng([r["as_is"]["ns_per_page"] for r in rs])
    asmax = rng([r["as_is"]["max_us"] for r in rs])
    runs = sum(_frag_runs(r) for r in rs)
    total = sum(len(r["fragmented"]["extfrag_runs"]) for r in rs)
    return ("the longest hold was %s us and a page cost %s ns (as is: %s us, %s ns; "
            "%d of %d runs fragmented)" % (per("max_us"), per("ns_per_page"), asmax, asis,
                                           runs, total))


def _mmr(x):
    return "%.0f [%.0f-%.0f] %d" % (x["median"], x["min"], x["max"], x["n"])


@fig
def case_contention(R):
    """Cost under contention as far as 2 vCPUs show it (C, TCG): bulk holds
    per MiB moved (refills; refills and frees), and the one waiter's
    zone->lock wait p99 and maximum per run, median [min-max] and the
    number of runs with a wait."""
    row = "%-13s %-11s %-7s %-6s %-18s %s"
    lines = [row % ("", "", "holds per MiB", "", "wait p99, us", "wait max, us"),
             row % ("setting", "load", "refill", "all", "median [range] n", "median [range] n")]
    for s in CASE:
        for sc in ("refill", "exit-storm"):
            r = R.one("CT", workload="zone-lock-cost", setting=s, scenario=sc)
            h = get(r, "holds_per_mib")
            lines.append(row % (settings.name(s) if sc == "refill" else "", sc,
                                "%.2f" % h["refill"], "%.2f" % h["all"],
                                _mmr(get(r, "wait_p99_us")), _mmr(get(r, "wait_max_us"))))
    return "\n".join(line.rstrip() for line in lines)


@fig
def case_wait_counts(R):
    """CT: zone->lock waits per run (the one waiter's), median [min-max]
    over every run of the phase (a run without a wait counts 0), per
    setting and load, and the probe's cost per wait, min-max."""
    parts, cost = [], []
    for sc, load in (("refill", "refill load"), ("exit-storm", "exit storm")):
        xs = []
        for s in CASE4:
            w = get(R.one("CT", workload="zone-lock-cost", setting=s, scenario=sc), "wait_count")
            xs.append("%s %.0f [%.0f-%.0f]" % (settings.name(s), w["median"], w["min"], w["max"]))
            r = R.one("CT", workload="zone-lock-waits", setting=s, scenario=sc)
            cost.append(get(r, "probe_in_holds", "per_wait_us"))
        parts.append("%s: %s" % (load, ", ".join(xs)))
    return "%s; the probe costs %.0f-%.0f us a wait" % ("; ".join(parts), min(cost), max(cost))


@fig
def c_wait_runs(R):
    """C's runs per setting in the waits boots."""
    n = {r["wait_runs"] for r in R.rows("CT", workload="zone-lock-cost")}
    if len(n) != 1:
        raise Missing("C's waits have %s runs, not one count" % sorted(n))
    return str(n.pop())


@fig
def case_hi_max(R):
    """C: the largest high-order free (free_one_page()) at def, k1 and k0."""
    return "%d pages" % max(get(R.one("CT", workload="zone-lock-paths", path="high-order",
                                      setting=s), "pages_per_hold", "max") for s in CASE)


def _pf_pcts(R, labels):
    out = []
    for _, name, _ in CASE_WL[:4]:
        ref = get(_wl_case(R, "def", name), "value", "median")
        out += [100.0 * (get(_wl_case(R, s, name), "value", "median") - ref) / ref for s in labels]
    return out


def _pct_span(xs):
    lo, hi = ("%+.1f%%" % x for x in (min(xs), max(xs)))
    return lo if lo == hi else "%s to %s" % (lo, hi)


@fig
def c_pf_knobs(R):
    """C, icount: page_fault1/2 (processes, threads) at knob 1 and knob 0,
    the change of each median against the default's, the range."""
    return _pct_span(_pf_pcts(R, ["k1", "k0"]))


@fig
def c_pf_frac(R):
    """C, icount: page_fault1/2 at the fraction INT_MAX against the default."""
    return _pct_span(_pf_pcts(R, ["hfmax"]))


def _kbuild_runs(R, s):
    return get(_wl_case(R, s, "kbuild-x2"), "value", "runs")


@fig
def c_kbuild(R):
    """C, TCG: kbuild's runs at knob 1 and at the default (range, seconds),
    and in how many of the runs knob 1 was slower than the default's median."""
    k1, d = _kbuild_runs(R, "k1"), _kbuild_runs(R, "def")
    slower = sum(1 for x in k1 if x > statistics.median(d))
    return "%s s against %s s (%d of its %d runs above the default's median)" % (
        rng(k1, 1), rng(d, 1), slower, len(k1))


@fig
def case_k0_decay(R):
    """CT: decay's average hold at def and at k0 (the same 63 pages per
    hold: the hold's time, not its size, moved)."""
    def h(s):
        return get(R.one("CT", workload="zone-lock-paths", path="decay", setting=s),
                   "hold_us", "avg_us")
    return "decay's average hold goes from %.1f to %.1f us" % (h("def"), h("k0"))


# the dropped designs' figures (docs/experiments/), and the series' cost at
# its defaults by patch, in FIGS like the others
import figure_defs_dropped  # noqa: E402
import figure_defs_cost  # noqa: E402
figure_defs_dropped.register(fig)
figure_defs_cost.register(fig)
