#!/usr/bin/env python3
"""hw_report - scripts/hw-run's raw/ into hw-report.md and hw-report.json.

    hw_report.py RAW OUT [--compare OLD_DIR]

RAW holds machine.json, throughput.jsonl (one line per untraced run:
setting, load, rep, settings read back, bench/guest/workloads.c's line or
the kbuild times) and holds-REP.json (bpftrace -f json, one per traced
repetition, maps keyed by the loads' task names w:LABEL/LOAD/REP; hold
times in 100 ns buckets up to 100 us, log2 ones above).  The
holds use DESIGN's keys (calls, max_pages, p50_us, p99_us, max_us) plus
avg_us, avg_pages and cov_pct (of the per-repetition averages); the
throughput its mean over the repetitions, their CoV and the change against
def.  With --compare, this run against OLD_DIR/hw-report.json.
"""
import datetime
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import settings  # noqa: E402
from stats import hist_merge, hist_upper  # noqa: E402

LOADS = {"yafang": ("y", "Yafang Shao's reproducer (parallel mmap, write, unmap)"),
         "pf1": ("p1", "will-it-scale page_fault1, one process per CPU"),
         "pf2": ("p2", "will-it-scale page_fault2, one process per CPU"),
         "kbuild": (None, "kernel build (make -jCPUS), time: less is better")}
HOLDS = ("refill", "drain")
TAIL_NS = 100000  # hw-run's linear buckets (100 ns) end here


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def cov(values):
    """Coefficient of variation in %; None under two values."""
    if len(values) < 2 or not statistics.mean(values):
        return None
    return statistics.stdev(values) / statistics.mean(values) * 100


def bpf_maps(path):
    maps = {}
    for rec in jsonl(path):
        if rec.get("type") in ("map", "hist", "lhist", "stats"):
            maps.update(rec["data"])
    return maps


def holds(raw, label, load, reps, machine):
    """{refill, drain}: the pooled holds of LABEL's LOAD over the reps."""
    code = LOADS[load][0]
    out = {}
    for kind in HOLDS:
        traced = machine["events"][kind]
        if not traced and kind == "drain":
            out[kind] = None
            continue
        # refill-lat.bt's names where the event is missing
        h, mx, sm, n = ((f"@{kind}_ns", f"@{kind}_max_ns", f"@{kind}_sum_ns", f"@{kind}s")
                        if traced else ("@refill_ns", "@refill_max_ns", "@refill_sum_ns", "@refills"))
        hists, maxes, calls, total, pages, max_pages, avgs = [], [], 0, 0, 0, [], []
        for rep in range(1, reps + 1):
            maps = bpf_maps(os.path.join(raw, f"holds-{rep}.json"))
            key = f"w:{label}/{code}/{rep}"
            c = maps.get(n, {}).get(key, 0)
            if not c:
                continue
            hists.append(maps.get(h, {}).get(key, []))
            # holds of 100 us and more: log2 buckets above the linear ones
            hists.append([dict(b, min=max(b.get("min", 0), TAIL_NS))
                          for b in maps.get(f"@{kind}_tail_ns", {}).get(key, [])])
            maxes.append(maps.get(mx, {}).get(key, 0))
            s = maps.get(sm, {}).get(key, 0)
            calls, total = calls + c, total + s
            avgs.append(s / c / 1e3)
            if traced:
                pages += maps.get(f"@{kind}_pages", {}).get(key, 0)
                max_pages.append(maps.get(f"@{kind}_max_pages", {}).get(key, 0))
        if not calls:
            out[kind] = {"calls": 0}
            continue
        m = max(maxes)
        merged = hist_merge(hists)
        out[kind] = {"calls": calls, "avg_us": total / calls / 1e3,
                     "p50_us": hist_upper(merged, 0.50, m) / 1e3,
                     "p99_us": hist_upper(merged, 0.99, m) / 1e3, "max_us": m / 1e3,
                     "avg_pages": pages / calls if traced else None,
                     "max_pages": max(max_pages) if traced else None,
                     "cov_pct": cov(avgs),
                     "source": ("kmem:mm_page_pcpu_%s_hold" % kind) if traced
                     else "refill-lat.bt: __rmqueue_pcplist() call latency, includes waiting"}
    return out


def rows(raw, machine):
    runs = jsonl(os.path.join(raw, "throughput.jsonl"))
    labels = [s for s in settings.labels() if any(r["setting"] == s for r in runs)]
    out = []
    for load in LOADS:
        mine = [r for r in runs if r["load"] == load]
        if not mine:
            continue
        ref = [r["value"] for r in mine if r["setting"] == "def"]
        ref_mean = statistics.mean(ref) if ref else None
        for label in labels:
            rs = [r for r in mine if r["setting"] == label]
            vals = [r["value"] for r in rs]
            mean = statistics.mean(vals)
            row = {"setting": label, "load": load, "reps": len(vals),
                   "settings": rs[-1]["settings"], "timing": "hw",
                   "throughput": {"unit": rs[0]["unit"], "mean": mean, "runs": vals,
                                  "cov_pct": cov(vals),
                                  "delta_pct": (mean - ref_mean) / ref_mean * 100
                                  if ref_mean else None}}
            if load == "kbuild":
                row["kbuild"] = {k: statistics.mean(r[k + "_s"] for r in rs)
                                 for k in ("real", "user", "sys")}
            else:
                row["holds"] = holds(raw, label, load, machine["reps"], machine)
            out.append(row)
    return out


def fmt(v, nd=2):
    return "-" if v is None else f"{v:.{nd}f}"


def pct(v):
    return "-" if v is None else f"{v:+.1f}%"


def vs_def(r):
    """The throughput cell against def, with the CoV where there is one."""
    t = r["throughput"]
    cell = "reference" if r["setting"] == "def" else pct(t["delta_pct"])
    return cell if t["cov_pct"] is None else f"{cell} (CoV {t['cov_pct']:.1f}%)"


def hold_cell(h):
    if h is None:
        return "n/a (needs 0002's event)", "-"
    if not h.get("calls"):
        return "none", "-"
    cell = f"{fmt(h['avg_us'])} / {fmt(h['p99_us'])} / {fmt(h['max_us'])}"
    if h.get("cov_pct") is not None:
        cell += f" (CoV {h['cov_pct']:.1f}%)"
    pages = "-" if h.get("avg_pages") is None else f"{h['avg_pages']:.0f} / {h['max_pages']}"
    return cell, pages


def table(load, rs, machine):
    lines = [f"### {load}: {LOADS[load][1]}", ""]
    if load == "kbuild":
        lines += ["| setting | real s | user s | sys s | time vs default (CoV) |", "|---|---|---|---|---|"]
        for r in rs:
            k = r["kbuild"]
            lines.append(f"| {settings.name(r['setting'])} | {fmt(k['real'])} | {fmt(k['user'])} | "
                         f"{fmt(k['sys'])} | {vs_def(r)} |")
        return lines + [""]
    refill = "refill (alloc) hold" if machine["events"]["refill"] else \
        "refill call, includes waiting"
    lines += [f"| setting | bound, pages | {refill} avg / p99 / max us | pages avg / max | "
              "drain (free) hold avg / p99 / max us | pages avg / max | throughput | "
              "vs default (CoV) |", "|---|---|---|---|---|---|---|---|"]
    for r in rs:
        rc, rp = hold_cell(r["holds"]["refill"])
        dc, dp = hold_cell(r["holds"]["drain"])
        t = r["throughput"]
        k = r["settings"].get("pcp_batch_scale_max")
        bound = "-" if machine.get("batch") is None or k is None else machine["batch"] << k
        lines.append(f"| {settings.name(r['setting'])} | {bound} | {rc} | {rp} | {dc} | {dp} | "
                     f"{t['mean']:.0f} {t['unit']} | {vs_def(r)} |")
    return lines + [""]


def compare(new, old):
    lines = ["## Against an earlier run", "",
             f"This run ({new['provenance']['date']}, kernel {new['machine']['kernel']}) against "
             f"{old['provenance']['date']} (kernel {old['machine']['kernel']}).", "",
             "| load | setting | throughput old -> new | refill p99 us old -> new | "
             "drain p99 us old -> new |", "|---|---|---|---|---|"]
    before = {(r["load"], r["setting"]): r for r in old["rows"]}

    def p99(r, kind):
        h = (r.get("holds") or {}).get(kind)
        return None if not h else h.get("p99_us")
    for r in new["rows"]:
        o = before.get((r["load"], r["setting"]))
        if not o:
            continue
        a, b = o["throughput"]["mean"], r["throughput"]["mean"]
        d = (b - a) / a * 100 if a else None
        lines.append(f"| {r['load']} | {settings.name(r['setting'])} | {a:.0f} -> {b:.0f} ({pct(d)}) | "
                     f"{fmt(p99(o, 'refill'))} -> {fmt(p99(r, 'refill'))} | "
                     f"{fmt(p99(o, 'drain'))} -> {fmt(p99(r, 'drain'))} |")
    return lines + [""]


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--compare"):
        print("usage: hw_report.py RAW OUT [--compare OLD_DIR]", file=sys.stderr)
        return 2
    raw, out = argv[0], argv[1]
    with open(os.path.join(raw, "machine.json")) as f:
        machine = json.load(f)
    m = machine
    prov = {"base": m["base"], "series_sha": m["series_sha"], "commit": m["commit"],
            "config_sha256": None, "uname": m["kernel"], "variant": "patched", "qemu": None,
            "timing": "hw", "virt": m.get("virt"), "host_cpu": m["cpu_model"],
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    report = {"provenance": prov, "machine": machine, "rows": rows(raw, machine)}
    with open(os.path.join(out, "hw-report.json"), "w") as f:
        json.dump(report, f, indent=1)
    md = ["# pcp-batch-scale: hardware run", "",
          f"- machine: {m['cpu_model']}, {m['sockets']} socket(s), {m['cpus']} CPUs "
          f"({m['cpus_used']} used), {m['memory_mib']} MiB",
          f"- virtualisation: {m.get('virt') or 'not recorded'}"
          + ("" if m.get("virt") in (None, "none") else
             " (a virtual machine: its holds and waits include what the host does)"),
          f"- kernel: {m['kernel']}; series commit {m['commit']} (patches/ tree {m['series_sha']})",
          f"- pcp batch (largest): {m['batch']}; sysctls at start: "
          + ", ".join(f"{k}={v}" for k, v in m["sysctls_at_start"].items()),
          f"- {m['reps']} repetitions{' (--quick sizes: a test, not figures)' if m['quick'] else ''}; "
          "holds from the traced runs, in the loads' own tasks "
          + ("(kmem:mm_page_pcpu_*_hold)" if m["events"]["refill"] else
             "(no 0002 events: refill call latency from refill-lat.bt, includes waiting)")
          + "; throughput from untraced runs; CoV over the repetitions", ""]
    for load in LOADS:
        rs = [r for r in report["rows"] if r["load"] == load]
        if rs:
            md += table(load, rs, machine)
    lines = []
    if len(argv) == 4:
        with open(os.path.join(argv[3], "hw-report.json")) as f:
            lines = compare(report, json.load(f))
    with open(os.path.join(out, "hw-report.md"), "w") as f:
        f.write("\n".join(md + lines))
    if lines:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
