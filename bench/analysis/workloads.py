#!/usr/bin/python3
"""workloads - the named workloads' rows (bench/guest/workloads-run) for a bench
output folder.

Usage: bench/analysis/workloads.py DIR   (prints the section; report.py writes)

rows(DIR) reads DIR/raw/KERNEL/workloads.jsonl (timing tcg) and
DIR/icount/raw/KERNEL/workloads.jsonl (icount), and DIR/raw/KERNEL/
refill-lat.json (bench/guest/refill-lat.bt): one row per (timing, kernel,
setting, workload) for bench/analysis/report.py's results.json, in the
shape of bench/analysis/results.py's micro rows: workload "micro:NAME"
(NAME: the workload, "-xN" for N tasks) at the default setting,
"micro-sweep:NAME" at the others (as the page-fault sweep's rows:
bench/analysis/tables.py's comparison table labels every micro: row
"def"), with "setting", "value" {unit, median, spread_pct, runs}, "cpu_ms",
and per workload: "extfrag" {median, runs} (lru-file-mmap-read,
anon-w-seq), "real_s"/"user_s"/"sys_s" with their coefficient of variation
(kbuild), "metrics" (net: iperf3 over lo; bonnie: the bonnie++ proxy's
per-phase rates; each {unit, median, mean, spread_pct, cv_pct, runs},
runs without nulls: bonnie++'s "+++++" is a phase too quick to time),
"vs_def" (every setting but def: the change % of the value's and each
metric's median against the same kernel's def row), "refill_lat" (the
traced mmap-write-unmap: refills, p50/p99/max
us from the log2 histogram, conservative as bench/analysis/report.py's).  Rows
from DIR/raw/KERNEL/workloads-traced.jsonl (the runs under
bench/guest/refill-lat.bt, or net's under bench/guest/free-high.bt, -C) are
named NAME-traced; the counted net rows carry "free_high" (free-high.bt's
counters per run: frees, hi_frees, free_high, free_high_left_max, free_high_short,
missed, hi_free_count_max,
threshold_min/max; each {median, runs}).  section(rows) is
DIR/workloads.md, which ends report.md: the rows in mmtests compare form
(unpatched, then each setting of the patched kernel, medians with spread
and change %), the kbuild table in Joshua Hahn's form (real, user, sys:
mean, coefficient of variation, delta %) and, per timing and kernel, every
workload's metrics against that kernel's default in the same form (metric,
default, then per setting median, delta %, CoV).
"""
import os
import statistics
import sys

import settings
from results import base_of, bpf_maps, dir_arg, jsonl
from stats import exceeds, hist_upper, spread_pct

SOURCE = "bench/guest/workloads-run"

# The extra metrics of a workload line beyond its "value" (the unit says
# which way is better: s lower, the rest higher), in table order.  bonnie
# runs bonnie++ -f: its per-character phases (seq_*_chr_kps) stay null.
METRICS = {
    "net": [("sent_gbit_s", "Gbit/s"), ("retransmits", "count"),
            ("cpu_client_pct", "% CPU"), ("cpu_server_pct", "% CPU")],
    "bonnie": [("seq_out_block_kps", "K/s"), ("seq_rewrite_kps", "K/s"),
               ("seq_in_block_kps", "K/s"), ("seeks_ps", "/s"),
               ("seq_create_ps", "/s"), ("seq_read_ps", "/s"), ("seq_delete_ps", "/s"),
               ("ran_create_ps", "/s"), ("ran_read_ps", "/s"), ("ran_delete_ps", "/s")],
}
# What a metric's row says in the tables
LABELS = {"net": "net (iperf3 over lo, received)", "bonnie": "bonnie proxy: wall time"}


def cv_pct(runs):
    """Coefficient of variation in % (sample standard deviation over the mean)."""
    if len(runs) < 2 or not statistics.mean(runs):
        return None
    return statistics.stdev(runs) / statistics.mean(runs) * 100


def summary(runs):
    if not runs:
        return {"median": None, "mean": None, "spread_pct": None, "cv_pct": None, "runs": []}
    return {"median": statistics.median(runs), "mean": statistics.mean(runs),
            "spread_pct": spread_pct(runs), "cv_pct": cv_pct(runs), "runs": runs}


def delta_pct(x, ref):
    """The change of X against REF in %; None where either is unknown."""
    if x is None or not ref:
        return None
    return (x - ref) / ref * 100


def add_vs_def(rows):
    """Each row but def: "vs_def", the change % of its value's and
    metrics' medians against the def row of its timing and kernel."""
    refs = {(r["timing"], r["kernel"], r["workload"].split(":", 1)[1]): r
            for r in rows if r["setting"] == "def"}
    for r in rows:
        ref = refs.get((r["timing"], r["kernel"], r["workload"].split(":", 1)[1]))
        if r["setting"] == "def" or ref is None:
            continue
        v = {"value": delta_pct(r["value"]["median"], ref["value"]["median"])}
        for k, m in r.get("metrics", {}).items():
            v[k] = delta_pct(m["median"], ref.get("metrics", {}).get(k, {}).get("median"))
        r["vs_def"] = v
    return rows


def refill_lat(raw, kernel, label):
    """bench/guest/refill-lat.bt's maps of the tasks w:LABEL, in us."""
    maps = bpf_maps(os.path.join(raw, kernel, "refill-lat.json"))
    key = "w:" + label
    hist = maps.get("@refill_ns", {}).get(key)
    if not hist:
        return None
    n = maps.get("@refills", {}).get(key) or sum(b["count"] for b in hist)
    out = {"refills": n,
           "mean_us": maps.get("@refill_sum_ns", {}).get(key, 0) / n / 1e3 if n else None,
           "max_us": maps.get("@refill_max_ns", {}).get(key, 0) / 1e3}
    for q in (0.5, 0.99):
        v = hist_upper(hist, q, maps.get("@refill_max_ns", {}).get(key))
        out["p%d_us" % (q * 100)] = None if v is None else v / 1e3
    holds = maps.get("@hold_ns", {}).get(key)
    if holds:
        cap = maps.get("@hold_max_ns", {}).get(key)
        out["holds"] = sum(b["count"] for b in holds)
        out["hold_p99_us"] = hist_upper(holds, 0.99, cap) / 1e3
        out["hold_max_us"] = cap / 1e3 if cap else None
    return out


# bench/guest/free-high.bt's counters, per counted iperf3 run (-C)
FREE_HIGH = ("frees", "hi_frees", "free_high", "free_high_left_max", "free_high_short",
             "missed", "hi_free_count_max", "threshold_min", "threshold_max")


def free_high(raw, kernel, rs):
    """The counted runs' free-high.bt maps: per counter, median and every
    run (a counter the script never bumped is 0: its map is absent only
    then, the run's @frees says the script ran)."""
    runs = {k: [] for k in FREE_HIGH}
    for r in rs:
        maps = bpf_maps(os.path.join(raw, kernel, r["free_high_file"]))
        if "@frees" not in maps:
            raise SystemExit("%s: no @frees: bench/guest/free-high.bt did not run there"
                             % os.path.join(raw, kernel, r["free_high_file"]))
        for k in FREE_HIGH:
            # no free_high_left_max: no free set free_high (or an older script)
            missing = None if k == "free_high_left_max" else 0
            runs[k].append(maps.get("@" + k, missing))
    return {k: {"median": statistics.median([x for x in v if x is not None] or [None]),
                "runs": v} for k, v in runs.items()}


def rows_of(raw, timing):
    out = []
    for kernel in ("base", "patched"):
        lines = jsonl(os.path.join(raw, kernel, "workloads.jsonl")) + \
            jsonl(os.path.join(raw, kernel, "workloads-traced.jsonl"))
        groups = {}
        for r in lines:
            name = r["probe"] + ("-traced" if r.get("traced") else "") + \
                ("-x%d" % r["procs"] if r.get("procs", 1) > 1 else "")
            groups.setdefault((r["label"], name), []).append(r)
        for (label, name), rs in groups.items():
            vals = [r["value"] for r in rs]
            row = {
                "source": SOURCE, "base": base_of(os.path.join(raw, kernel)),
                "timing": timing, "kernel": kernel, "setting": label,
                "settings": rs[0].get("settings", {}),
                "workload": ("micro:" if label == "def" else "micro-sweep:") + name,
                "reps": len(rs),
                "value": dict(unit=rs[0]["unit"], **summary(vals)),
                "cpu_ms": {"median": statistics.median([r["user_ms"] + r["sys_ms"] for r in rs]),
                           "user_runs": [r["user_ms"] for r in rs],
                           "sys_runs": [r["sys_ms"] for r in rs]},
            }
            ext = [r["extfrag"] for r in rs if r.get("extfrag") is not None]
            if ext:
                row["extfrag"] = {"median": statistics.median(ext), "runs": ext}
            if rs[0]["probe"] in METRICS:
                row["metrics"] = {k: dict(unit=unit, **summary(
                    [r[k] for r in rs if r.get(k) is not None]))
                    for k, unit in METRICS[rs[0]["probe"]]}
            if rs[0]["probe"] == "kbuild":
                for k in ("user_s", "sys_s"):
                    row[k] = summary([r[k] for r in rs])
                row["real_s"] = row["value"]
            if rs[0].get("traced"):
                row["traced"] = True
            if all(r.get("free_high_file") for r in rs):
                row["free_high"] = free_high(raw, kernel, rs)
            if rs[0]["probe"] == "mmap-write-unmap" and rs[0].get("traced"):
                lat = refill_lat(raw, kernel, label)
                if lat:
                    row["refill_lat"] = lat
            out.append(row)
    return add_vs_def(out)


def fmt(x, nd=1):
    if x is None:
        return "-"
    return "%.0f" % x if abs(x) >= 1000 else "%.*f" % (nd, x)


def compare_table(rows):
    """mmtests compare form: per timing and workload, the unpatched kernel
    at def, then the patched kernel's settings; median, spread, change."""
    out = []
    keys = sorted({(r["timing"], r["workload"].split(":", 1)[1]) for r in rows})
    for timing in sorted({k[0] for k in keys}):
        out += ["", "### %s timing" % timing, "",
                "| workload | unit | kernel | setting | median | spread | change | extfrag |",
                "|---|---|---|---|---|---|---|---|"]
        for t, name in keys:
            if t != timing:
                continue
            rs = [r for r in rows if r["timing"] == t and r["workload"].split(":", 1)[1] == name]
            ref = next((r for r in rs if r["kernel"] == "base" and r["setting"] == "def"), None)
            rs.sort(key=lambda r: (r["kernel"] != "base", r["setting"] != "def", r["setting"]))
            for r in rs:
                v = r["value"]
                change = ""
                if ref and r is not ref and ref["value"]["median"]:
                    d = (v["median"] - ref["value"]["median"]) / ref["value"]["median"] * 100
                    change = "%+.2f%%%s" % (d, " *" if exceeds(d, v["spread_pct"],
                                                               ref["value"]["spread_pct"]) else "")
                out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, v["unit"], "unpatched" if r["kernel"] == "base" else "patched",
                    r["setting"], fmt(v["median"]),
                    "-" if v["spread_pct"] is None else "+-%.2f%%" % v["spread_pct"], change,
                    fmt(r["extfrag"]["median"], 0) if "extfrag" in r else ""))
    return out


def hahn_table(rows):
    """kbuild as Joshua Hahn's tables give it: per setting, real/user/sys
    mean (coefficient of variation), delta % against the unpatched kernel."""
    ks = [r for r in rows if r["workload"].split(":", 1)[1].startswith("kbuild")]
    if not ks:
        return []
    out = []
    for timing in sorted({r["timing"] for r in ks}):
        rs = [r for r in ks if r["timing"] == timing]
        rs.sort(key=lambda r: (r["kernel"] != "base", r["setting"] != "def", r["setting"]))
        ref = rs[0] if rs[0]["kernel"] == "base" else None
        cols = ["%s %s" % ("unpatched" if r["kernel"] == "base" else "patched", r["setting"])
                for r in rs]
        out += ["", "### kbuild, %s timing, %d runs: seconds, mean (coefficient of variation)"
                % (timing, rs[0]["reps"]), "",
                "| | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for k in ("real_s", "user_s", "sys_s"):
            cells = []
            for r in rs:
                s = r[k]
                cell = "%.2f (%s)" % (s["mean"], "-" if s["cv_pct"] is None else "%.2f%%" % s["cv_pct"])
                if ref and r is not ref and ref[k]["mean"]:
                    cell += " %+.2f%%" % ((s["mean"] - ref[k]["mean"]) / ref[k]["mean"] * 100)
                cells.append(cell)
            out.append("| %s | %s |" % (k[:-2], " | ".join(cells)))
    return out


def cov_cell(s):
    return "-" if s.get("cv_pct") is None else "%.2f%%" % s["cv_pct"]


def settings_table(rows):
    """Every workload's metrics against its kernel's default, per timing
    and kernel, as mmtests compare and Joshua Hahn's kbuild table give
    them: one row per metric; the default's median and CoV, then per
    setting its median, delta % ('*' beyond the larger spread) and CoV."""
    order = settings.labels()
    out = []
    for timing in sorted({r["timing"] for r in rows}):
        for kernel in ("base", "patched"):
            rs = [r for r in rows if r["timing"] == timing and r["kernel"] == kernel
                  and not r.get("traced")]
            labels = sorted({r["setting"] for r in rs},
                            key=lambda s: (s != "def", order.index(s) if s in order else 99, s))
            if "def" not in labels or len(labels) < 2:
                continue
            names = sorted({r["workload"].split(":", 1)[1] for r in rs})
            reps = sorted({r["reps"] for r in rs})
            n = str(reps[0]) if len(reps) == 1 else "%d-%d" % (reps[0], reps[-1])
            out += ["", "### Against the default: %s kernel, %s timing, n = %s runs per setting"
                    % ("unpatched" if kernel == "base" else "patched", timing, n), "",
                    "| metric | unit | def | def CoV | " + " | ".join(
                        "%s | %s delta | %s CoV" % (s, s, s) for s in labels[1:]) + " |",
                    "|---" * (4 + 3 * (len(labels) - 1)) + "|"]
            for name in names:
                by = {r["setting"]: r for r in rs if r["workload"].split(":", 1)[1] == name}
                if "def" not in by:
                    continue
                probe = name.split("-x")[0]
                keys = [("value", by["def"]["value"]["unit"])] + METRICS.get(probe, [])
                for k, unit in keys:
                    label = LABELS.get(probe, name) if k == "value" else "%s %s" % (probe, k)
                    ref = by["def"]["value"] if k == "value" else by["def"]["metrics"][k]
                    cells = [label, unit, fmt(ref["median"], 2), cov_cell(ref)]
                    for s in labels[1:]:
                        r = by.get(s)
                        m = None if r is None else (r["value"] if k == "value" else r.get("metrics", {}).get(k))
                        if m is None:
                            cells += ["", "", ""]
                            continue
                        d = delta_pct(m["median"], ref["median"])
                        cells += [fmt(m["median"], 2), "-" if d is None else "%+.2f%%%s" % (
                            d, " *" if exceeds(d, m["spread_pct"], ref["spread_pct"]) else ""),
                            cov_cell(m)]
                    out.append("| " + " | ".join(cells) + " |")
    if out:
        out += ["", "The bonnie rows are a proxy of Claudiu Beznea's bonnie++ -d /mnt -u root "
                "on a single-CPU RZ/G3S with an SD card: here one vCPU (taskset -c 0), tmpfs, "
                "no block device and no SD card; icount sees neither I/O waits nor cache misses. "
                "'-': bonnie++ printed +++++ (a phase too quick to time) in every run. "
                "net: one iperf3 TCP stream over lo in the guest (client and server on its vCPUs)."]
    return out


def refill_table(rows):
    rs = [r for r in rows if "refill_lat" in r]
    if not rs:
        return []
    out = ["", "### mmap-write-unmap under bench/guest/refill-lat.bt: pcp refill latency "
           "(funclatency form; one traced run per setting)", "",
           "| kernel | setting | refills | mean us | p50 us | p99 us | max us | holds | hold p99 us | hold max us |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rs, key=lambda r: (r["kernel"] != "base", r["setting"])):
        x = r["refill_lat"]
        out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            "unpatched" if r["kernel"] == "base" else "patched", r["setting"], x["refills"],
            fmt(x["mean_us"]), fmt(x.get("p50_us")), fmt(x.get("p99_us")), fmt(x["max_us"]),
            x.get("holds", "-"), fmt(x.get("hold_p99_us")), fmt(x.get("hold_max_us"))))
    return out


def free_high_table(rows):
    rs = [r for r in rows if "free_high" in r]
    if not rs:
        return []
    out = ["", "### iperf3 over lo under bench/guest/free-high.bt: frees that set free_high", "",
           "Per run: pcp frees, those of order 1-3, those that set free_high (each trims the "
           "list at once); the checks on that computed test (bench/guest/free-high.bt): "
           "short, such frees that left more on their list than the free_high trim would, "
           "and missed, other order 1-3 frees that left the CPU's lists empty (both 0 "
           "when the test is the kernel's; they see a difference only while the list holds "
           "at most the bound); the largest free_count an order 1-3 free found, against the "
           "test's threshold batch + high_min / 2 (min-max over the CPUs' lists). "
           "Median [range] of the runs.", "",
           "| kernel | setting | runs | frees | order 1-3 | free_high | short | missed | "
           "free_count max | threshold | Gbit/s (probed) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    def mr(d):
        v = d["runs"]
        return "%s [%s-%s]" % (fmt(d["median"], 0), fmt(min(v), 0), fmt(max(v), 0))
    for r in sorted(rs, key=lambda r: (r["kernel"] != "base", settings.rank(r["setting"]))):
        x = r["free_high"]
        out.append("| %s | %s | %d | %s | %s | %s | %d | %d | %s | %s-%s | %s |" % (
            "unpatched" if r["kernel"] == "base" else "patched", r["setting"], r["reps"],
            mr(x["frees"]), mr(x["hi_frees"]), mr(x["free_high"]),
            sum(x["free_high_short"]["runs"]), sum(x["missed"]["runs"]), mr(x["hi_free_count_max"]),
            fmt(min(x["threshold_min"]["runs"]), 0), fmt(max(x["threshold_max"]["runs"]), 0),
            fmt(r["value"]["median"], 2)))
    return out


def rows(dirname):
    """The workloads' rows of DIR (tcg, then icount)."""
    return rows_of(os.path.join(dirname, "raw"), "tcg") + \
        rows_of(os.path.join(dirname, "icount", "raw"), "icount")


def section(rows):
    """DIR/workloads.md, the section report.md ends with: its lines."""
    md = ["## Workloads (bench/guest/workloads-run)", "",
          "bench/guest/workloads.c says what each imitates and keeps. Rows in results.json: "
          "micro:NAME (default setting), micro-sweep:NAME (the others). Change: against "
          "the unpatched kernel at def, '*' where it exceeds the larger spread (half the "
          "range over the median). extfrag: kmem:mm_page_alloc_extfrag events per run "
          "(median)."]
    return md + compare_table(rows) + hahn_table(rows) + settings_table(rows) + refill_table(rows) + free_high_table(rows)


def main(argv):
    print("\n".join(section(rows(dir_arg(argv, "workloads.py")))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
