#!/usr/bin/python3
"""refill_harm - where a refill's zone->lock hold still hurts on 7.3 (issue 39
item 3): the rows and tables of bench/guest/guest-run's rlat and frag
instruments (bench/guest/refill-instruments.sh).

Usage: bench/analysis/refill_harm.py DIR   (prints the section; report.py writes)

rows(DIR) reads DIR/raw/KERNEL/ (tcg) and DIR/icount/raw/KERNEL/ (icount)
and gives, for bench/analysis/report.py's one results.json:

- rows of workload "refill-yafang" (rlat), per kernel and setting:
  "refill_call" {calls, avg_ns, max_ns, buckets [{lo_ns, hi_ns, count}]}:
  bench/guest/refill-lat.bt's refill calls of the storm processes (waits
  included, funclatency's method), log2 ns buckets as funclatency prints
  them; "hold" {holds, avg_ns, p99_ns, max_ns, pages, max_pages}: 0002's
  kmem:mm_page_pcpu_refill_hold (p99: upper bound of its log2 bucket,
  capped at the max; null on a kernel without the event); "rt" {samples,
  p99_us, p999_us, max_us, max_runs}: cyclictest on CPU 0 during the
  untraced runs; "refill_mib_s" {median, runs} of the untraced runs.
- rows of workload "refill-frag" (frag), per kernel and setting:
  "as_is" and "fragmented" {holds, pages, ns_per_page, avg_us, p99_us,
  max_us, max_pages, extfrag, extfrag_runs, refill_mib_s}, extfrag the
  system's kmem:mm_page_alloc_extfrag events during the loads (perf stat);
  "pagetypeinfo" {before, after}: per run, the free blocks per order and
  the free pages per migratetype summed over zones, and the pageblocks per
  migratetype; "hugepages" held per run.

section(rows) is report.md's "## Where a refill hold still hurts" (the two
tables, Yafang Shao's posting quoted as the reference, our histograms in
his funclatency form).
"""
import os
import re
import statistics
import sys

import settings
from compare import cyclictest_hist, hist_q, text_lines
from results import base_of, bpf_maps, dir_arg, jsonl
from stats import hist_upper

TIMING = {"tcg": "emulated, QEMU TCG (multi-threaded, real time)",
          "icount": "emulated, QEMU icount (instruction-counted time)"}
# Yafang Shao, spinics linux-mm msg395237 (his posting, quoted exactly)
YAFANG = ('Yafang Shao (spinics linux-mm msg395237), "AMD EPYC 7W83 64-Core Processor, single '
          'NUMA node, KVM virtual server", his Python loop (mmap 6 GiB, write every byte, '
          'close) "Run this script 10 times in parallel", "funclatency -T -i 600 '
          'rmqueue_bulk": at the "Default value of 5", "avg = 449775 '
          'nsecs, total: 587066511229 nsecs, count: 1305242" and "The avg alloc latency can '
          'be 449us, and the max latency can be higher than 30ms."; set to 0, most calls in '
          'the 2048 -> 4095, 4096 -> 8191 and 8192 -> 16383 nsecs buckets (2-16 us).')
# his buckets, grouped: [lo, hi) ns
GROUPS = ((0, 2048), (2048, 16384), (16384, 131072), (131072, 1048576),
          (1048576, 33554432), (33554432, None))


def _ns(x):
    return None if x is None else float(x)


def log2_buckets(hist):
    """bpftrace's hist() buckets as funclatency's: [{lo_ns, hi_ns, count}]."""
    return [{"lo_ns": b.get("min", 0), "hi_ns": b.get("max", 0), "count": b["count"]}
            for b in hist if b["count"]]


def refill_call(maps, key):
    hist = maps.get("@refill_ns", {}).get(key)
    if not hist:
        return None
    n = maps.get("@refills", {}).get(key) or sum(b["count"] for b in hist)
    return {"calls": n, "avg_ns": maps.get("@refill_sum_ns", {}).get(key, 0) / n,
            "max_ns": _ns(maps.get("@refill_max_ns", {}).get(key)),
            "buckets": log2_buckets(hist)}


def hold(maps, key):
    hist = maps.get("@hold_ns", {}).get(key)
    if not hist:
        return None
    n = maps.get("@holds", {}).get(key) or sum(b["count"] for b in hist)
    mx = maps.get("@hold_max_ns", {}).get(key)
    pages = maps.get("@hold_pages", {}).get(key, 0)
    total = maps.get("@hold_sum_ns", {}).get(key, 0)
    return {"holds": n, "avg_ns": total / n, "p99_ns": _ns(hist_upper(hist, 0.99, mx)),
            "max_ns": _ns(mx), "pages": pages, "total_ns": total,
            "ns_per_page": total / pages if pages else None,
            "max_pages": maps.get("@hold_max_pages", {}).get(key)}


def rt(d, run):
    hs = cyclictest_hist(os.path.join(d, "rt", run + ".hist"))
    if not hs:
        return None
    allb, over = {}, 0
    for h in hs:
        over += h["over"]
        for k, v in h["b"].items():
            allb[k] = allb.get(k, 0) + v
    mx = max((h["max"] or 0) for h in hs)
    return {"samples": sum(allb.values()) + over, "p99_us": hist_q(allb, over, mx, .99),
            "p999_us": hist_q(allb, over, mx, .999), "max_us": float(mx),
            "max_runs": [h["max"] for h in hs]}


def series(xs):
    return {"median": statistics.median(xs) if xs else None, "runs": xs}


def storm_lines(d, phase, run):
    return [r for r in jsonl(os.path.join(d, "refill-%s.jsonl" % phase)) if r.get("label") == run]


def labels(d, phase, suffixes):
    out = []
    for r in jsonl(os.path.join(d, "refill-%s.jsonl" % phase)):
        lab, _, suf = r.get("label", "").rpartition(".")
        if suf in suffixes and lab not in out:
            out.append(lab)
    return out


def yafang_row(base, d, kernel, label, timing):
    lat = bpf_maps(os.path.join(d, "rlat-lat.json"))
    hmaps = bpf_maps(os.path.join(d, "rlat-hold.json"))
    key = "s:%s.t" % label
    untraced = storm_lines(d, "rlat", label + ".y")
    row = {"base": base, "timing": timing, "kernel": kernel, "setting": label,
           "settings": (untraced or storm_lines(d, "rlat", label + ".t") or [{}])[0].get("settings"),
           "workload": "refill-yafang", "reps": len(untraced),
           "refill_call": refill_call(lat, key), "hold": hold(hmaps, key),
           "rt": rt(d, label + ".y"),
           "refill_mib_s": series([r["refill_mib_s"] for r in untraced])}
    return row if row["refill_call"] or row["rt"] else None


def extfrag_counts(path):
    """The counts of perf stat -x, output appended once per run."""
    out = []
    for line in text_lines(path):
        f = line.strip().split(",")
        if len(f) > 2 and f[2].startswith("kmem:mm_page_alloc_extfrag"):
            out.append(int(f[0]) if f[0].isdigit() else None)
    return out


def pagetypeinfo(path):
    """Per "=== LABEL" run of /proc/pagetypeinfo: free blocks per order
    (all zones and types), free pages per migratetype, pageblocks per
    migratetype (all zones)."""
    runs, blocks_hdr = [], None
    for line in text_lines(path):
        if line.startswith("=== "):
            runs.append({"free_by_order": [], "free_pages_by_type": {}, "blocks_by_type": {}})
            blocks_hdr = None
            continue
        if not runs:
            continue
        r = runs[-1]
        m = re.match(r"^Node\s+\d+, zone\s+\S+, type\s+(\S+)\s+([\d\s]+)$", line)
        if m:
            counts = [int(x) for x in m.group(2).split()]
            if len(r["free_by_order"]) < len(counts):
                r["free_by_order"] += [0] * (len(counts) - len(r["free_by_order"]))
            for o, c in enumerate(counts):
                r["free_by_order"][o] += c
            t = r["free_pages_by_type"]
            t[m.group(1)] = t.get(m.group(1), 0) + sum(c << o for o, c in enumerate(counts))
            continue
        if line.startswith("Number of blocks type"):
            blocks_hdr = line.split()[4:]
            continue
        m = re.match(r"^Node\s+\d+, zone\s+\S+\s+([\d\s]+)$", line)
        if m and blocks_hdr:
            for t, c in zip(blocks_hdr, m.group(1).split()):
                r["blocks_by_type"][t] = r["blocks_by_type"].get(t, 0) + int(c)
    return runs


def frag_state(d, maps, label, suffix):
    lines = storm_lines(d, "frag", "%s.%s" % (label, suffix))
    h = hold(maps, "s:%s.%s" % (label, suffix))
    if not lines or not h:
        return None
    ext = extfrag_counts(os.path.join(d, "frag", "%s.%s.extfrag" % (label, suffix)))
    known = [x for x in ext if x is not None]
    return {"holds": h["holds"], "pages": h["pages"], "ns_per_page": h["ns_per_page"],
            "avg_us": h["avg_ns"] / 1e3, "p99_us": h["p99_ns"] / 1e3,
            "max_us": h["max_ns"] / 1e3 if h["max_ns"] is not None else None,
            "max_pages": h["max_pages"], "extfrag": sum(known) if known else None,
            "extfrag_runs": ext, "refill_mib_s": series([r["refill_mib_s"] for r in lines])}


def frag_row(base, d, kernel, label, timing):
    maps = bpf_maps(os.path.join(d, "frag.json"))
    states = {k: frag_state(d, maps, label, s) for k, s in (("as_is", "n"), ("fragmented", "f"))}
    if not any(states.values()):
        return None
    f = os.path.join(d, "frag", label + ".pagetypeinfo.")
    hp = [int(x) for x in re.findall(r" got (\d+)", "".join(
        text_lines(os.path.join(d, "frag", label + ".hugepages"))))]
    lines = storm_lines(d, "frag", label + ".f") or storm_lines(d, "frag", label + ".n")
    return dict({"base": base, "timing": timing, "kernel": kernel, "setting": label,
                 "settings": lines[0].get("settings"), "workload": "refill-frag",
                 "reps": len(storm_lines(d, "frag", label + ".f")),
                 "pagetypeinfo": {"before": pagetypeinfo(f + "before"),
                                  "after": pagetypeinfo(f + "after")},
                 "hugepages": hp}, **states)


def rows(dirname):
    out = []
    for timing, raw in (("tcg", os.path.join(dirname, "raw")),
                        ("icount", os.path.join(dirname, "icount", "raw"))):
        for kernel in ("base", "patched"):
            d = os.path.join(raw, kernel)
            if not os.path.isdir(d):
                continue
            base = base_of(d)
            for label in labels(d, "rlat", ("y", "t")):
                r = yafang_row(base, d, kernel, label, timing)
                if r:
                    out.append(r)
            for label in labels(d, "frag", ("n", "f")):
                r = frag_row(base, d, kernel, label, timing)
                if r:
                    out.append(r)
    return out


# --- report.md ---------------------------------------------------------

def fmt(x, nd=1):
    if x is None:
        return "-"
    return "%.0f" % x if abs(x) >= 1000 else "%.*f" % (nd, x)


def order(r):
    """Timing, the unpatched kernel first, then configs/settings' order."""
    return (r["timing"], r["kernel"] != "base", settings.rank(r["setting"]), r["setting"])


def who(r):
    return "%s %s" % ("unpatched" if r["kernel"] == "base" else "patched", r["setting"])


def group_pct(buckets, calls):
    """Per group of GROUPS: the per cent of calls whose bucket lies in it."""
    out = []
    for lo, hi in GROUPS:
        n = sum(b["count"] for b in buckets if b["lo_ns"] >= lo and (hi is None or b["hi_ns"] < hi))
        out.append(100.0 * n / calls if calls else None)
    return out


def funclatency_text(buckets, avg_ns, calls):
    """Buckets as funclatency prints them (nsecs : count distribution)."""
    if not buckets:
        return ["    (no calls)"]
    top = max(b["count"] for b in buckets)
    lines = ["%24s : count     distribution" % "nsecs"]
    for b in buckets:
        lines.append("%10d -> %-10d : %-9d|%-40s|" % (b["lo_ns"], b["hi_ns"], b["count"],
                                                       "*" * int(40 * b["count"] / top)))
    lines.append("avg = %d nsecs, total: %d nsecs, count: %d"
                 % (avg_ns, avg_ns * calls, calls))
    return lines


def yafang_table(rs):
    rs = [r for r in rs if r["workload"] == "refill-yafang"]
    if not rs:
        return []
    out = ["", "### The refill under Yafang Shao's reproducer, with an RT task on the loaded CPU", "",
           "Reference (real hardware): " + YAFANG, "",
           "Ours (emulated; the timing of each row in its first column): bench/storm -R, its "
           "processes mapping, writing and unmapping on CPU 0 at once (his reproducer scaled to "
           "a 2-vCPU guest: the sizes are in env.txt's command line); refill calls timed by "
           "bench/guest/refill-lat.bt (his method: each call that refills, waits included; "
           "buckets as his, in % of calls); the hold alone from 0002's "
           "kmem:mm_page_pcpu_refill_hold (p99: upper bound of its log2 bucket); the RT task: "
           "cyclictest (SCHED_FIFO 95, 500 us) on CPU 0 during the untraced runs of the same "
           "load, pooled over the runs: its latency is the harm, not the hold's size. Under "
           "tcg the RT task's figures carry the host's scheduling noise (an idle 2-vCPU TCG "
           "guest alone: p99.9 3-7 ms, DESIGN.md); under icount its baseline is ~3 us, so read "
           "the harm from icount rows, the call and hold counts from either. The call "
           "latency includes refill-lat.bt's own kprobe and kretprobe; the hold does not.", "",
           "| timing | kernel setting | refill calls | call avg ns | <2048 | 2048-16383 | "
           "16384-131071 | 131072-1048575 | 1048576-33554431 | >=33554432 | call max ns | "
           "holds | hold avg us | hold p99 us | hold max us | RT p99 us | RT p99.9 us | "
           "RT max us | refill MiB/s |",
           "|---" * 19 + "|"]
    for r in sorted(rs, key=order):
        c, h, t = r["refill_call"] or {}, r["hold"] or {}, r["rt"] or {}
        pct = group_pct(c.get("buckets", []), c.get("calls")) if c else [None] * len(GROUPS)
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % (TIMING.get(r["timing"], r["timing"]), who(r), c.get("calls", "-"),
                      fmt(c.get("avg_ns"), 0),
                      " | ".join("-" if p is None else "%.1f%%" % p for p in pct),
                      fmt(c.get("max_ns"), 0), h.get("holds", "-"),
                      fmt(h["avg_ns"] / 1e3 if h else None),
                      fmt(h["p99_ns"] / 1e3 if h else None),
                      fmt(h["max_ns"] / 1e3 if h.get("max_ns") is not None else None),
                      fmt(t.get("p99_us")), fmt(t.get("p999_us")), fmt(t.get("max_us")),
                      fmt(r["refill_mib_s"]["median"])))
    out += ["", "Our refill calls in his form (funclatency's histogram, per setting):", ""]
    for r in sorted(rs, key=order):
        c = r["refill_call"]
        if c:
            out += ["%s, %s:" % (who(r), TIMING.get(r["timing"], r["timing"])), "", "```"] + \
                funclatency_text(c["buckets"], c["avg_ns"], c["calls"]) + ["```", ""]
    return out


def ptype_summary(runs):
    """(order-0 free blocks, free Movable pages, free pages in blocks of
    order >= 9, Unmovable pageblocks): the medians over the runs."""
    def m(xs):
        return statistics.median(xs) if xs else None
    return (m([r["free_by_order"][0] for r in runs if r["free_by_order"]]),
            m([r["free_pages_by_type"].get("Movable", 0) for r in runs]),
            m([sum(c << o for o, c in enumerate(r["free_by_order"]) if o >= 9) for r in runs]),
            m([r["blocks_by_type"].get("Unmovable", 0) for r in runs]))


def frag_table(rs):
    rs = [r for r in rs if r["workload"] == "refill-frag"]
    if not rs:
        return []
    out = ["", "### The refill with fragmented free lists (90abee6d7895's case)", "",
           "Johannes Weiner's 90abee6d7895 fixed rmqueue_bulk() holds of 90-280 ms on an NXP "
           "part (to ~8 ms): a refill's hold follows free-list fragmentation and fallback "
           "searches, not only its page count. Here (emulated; timing in the first column), the "
           "same refill load per setting as the free lists are (as is), then fragmented on "
           "purpose (bench/guest/refill-instruments.sh: unmovable pipe pages with a third "
           "freed again, the rest of memory held as huge pages, so that movable refills steal "
           "from the holes). Holds from 0002's kmem:mm_page_pcpu_refill_hold (ns per page: "
           "their total time over their pages; p99 the upper bound of its log2 bucket; with "
           "the lists fragmented many holds move a page or none, a refill that found no page "
           "it could take there, so read ns/page and the longest hold, not the hold count); "
           "extfrag: the system's kmem:mm_page_alloc_extfrag events during the loads (perf "
           "stat, summed over the runs): fallbacks into another migratetype's list.", "",
           "| timing | kernel setting | free lists | holds | pages | ns/page | hold avg us | "
           "hold p99 us | hold max us | max pages | extfrag | refill MiB/s |",
           "|---" * 12 + "|"]
    for r in sorted(rs, key=order):
        for k in ("as_is", "fragmented"):
            x = r.get(k)
            if not x:
                continue
            out.append("| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                TIMING.get(r["timing"], r["timing"]), who(r), k.replace("_", " "), x["holds"],
                x["pages"], fmt(x["ns_per_page"]), fmt(x["avg_us"]), fmt(x["p99_us"]),
                fmt(x["max_us"]), x["max_pages"] if x["max_pages"] is not None else "-",
                "-" if x["extfrag"] is None else x["extfrag"], fmt(x["refill_mib_s"]["median"])))
    out += ["", "The proof that the lists were fragmented: /proc/pagetypeinfo before fragmenting "
            "and after (all zones; medians over the runs; raw/KERNEL/frag/).", "",
            "| timing | kernel setting | order-0 free blocks before -> after | free Movable "
            "pages before -> after | free pages at order >= 9 before -> after | Unmovable "
            "pageblocks before -> after | huge pages held |", "|---" * 7 + "|"]
    for r in sorted(rs, key=order):
        b, a = (ptype_summary(r["pagetypeinfo"][k]) for k in ("before", "after"))
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            TIMING.get(r["timing"], r["timing"]), who(r),
            *("%s -> %s" % (fmt(x, 0), fmt(y, 0)) for x, y in zip(b, a)),
            ", ".join(str(x) for x in r["hugepages"]) or "-"))
    return out


def section(rs):
    """report.md's section: its lines ([] without rlat or frag rows)."""
    body = yafang_table(rs) + frag_table(rs)
    if not body:
        return []
    return ["## Where a refill hold still hurts on 7.3 (guest-run -i rlat, frag)"] + body


def main(argv):
    print("\n".join(section(rows(dir_arg(argv, "refill_harm.py")))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
