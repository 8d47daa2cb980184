"""figure_defs_dropped - the figures of the designs that were built, measured
and dropped (docs/experiments/: the chunked refills), which cover letter 3
quotes to say why they left.  figure_defs registers them in FIGS.
"""
from figure_defs import SOURCES, Missing, _rt_runs, fmt, get, rng


def chunked_rt(R):
    """The two chunked refills of docs/experiments/ (X1: the pcp lock
    dropped between chunks, with unpatched in the same run; X0: chunks under
    it): the worst fault per run of the RT task on the refilling CPU in the
    refill load, icount; knob 0 on those kernels (a refill is one chunk)."""
    def runs(src, k, s):
        return _rt_runs(R, src, "refill", k, s)
    base, drop, under = runs("X1", "base", "def"), runs("X1", "patched", "def"), \
        runs("X0", "patched", "def")
    k0 = runs("X1", "patched", "k0") + runs("X0", "patched", "k0")
    if len({len(base), len(drop), len(under)}) != 1:
        raise Missing("the chunked refills' files differ in run counts")
    return ("unpatched %s us, chunks with the pcp lock dropped %s us (same run), chunks "
            "under it %s us, knob 0 on those kernels %s us (%d runs a kernel and setting, %s and %s)" % (
                rng(base), rng(drop), rng(under), rng(k0), len(base), SOURCES["X1"][0],
                SOURCES["X0"][0]))


def chunked_waits(R):
    """L, TCG, refill load: zone->lock waits of both CPUs with the pcp lock
    dropped between chunks, against unpatched and the series at knob 0 in
    the same run, pooled over the runs (the file keeps no per-run count),
    and the waits' p99."""
    def row(k, s):
        return R.one("L", workload="zone-lock-waits", scenario="refill", kernel=k, setting=s)
    c, b, k0 = (get(row(k, s), "waits", "all") for k, s in
                (("chunked", "def"), ("base", "def"), ("patched", "k0")))
    return ("%d waits in %d runs against unpatched's %d and knob 0's %d, p99 %s against %s "
            "and %s us (TCG, traced, pooled: no per-run count kept, %s)" % (
                c["count"], row("chunked", "def")["reps"], b["count"], k0["count"],
                fmt(c["p99_us"]), fmt(b["p99_us"]), fmt(k0["p99_us"]), SOURCES["L"][0]))


def register(fig):
    for fn in (chunked_rt, chunked_waits):
        fig(fn)
