"""figure_defs_cost - what the series costs at its defaults against
unpatched, and by which patch (cold read 9, R9-2): 0003's changelog
quotes them.  figure_defs registers them in FIGS.
"""
import statistics

from figure_defs import _storm, _storm_src, pct, rng


def default_vs_base(R):
    """P, icount: the series at its defaults against unpatched in the two
    loads of 0003's table (cold read 9, R9-2): medians, + = slower, and
    every run of each."""
    parts = []
    for wl, name in (("exit-storm", "the exit storm"), ("refill", "the refill load")):
        p = _storm(R, wl, "icount", "patched", "def")["runs"]
        b = _storm(R, wl, "icount", "base", "def")["runs"]
        parts.append("%s %.1f against %.1f ms (%s; runs %s and %s ms)" % (
            name, statistics.median(p), statistics.median(b),
            pct(statistics.median(p), statistics.median(b)), rng(p, 1), rng(b, 1)))
    return " and ".join(parts)

def storm_attr(R):
    """A1, A13, icount (R9-2): the exit storm at the defaults on the base
    with 0001 alone (A1) and with 0001 and 0003 (A13), each against
    unpatched in its own run: medians, + = slower, every run of each."""
    parts = []
    for src, name in (("A1", "with 0001 alone"), ("A13", "with 0001 and this patch")):
        p = _storm_src(R, src, "exit-storm", "icount", "patched", "def")["runs"]
        b = _storm_src(R, src, "exit-storm", "icount", "base", "def")["runs"]
        parts.append("%s %.1f against %.1f ms (%s; runs %s and %s ms)" % (
            name, statistics.median(p), statistics.median(b),
            pct(statistics.median(p), statistics.median(b)), rng(p, 1), rng(b, 1)))
    return ", ".join(parts)


def storm_base_spread(R):
    """P, A1, A13: unpatched's exit-storm median in each of the three runs
    (the same kernel booted in three runs: its own spread between runs)."""
    m = [statistics.median(_storm_src(R, src, "exit-storm", "icount", "base", "def")["runs"])
         for src in ("P", "A1", "A13")]
    return "%s ms" % rng(m, 1)


def register(fig):
    for fn in (default_vs_base, storm_attr, storm_base_spread):
        fig(fn)
