#!/usr/bin/python3
"""report - render the raw output of bench/guest/guest-run as build/$BASE/report/.

Usage: bench/analysis/report.py [--model] DIR
       bench/analysis/report.py --table RESULTS_JSON

DIR: the one analysis pass of a bench/run output folder.  Writes
DIR/results.json once: the scenario rows and regression probes
(bench/analysis/results.py), the instruments' rows
(bench/analysis/compare.py), the bulk paths' and their cost's rows
(bench/analysis/paths_table.py) and the workloads' rows
(bench/analysis/workloads.py, also DIR/workloads.md), the rlat and frag
instruments' rows (bench/analysis/refill_harm.py), each row with the
"provenance" of its boot folder (provenance.json and uname.txt of
raw/KERNEL/ or icount/raw/KERNEL/, by its timing); with --model then
runs bench/model/model.py (DIR/model.json, model.md; beside the run's
tcg rows); then writes DIR/report.md (the tables of
bench/analysis/tables.py, the histograms, model.md when there is one,
the instruments' and the workloads' sections) and the PNGs of
bench/analysis/plots.py, and prints the comparison, regression,
trade-off and instruments tables.  A --multi run (DIR/raw/TIMING-smpN/)
gets its own table.  --table prints the comparison table of a
results.json.

Percentiles of the bpftrace histograms (zone->lock holds, victim waits) are
conservative: the upper bound of the log2 bucket that holds the percentile,
capped at the exact maximum; at most 2x the true value, never below it.
"""
import json
import os
import statistics
import sys

import compare
import paths_table
import refill_harm
import settings
import workloads
from plots import plots
from results import (PATHS, PHASE_ORDER, SCENARIOS, base_of, case, fail, jsonl, micro_cases,
                     need, sweep_cases)
from tables import (chunked_verdict, cost_table, fmt_num, fmt_spread, legend,
                    regression_table, sweep_table, table, tradeoff_table)

HERE = os.path.dirname(os.path.abspath(__file__))
# what bench/run's run_provenance (scripts/lib.sh) writes into a boot folder
PROVENANCE_KEYS = ("base_version", "series_sha", "code_sha", "tree_dirty", "patch_ids", "config_sha256",
                   "variant", "commit", "qemu", "timing", "host_cpu", "date")


def provenance(d):
    """The kernel and run a boot folder D measured: its provenance.json
    (bench/run) and "uname" from its uname.txt (the guest's uname -rv);
    null where a file is missing, never guessed."""
    p = dict.fromkeys(PROVENANCE_KEYS)
    try:
        with open(os.path.join(d, "provenance.json")) as f:
            p.update(json.load(f))
    except OSError:
        pass
    try:
        with open(os.path.join(d, "uname.txt")) as f:
            p["uname"] = f.read().strip() or None
    except OSError:
        p["uname"] = None
    return p


def boot_folder(dirname, row):
    """The boot folder a row was measured in: its timing's raw/ (icount:
    icount/raw/), then its kernel's folder, or the icount page-fault sweep's
    (results.sweep_cases)."""
    raw = os.path.join(dirname, *(("raw",) if row.get("timing") == "tcg" else ("icount", "raw")))
    if row.get("timing") == "icount" and row.get("workload") == "micro-sweep:pf":
        return os.path.join(raw, "sweep")
    return os.path.join(raw, row.get("kernel") or "")


def text_hist(buckets):
    """A histogram as bpftrace prints one: [lo, hi)  count |@@@@|."""
    def human(x):
        for div, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
            if x >= div and x % div == 0:
                return "%d%s" % (x // div, suffix)
        return str(x)
    nonzero = [b for b in buckets if b["count"]]
    if not nonzero:
        return "    (no events)\n"
    top = max(b["count"] for b in buckets)
    lines = []
    for b in buckets:
        lo, hi = b.get("min", 0), b.get("max", 0) + 1
        bar = "@" * int(round(52 * b["count"] / top)) if top else ""
        lines.append("[%s, %s)%s %8d |%-52s|" % (human(lo), human(hi), " " * max(1, 12 - len(human(lo)) - len(human(hi))), b["count"], bar))
    return "\n".join(lines) + "\n"


def multi_report(dirname):
    """bench/run --multi: DIR/raw/TIMING-smpN/KERNEL/multi.jsonl, one line per
    storm instance and repetition -> DIR/results.json, DIR/report.md."""
    raw = os.path.join(dirname, "raw")
    res = []
    for mode in sorted(os.listdir(raw)):
        timing, _, smp = mode.partition("-smp")
        for kernel in ("base", "patched"):
            d = os.path.join(raw, mode, kernel)
            rows = jsonl(os.path.join(d, "multi.jsonl"))
            for label in dict.fromkeys(r["label"] for r in rows):
                rs = [r for r in rows if r["label"] == label]
                win = [r["victim_window"] for r in rs if r.get("victim_window", {}).get("samples")]
                res.append({
                    "base": base_of(d), "timing": timing, "kernel": kernel, "setting": label,
                    "provenance": provenance(d),
                    "settings": rs[0].get("settings", {}), "workload": "exit-storm-multi",
                    "vcpus": int(smp), "instances": max(r["instance"] for r in rs) + 1,
                    "reps": len(rs),
                    "storm_ms": {"median": statistics.median(r["storm_ms"] for r in rs),
                                 "runs": [r["storm_ms"] for r in rs]},
                    "victim_runs": {k: {"median": statistics.median(w[k] for w in win) if win
                                        else None, "runs": [w[k] for w in win]}
                                    for k in ("p99_us", "p999_us", "max_us", "sum_ms")},
                })
    with open(os.path.join(dirname, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    fmt_row = "%-6s %-6s %-9s %-7s %9s %9s %10s %10s %10s"
    lines = [fmt_row % ("timing", "vcpus", "kernel", "setting", "storm ms", "spread",
                        "v.p99 us", "v.p999 us", "v.max us")]
    for c in res:
        v = c["victim_runs"]
        lines.append(fmt_row % (c["timing"], c["vcpus"],
                                "unpatched" if c["kernel"] == "base" else c["kernel"],
                                c["setting"], fmt_num(c["storm_ms"]["median"]),
                                fmt_spread(c["storm_ms"]["runs"]), fmt_num(v["p99_us"]["median"]),
                                fmt_num(v["p999_us"]["median"]), fmt_num(v["max_us"]["median"])))
    text = "\n".join(lines) + "\n"
    md = ["# Several CPUs at once (bench/run --multi): base %s\n"
          % " ".join(sorted({c["base"] or "?" for c in res})),
          "One exit storm (2 x 128 MiB) and one victim per pair of vCPUs, all at once; "
          "medians over storms and repetitions, the victim's fault time in its storm's exit "
          "window. Emulated CPUs: under tcg the vCPUs share the host's 2 cores, under icount "
          "they take turns on one thread, so waits are inflated (tcg) or serialized "
          "(icount). A check on the trend of bench/model/model.py across settings and CPU counts, "
          "not a claim about real hardware.\n",
          "```\n" + text + "```\n"]
    model = os.path.join(os.path.dirname(dirname), "report", "model.md")
    if os.path.exists(model):
        md.append("The model's predictions for 16 to 256 CPUs: %s\n" % model)
    with open(os.path.join(dirname, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(text, end="")
    print("report: %s/report.md, results.json" % dirname)
    return 0


def storm_cases(dirname):
    """The scenario cases (with their histograms) and the regression probes
    of DIR/raw/ and DIR/icount/raw/."""
    cases, micro = [], []
    labels = sorted(settings.labels(), key=settings.alone)
    for timing, r in (("tcg", os.path.join(dirname, "raw")),
                      ("icount", os.path.join(dirname, "icount", "raw"))):
        for kernel in ("base", "patched"):
            for label in labels:
                for sc in SCENARIOS:
                    if sc == "refill" and settings.alone(label):
                        continue
                    c = case(r, kernel, label, sc, timing)
                    if c["reps"]:
                        cases.append(c)
        micro += micro_cases(r, timing)
        if timing == "icount":
            micro += sweep_cases(r, timing)
    return cases, micro


def intro(raw, bases, first):
    return ["# zone->lock holds by path and the victim's waits, per setting: base %s\n"
            % " ".join(bases),
            "Generated by `make bench` (bench/run) from %s. QEMU TCG guest, 2 vCPUs, 4 GiB "
            "(timing: tcg; compare settings inside one run only). Two scenarios per setting: "
            "the exit storm (storm processes fault in their memory on CPU 0, phase fault_in, "
            "then exit at once, phase exit) and the refill load (storm -R: processes map, "
            "write and unmap in a loop, phase refill), each with a victim faulting 256 MiB "
            "cycles on CPU 1 (phase alone before the storm, quiet after). %d repetition(s) per "
            "setting, interleaved. Kernel-side rows come from the traced repetitions "
            "(bench/guest/paths.bt: zone->lock holds by the path that took the lock, the victim's "
            "waits by phase and by the path holding the lock; bench/guest/paths-tp.bt: pages per "
            "transfer from the series' tracepoints where the kernel has them, else "
            "free_pcppages_bulk()'s count); pooled over the repetitions (no spread); percentiles "
            "are the upper bound of their log2 bucket (conservative, up to 2x). `by HOLDER` rows "
            "count only the waits in the scenario's own window (exit or refill). Storm time, "
            "refill throughput and victim fault latency come from the untraced repetitions "
            "(from the traced ones where there are none: %s).\n"
            % (raw, first.get("reps", 0), first.get("timed_from", "-")),
            "Spread: half the min-max range of the repetitions over the median. Change: against "
            "the unpatched kernel at the same workload and setting where it ran that setting, "
            "else at def (column `against`); `*`: the change exceeds the spread.\n"]


def tables_md(res, text, bases):
    return ["## Settings\n", "```\n" + legend() + "```\n",
            "## Side by side (base %s)\n" % " ".join(bases), "```\n" + text + "```\n",
            "## Regression probes at the default settings\n",
            "will-it-scale page_fault1/page_fault2 (one process, and one per CPU), "
            "lmbench-like fault latency, fork+exit and mmap+munmap, a compile, and the two "
            "scenarios' cost; icount timing where the run has it (instructions executed, "
            "1 ns each: no cache misses, vCPUs take turns).\n",
            "```\n" + regression_table(res) + "```\n",
            "## The knob's trade-off, every setting\n",
            "The page-fault probe (will-it-scale page_fault1, one process) of the patched kernel "
            "at every setting, icount: what each setting costs the CPU that faults in and unmaps "
            "(refills and frees of its own), deterministic to a few tenths of a percent.\n",
            "```\n" + sweep_table(res) + "```\n",
            "The scenarios at every setting.  In icount each storm and refill load runs alone "
            "(a victim's vCPU would take turns with theirs and add its faults to their time); "
            "the victim's columns then come from the tcg runs of the same setting:\n",
            "```\n" + tradeoff_table(res) + "```\n",
            "Where the cost goes (traced tcg runs, pooled over the repetitions): zone->lock "
            "holds per path, the time they held the lock, the largest refill in pages.\n",
            "```\n" + cost_table(res) + "```\n",
            "## Refills by hold (docs/experiments/chunked-refill.patch)\n",
            "```\n" + chunked_verdict(res) + "\n```\n"]


def histograms_md(cases):
    md = ["## Histograms\n",
          "How to read them: bench/paths_example.txt. Holds are pooled over the run's phases.\n"]
    for c in cases:
        md.append("### %s %s, %s\n" % (c["kernel"], c["setting"], c["scenario"]))
        for p in PATHS:
            h = c["_hist"]["holds"][p]
            if h:
                md.append("zone->lock hold, %s path:\n\n```\n@hold_ns:\n%s```\n" % (p, text_hist(h)))
            h = c["_hist"]["pages"].get(p)
            if h:
                md.append("pages per transfer, %s path%s:\n\n```\n@pages:\n%s```\n"
                          % (p, " (order 0)" if p == "refill" else "", text_hist(h)))
        for ph in PHASE_ORDER:
            h = c["_hist"]["waits"].get(ph)
            if h:
                md.append("victim wait for zone->lock, phase %s:\n\n```\n@wait_ns:\n%s```\n"
                          % (ph, text_hist(h)))
    return md


def model_md(dirname):
    path = os.path.join(dirname, "model.md")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return ["## Many CPUs, on paper (bench/model/model.py)\n",
                f.read().replace("\n# ", "\n### ").replace("\n## ", "\n### ")]


def run_model(dirname, rows):
    """bench/model/model.py beside this run (its 2-vCPU waits: the tcg rows)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "model"))
    import model
    argv = ["--cpus", "2,4,8,16,32,64,128,256", "--out", dirname]
    if any(r.get("timing") == "tcg" for r in rows):
        argv += ["--measured", os.path.join(dirname, "results.json")]
    return model.main(argv)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def report(dirname, with_model=False):
    """DIR/results.json (every row, written once), DIR/report.md, the PNGs;
    with_model: bench/model/model.py between the two."""
    raw = os.path.join(need(dirname), "raw")
    if not any(os.path.isdir(d) for d in (raw, os.path.join(dirname, "icount", "raw"))):
        fail(66, "no raw output in %s (raw/ or icount/raw/): run bench/run first" % dirname)
    if os.path.isdir(raw) and any("-smp" in d for d in os.listdir(raw)):
        return multi_report(dirname)
    cases, micro = storm_cases(dirname)
    res = [{k: v for k, v in c.items() if not k.startswith("_")} for c in cases] + micro
    wl = workloads.rows(dirname)
    rows = res + compare.instrument_rows(dirname, res) + paths_table.rows(dirname, res) + wl
    rows += refill_harm.rows(dirname)
    for r in rows:
        r["provenance"] = provenance(boot_folder(dirname, r))
    write(os.path.join(dirname, "results.json"), json.dumps(rows, indent=1))
    if with_model and run_model(dirname, rows):
        print("report.py: bench/model/model.py failed: no report.md", file=sys.stderr)
        return 1
    made = plots(dirname, cases)
    text = table(res)
    bases = sorted({c["base"] for c in cases if c["base"]}) or ["?"]
    md = intro(raw, bases, cases[0] if cases else {}) + tables_md(res, text, bases) + \
        histograms_md(cases) + model_md(dirname) + ["![%s](%s)\n" % (png, png) for png in made]
    body = "\n".join(md).rstrip("\n") + "\n\n" + compare.section(rows)
    paths_md = paths_table.section(rows)
    if paths_md:
        body += "\n" + paths_md
    harm = refill_harm.section(rows)
    if harm:
        body += "\n" + "\n".join(harm) + "\n"
    if wl:
        wmd = "\n".join(workloads.section(wl)) + "\n"
        write(os.path.join(dirname, "workloads.md"), wmd)
        body += "\n" + wmd
    write(os.path.join(dirname, "report.md"), body)
    print(text)
    print(regression_table(res))
    print(tradeoff_table(res))
    print(compare.compare_table(rows), end="")
    print("report: %s/report.md, results.json, %s" % (dirname, ", ".join(made)))
    return 0


def main(argv):
    if len(argv) in (2, 3) and argv[1:-1] in ([], ["--model"]) and not argv[-1].startswith("-"):
        return report(argv[-1], len(argv) == 3)
    if len(argv) == 3 and argv[1] == "--table":
        with open(need(argv[2])) as f:
            print(table(json.load(f)), end="")
        return 0
    print("usage: report.py [--model] DIR | --table RESULTS_JSON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
