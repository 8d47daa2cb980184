"""figure_defs_cost - what the series costs at its defaults against
unpatched, and by which patch (cold read 9, R9-2): 0003's changelog
quotes them.  figure_defs registers them in FIGS.
"""
import os
import re
import statistics

import settings
from figure_defs import HERE, Missing, _reps, _storm, _storm_src, get, pct, rng

BLOAT = "2026-12-07-7.3-bloat-0002.txt"


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


def storm_0001(R):
    """A1, icount (cold read 10): the exit storm at the defaults on the base
    with 0001 alone against unpatched in the same run, for 0001's own
    changelog: medians, + = slower, every run of each, and whether the two
    kernels' runs overlap."""
    p = _storm_src(R, "A1", "exit-storm", "icount", "patched", "def")["runs"]
    b = _storm_src(R, "A1", "exit-storm", "icount", "base", "def")["runs"]
    overlap = min(p) <= max(b) and min(b) <= max(p)
    above = sum(1 for x in p if x > max(b))
    return "%.1f against %.1f ms (%s; runs %s and %s ms: they %s, %d of the %d with it above " \
        "every unpatched run)" % (
            statistics.median(p), statistics.median(b), pct(statistics.median(p), statistics.median(b)),
            rng(p, 1), rng(b, 1), "overlap" if overlap else "do not overlap", above, len(p))


def a1_reps(R):
    """The repetitions of the exit storm in A1, both kernels."""
    return _reps(R, "A1", R.rows("A1", workload="exit-storm"))


def storm_base_spread(R):
    """P, A1, A13: unpatched's exit-storm median in each of the three runs
    (the same kernel booted in three runs: its own spread between runs)."""
    m = [statistics.median(_storm_src(R, src, "exit-storm", "icount", "base", "def")["runs"])
         for src in ("P", "A1", "A13")]
    return "%s ms" % rng(m, 1)


def _bloat(label):
    """scripts/bloat's section LABEL of docs/results/BLOAT: {"fn": {name:
    (old, new, delta)}, "text": (old, new), "vmlinux": delta}."""
    path = os.path.join(HERE, "..", "..", "docs", "results", BLOAT)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise Missing("%s: %s" % (path, e))
    out = {"fn": {}}
    sections = re.finditer(r"^## (.+?): (mm/page_alloc\.o|vmlinux)\n(.*?)(?=^## |\Z)",
                           text, re.M | re.S)
    for part, body in ((m.group(2), m.group(3)) for m in sections if m.group(1) == label):
        if part == "mm/page_alloc.o":
            for name, old, new, delta in re.findall(r"^(\S+)\s+(\d+|-)\s+(\d+|-)\s+([+-]\d+)$",
                                                     body, re.M):
                out["fn"][name] = (old, new, int(delta))
            t = re.findall(r"^(?:old|new): \.text (\d+)", body, re.M)
            if len(t) == 2:
                out["text"] = tuple(int(x) for x in t)
        else:
            m = re.search(r"^add/remove: .*\((-?\d+)\)$", body, re.M)
            if m:
                out["vmlinux"] = int(m.group(1))
    if not out["fn"] or "text" not in out or "vmlinux" not in out:
        raise Missing("%s has no complete section %r (scripts/bloat)" % (path, label))
    return out


def _bloat_obj(b):
    f, r = b["fn"]["free_pcppages_bulk"], b["fn"]["__rmqueue_pcplist"]
    t = b["text"]
    return ("free_pcppages_bulk() grows by %d (%s to %s) and __rmqueue_pcplist(), into which "
            "rmqueue_bulk() is inlined, by %d (%s to %s), the object's .text by %d (%d to %d)" % (
                f[2], f[0], f[1], r[2], r[0], r[1], t[1] - t[0], t[0], t[1]))


def bloat_nojl(R):
    """docs/results/BLOAT, CONFIG_JUMP_LABEL not set (R9-6): 0002's growth
    in mm/page_alloc.o, in bytes (scripts/bloat)."""
    return _bloat_obj(_bloat("JUMP_LABEL not set"))


def bloat_nojl_vmlinux(R):
    """The same, vmlinux's total (bloat-o-meter's, kallsyms included)."""
    return "%d" % _bloat("JUMP_LABEL not set")["vmlinux"]


def bloat_jl(R):
    """docs/results/BLOAT, CONFIG_JUMP_LABEL=y (cold read 10): the same."""
    return _bloat_obj(_bloat("JUMP_LABEL=y"))


def bloat_jl_vmlinux(R):
    return "%d" % _bloat("JUMP_LABEL=y")["vmlinux"]


def _fh(R, src, timing, setting):
    """free-high.bt's counters of the counted iperf3 runs (bench/run
    --free-high): {counter: {median, runs}}."""
    wl = ("micro:" if setting == "def" else "micro-sweep:") + "net-traced"
    return get(R.one(src, workload=wl, timing=timing, kernel="patched", setting=setting),
               "free_high")


def _mr(d):
    v = d["runs"]
    return "%d [%d-%d]" % (d["median"], min(v), max(v))


def fh_icount(R):
    """FHI, icount (R9-4): in 0003's iperf3 load, how many order 1-3 frees
    a run set free_high at the default and at knob 1, of how many order
    1-3 frees: median [range] of the runs."""
    d, k1 = _fh(R, "FHI", "icount", "def"), _fh(R, "FHI", "icount", "k1")
    return "%s of %s order 1-3 frees a run at the default, %s of %s at knob 1" % (
        _mr(d["free_high"]), _mr(d["hi_frees"]), _mr(k1["free_high"]), _mr(k1["hi_frees"]))


def fh_net(R):
    """FHI, icount (R9-4): the untraced iperf3 runs of the same boot, knob 1
    against the default: median Gbit/s, change and every run of each."""
    d = get(R.one("FHI", workload="micro:net", timing="icount", kernel="patched",
                  setting="def"), "value")
    k = get(R.one("FHI", workload="micro-sweep:net", timing="icount", kernel="patched",
                  setting="k1"), "value")
    return "%.2f against %.2f Gbit/s (%s; runs %s and %s)" % (
        k["median"], d["median"], pct(k["median"], d["median"]), rng(k["runs"], 2),
        rng(d["runs"], 2))


def fh_cover(R):
    """FHI, icount: the letter's short form of fh_icount and fh_net."""
    d, k1 = _fh(R, "FHI", "icount", "def"), _fh(R, "FHI", "icount", "k1")
    never = "never" if not any(k1["free_high"]["runs"]) else "%s times" % _mr(k1["free_high"])
    dn = get(R.one("FHI", workload="micro:net", timing="icount", kernel="patched",
                   setting="def"), "value")
    kn = get(R.one("FHI", workload="micro-sweep:net", timing="icount", kernel="patched",
                   setting="k1"), "value")
    overlap = min(kn["runs"]) <= max(dn["runs"]) and min(dn["runs"]) <= max(kn["runs"])
    return "%s times a run at the default, %s at knob 1; knob 1's untraced throughput there: %s, " \
        "runs %s" % (_mr(d["free_high"]), never, pct(kn["median"], dn["median"]),
                     "overlapping" if overlap else "apart")


def fhi_reps(R):
    """The repetitions of FHI's counted runs."""
    return _reps(R, "FHI", R.rows("FHI", workload="micro:net-traced"))


def fh_tcg(R):
    """FH, TCG (R9-4): the same count at the default, knobs 2, 1, 0 and the
    fraction INT_MAX, with the test's threshold (batch + high_min / 2)."""
    parts = []
    for s in ("def", "k2", "k1", "k0", "hfmax"):
        x = _fh(R, "FH", "tcg", s)
        thr = sorted(set(x["threshold_min"]["runs"] + x["threshold_max"]["runs"]))
        parts.append("%s %s (threshold %s)" % (
            settings.prose(s), _mr(x["free_high"]),
            "%d" % thr[0] if len(thr) == 1 else "%d-%d" % (thr[0], thr[-1])))
    return ", ".join(parts)


def fh_checks(R):
    """FH, FHI: free-high.bt's checks on its computed test over every
    counted run: frees it counted as free_high, and how many of them left
    more than the free_high trim would (short), and how many other order
    1-3 frees emptied their list (missed)."""
    n = short = missed = 0
    for src, timing, sets in (("FH", "tcg", ("def", "k2", "k1", "k0", "hfmax")),
                              ("FHI", "icount", ("def", "k1"))):
        for s in sets:
            x = _fh(R, src, timing, s)
            n += sum(x["free_high"]["runs"])
            short += sum(x["free_high_short"]["runs"])
            missed += sum(x["missed"]["runs"])
    return "%d of the %d frees it counted as setting free_high left more than that trim would, " \
        "and %d other order 1-3 frees left the CPU's pcp lists empty" % (short, n, missed)


def register(fig):
    for fn in (default_vs_base, storm_attr, storm_0001, a1_reps, storm_base_spread,
               bloat_nojl, bloat_nojl_vmlinux, bloat_jl, bloat_jl_vmlinux, fh_icount, fh_net, fh_cover, fhi_reps, fh_tcg, fh_checks):
        fig(fn)
