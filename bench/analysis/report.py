#!/usr/bin/python3
"""report - render the raw output of bench/guest/guest-run as build/$BASE/report/.

Usage: bench/analysis/report.py DIR
       bench/analysis/report.py --table RESULTS_JSON

DIR: writes DIR/results.json (rows from DIR/raw/ and DIR/icount/raw/:
bench/analysis/results.py), DIR/report.md (the tables of bench/analysis/tables.py, the
histograms, model.md when bench/model/model.py wrote one) and the PNGs of
bench/analysis/plots.py, and prints the comparison, regression and trade-off
tables.  A --multi run (DIR/raw/TIMING-smpN/) gets its own table.
--table prints the comparison table of a results.json.

Percentiles of the bpftrace histograms (zone->lock holds, victim waits) are
conservative: the upper bound of the log2 bucket that holds the percentile,
capped at the exact maximum; at most 2x the true value, never below it.
"""
import json
import os
import statistics
import sys

from plots import plots
import settings
from results import PATHS, PHASE_ORDER, SCENARIOS, base_of, case, jsonl, micro_cases, sweep_cases
from tables import (chunked_verdict, cost_table, fmt_num, fmt_spread, legend,
                    regression_table, sweep_table, table, tradeoff_table)

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


def report(dirname):
    raw = os.path.join(dirname, "raw")
    if os.path.isdir(raw) and any("-smp" in d for d in os.listdir(raw)):
        return multi_report(dirname)
    labels = sorted(settings.labels(), key=settings.alone)
    cases, micro = [], []
    for timing, r in (("tcg", raw), ("icount", os.path.join(dirname, "icount", "raw"))):
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
    res = [{k: v for k, v in c.items() if not k.startswith("_")} for c in cases] + micro
    with open(os.path.join(dirname, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    made = plots(dirname, cases)
    text = table(res)
    bases = sorted({c["base"] for c in cases if c["base"]}) or ["?"]
    first = cases[0] if cases else {}

    md = ["# zone->lock holds by path and the victim's waits, per setting: base %s\n"
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
          "the unpatched kernel at the same workload; `*`: the change exceeds the spread.\n",
          "## Settings\n", "```\n" + legend() + "```\n",
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
          "```\n" + chunked_verdict(res) + "\n```\n",
          "## Histograms\n",
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
    model = os.path.join(dirname, "model.md")
    if os.path.exists(model):
        with open(model) as f:
            md.append("## Many CPUs, on paper (bench/model/model.py)\n")
            md.append(f.read().replace("\n# ", "\n### ").replace("\n## ", "\n### "))
    for png in made:
        md.append("![%s](%s)\n" % (png, png))
    with open(os.path.join(dirname, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(text)
    print(regression_table(res))
    print(tradeoff_table(res))
    print("report: %s/report.md, results.json, %s" % (dirname, ", ".join(made)))
    return 0


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("-"):
        return report(argv[1])
    if len(argv) == 3 and argv[1] == "--table":
        with open(argv[2]) as f:
            print(table(json.load(f)), end="")
        return 0
    print("usage: report.py DIR | --table RESULTS_JSON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
