#!/usr/bin/python3
"""report - render the raw output of bench/guest-run as build/$BASE/report/.

Usage: bench/report.py DIR
       bench/report.py --table RESULTS_JSON
       bench/report.py --cover RESULTS_JSON TEMPLATE COVER_LETTER

DIR/raw/KERNEL/ holds storm-plain.jsonl and storm-traced.jsonl (one line per
storm, with "settings": the sysctls the guest read back), pcp.json and
pcp-tp.json (bench/pcp.bt and bench/pcp-tp.bt, bpftrace -f json),
plain/LABEL.{alone,window} (victim fault times in ns) and micro.jsonl.
Writes DIR/results.json (the schema in the README), DIR/report.md and
DIR/*.png, and prints the comparison table.

The comparison table has one format, rendered once (table()) and reused by
report.md, --table (the README) and --cover: one metric per row, the value,
its spread (half the range of the repetitions over the median, where there
are repetitions), the change against the unpatched kernel at the same
workload, and '*' where that change exceeds the spread of either side.

With --cover, fills the git format-patch cover letter from TEMPLATE (first
line: subject; @TABLE@ (the exit storm rows), @MICRO@ (the regression
probes' rows), @LEGEND@ (configs/settings), @REPS@ and @LOCKBREAK@).
"""
import json
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def settings_table():
    """configs/settings: [(label, meaning)] in table order."""
    rows = []
    with open(os.path.join(TOP, "configs", "settings")) as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    for line in lines[1:]:
        label, _, _, _, meaning = line.split(None, 4)
        rows.append((label, meaning.strip()))
    return rows


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def bpf_maps(*paths):
    """The maps bpftrace printed at exit: {map name: {key: value}}."""
    maps = {}
    for path in paths:
        for rec in jsonl(path):
            if rec.get("type") in ("map", "hist"):
                maps.update(rec["data"])
    return maps


def raw_maps(d):
    return bpf_maps(os.path.join(d, "pcp.json"), os.path.join(d, "pcp-tp.json"))


def hist_percentile(buckets, q):
    """Percentile of a bpftrace log2 histogram, interpolated in its bucket."""
    total = sum(b["count"] for b in buckets)
    if not total:
        return None
    rank = q * total
    seen = 0
    for b in buckets:
        if b["count"] and seen + b["count"] >= rank:
            lo = b.get("min", 0)
            hi = b.get("max", lo) + 1
            return lo + (hi - lo) * (rank - seen) / b["count"]
        seen += b["count"]
    return buckets[-1].get("max", 0)


def samples(path):
    """The sample file's values, sorted."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(int(x) for x in f if x.strip())


def lat_stats(v):
    """Percentiles of sorted samples in ns, in us."""
    if not v:
        return {"samples": 0}
    n = len(v)
    return {"samples": n, "p50_us": v[n // 2] / 1e3, "p99_us": v[n * 99 // 100] / 1e3,
            "p999_us": v[n * 999 // 1000] / 1e3, "max_us": v[-1] / 1e3}


def case(raw, kernel, label):
    d = os.path.join(raw, kernel)
    maps = raw_maps(d)
    key_s, key_v = "s:" + label, "v:" + label
    bulk = maps.get("@bulk_ns", {}).get(key_s, [])
    pages = maps.get("@pages", {}).get(key_s, [])
    wait = maps.get("@victim_wait_ns", {}).get(key_v, [])
    plain = [r for r in jsonl(os.path.join(d, "storm-plain.jsonl")) if r["label"] == label]
    traced = [r for r in jsonl(os.path.join(d, "storm-traced.jsonl")) if r["label"] == label]
    applied = (plain + traced + [{"settings": {}}])[0]["settings"]
    tp = maps.get("@tp_hold_ns", {}).get(key_s, [])
    runs = [r["storm_ms"] for r in plain]
    sys_ms = [r["storm_sys_ms"] for r in plain]

    def us(x):
        return None if x is None else x / 1e3

    return {
        "kernel": kernel,
        "setting": label,
        "settings": {k: applied.get(k) for k in
                     ("pcp_batch_scale_max", "percpu_pagelist_high_fraction", "pcp_bulk_lock_break")},
        "workload": "exit-storm-alone" if label.endswith("-a") else "exit-storm",
        "reps": len(plain),
        "bulk_free": {
            "calls": sum(b["count"] for b in pages),
            "max_pages": maps.get("@max_pages", {}).get(key_s),
            "p50_us": us(hist_percentile(bulk, 0.50)),
            "p99_us": us(hist_percentile(bulk, 0.99)),
            "max_us": us(maps.get("@bulk_max_ns", {}).get(key_s)),
        },
        "victim": lat_stats(samples(os.path.join(d, "plain", label + ".window"))),
        "victim_alone": lat_stats(samples(os.path.join(d, "plain", label + ".alone"))),
        "victim_lock_wait": {
            "acquisitions": sum(b["count"] for b in wait),
            "p50_us": us(hist_percentile(wait, 0.50)),
            "p99_us": us(hist_percentile(wait, 0.99)),
            "max_us": us(maps.get("@victim_wait_max_ns", {}).get(key_v)),
            "total_us": us(maps.get("@victim_wait_total_ns", {}).get(key_v)),
        },
        "tracepoint": {
            "calls": maps.get("@tp_calls", {}).get(key_s),
            "hold_p50_us": us(hist_percentile(tp, 0.50)),
            "hold_p99_us": us(hist_percentile(tp, 0.99)),
            "lock_breaks": maps.get("@tp_lock_breaks", {}).get(key_s),
        },
        "storm_ms": {"median": statistics.median(runs) if runs else None, "runs": runs},
        "storm_sys_ms": {"median": statistics.median(sys_ms) if sys_ms else None,
                         "runs": sys_ms},
        "_hist": {"bulk_ns": bulk, "pages": pages, "wait_ns": wait},
    }


def micro_cases(raw):
    """One results.json case per (kernel, probe) of the regression probes."""
    out = []
    for kernel in ("base", "patched"):
        probes = {}
        for r in jsonl(os.path.join(raw, kernel, "micro.jsonl")):
            probes.setdefault(r["probe"], []).append(r)
        for probe, rs in probes.items():
            vals = [r["value"] for r in rs]
            applied = rs[0].get("settings", {})
            out.append({
                "kernel": kernel,
                "settings": {k: applied.get(k) for k in
                             ("pcp_batch_scale_max", "percpu_pagelist_high_fraction")},
                "workload": "micro:" + probe, "reps": len(rs),
                "value": {"unit": rs[0]["unit"], "median": statistics.median(vals), "runs": vals},
                "cpu_ms": {"median": statistics.median([r["user_ms"] + r["sys_ms"] for r in rs]),
                           "user_runs": [r["user_ms"] for r in rs],
                           "sys_runs": [r["sys_ms"] for r in rs]},
            })
    return out


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


def fmt(x, nd=1):
    if x is None:
        return "-"
    return ("%." + str(nd) + "f") % x


def plots(dirname, cases):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plots", file=sys.stderr)
        return []
    made = []
    fig, ax = plt.subplots(figsize=(8, 4.5))
    shown = [("base", "def"), ("patched", "def"), ("patched", "k0"), ("patched", "k2"),
             ("patched", "k6"), ("patched", "hf-1"), ("patched", "hf-1k0"), ("patched", "lb")]
    for c in sorted((c for c in cases if (c["kernel"], c["setting"]) in shown),
                    key=lambda c: shown.index((c["kernel"], c["setting"]))):
        h = c["_hist"]["bulk_ns"]
        if not h:
            continue
        xs = [b.get("min", 0) or 1 for b in h]
        tot = sum(b["count"] for b in h) or 1
        ax.step(xs, [b["count"] / tot for b in h], where="post",
                label="%s %s" % (c["kernel"], c["setting"]))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("free_pcppages_bulk() duration, ns (log2 buckets)")
    ax.set_ylabel("fraction of calls")
    ax.set_title("Bulk free duration during the exit storm, per setting")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(dirname, "bulk_free_hist.png"), dpi=110)
    made.append("bulk_free_hist.png")
    plt.close(fig)

    knob = [c for c in cases if c["kernel"] == "patched" and c["setting"] in
            ("k0", "k1", "k2", "k3", "k4", "def", "k6")]
    knob.sort(key=lambda c: c["settings"]["pcp_batch_scale_max"])
    if knob:
        fig, ax1 = plt.subplots(figsize=(8, 4.5))
        xs = [c["settings"]["pcp_batch_scale_max"] for c in knob]
        ax1.plot(xs, [c["bulk_free"]["p99_us"] or 0 for c in knob], "o-", label="bulk free p99 (us)")
        ax1.plot(xs, [c["victim_lock_wait"]["p99_us"] or 0 for c in knob], "s-",
                 label="victim zone->lock wait p99 (us)")
        ax1.set_yscale("log")
        ax1.set_xlabel("vm.pcp_batch_scale_max")
        ax1.set_ylabel("latency, us (log)")
        ax2 = ax1.twinx()
        med = [c["storm_ms"]["median"] or 0 for c in knob]
        lo = [m - min(c["storm_ms"]["runs"] or [m]) for m, c in zip(med, knob)]
        hi = [max(c["storm_ms"]["runs"] or [m]) - m for m, c in zip(med, knob)]
        ax2.errorbar(xs, med, yerr=[lo, hi], fmt="^--", color="tab:red", capsize=3,
                     label="storm time, median and range (ms)")
        ax2.set_ylim(bottom=0)
        ax2.set_ylabel("storm time, ms (from 0)")
        h1, l1 = ax1.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax1.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper left")
        ax1.set_title("Latency vs throughput per knob value (patched kernel)")
        fig.tight_layout()
        fig.savefig(os.path.join(dirname, "tradeoff.png"), dpi=110)
        made.append("tradeoff.png")
        plt.close(fig)
    return made


def lock_break_verdict(storms):
    """The experimental lock break against its targets, as a paragraph."""
    by = {(c["kernel"], c["setting"]): c for c in storms}
    lb, k0, dflt = by.get(("patched", "lb")), by.get(("patched", "k0")), by.get(("patched", "def"))
    lba, basea = by.get(("patched", "lb-a")), by.get(("base", "def-a"))
    if not (lb and k0 and dflt and lba and basea):
        return "(no measurement of the lock break in results.json)"
    w_lb, w_k0 = lb["victim_lock_wait"]["p99_us"], k0["victim_lock_wait"]["p99_us"]
    w_def = dflt["victim_lock_wait"]["p99_us"]
    t_lba, t_basea = lba["storm_ms"]["median"], basea["storm_ms"]["median"]
    ok_wait = w_lb is not None and w_k0 and w_lb <= 1.5 * w_k0
    ok_time = t_lba is not None and t_basea and abs(t_lba / t_basea - 1) <= 0.01
    lines = [
        "With vm.pcp_bulk_lock_break=1 (knob at its default) the victim's",
        "zone->lock wait p99 was %s us, against %s us at knob 0 and %s us"
        % (fmt(w_lb), fmt(w_k0), fmt(w_def)),
        "at the default (target: within 1.5x of knob 0: %s); the bulk frees"
        % ("met" if ok_wait else "missed"),
        "released the lock %s times.  Without a victim the storm took %s ms,"
        % (lb["tracepoint"]["lock_breaks"], fmt(t_lba, 0)),
        "against %s ms unpatched (target: within 1%%: %s)."
        % (fmt(t_basea, 0), "met" if ok_time else "missed"),
    ]
    return "\n".join(lines)


def spread_pct(runs):
    """Half the range over the median, in %; None without repetitions."""
    if len(runs) < 2:
        return None
    med = statistics.median(runs)
    return (max(runs) - min(runs)) / 2 / med * 100 if med else None


STORM_METRICS = (  # name, value of a case, its repetitions (for the spread)
    ("max pages/bulk free", lambda c: c["bulk_free"]["max_pages"], None),
    ("bulk free p99 us", lambda c: c["bulk_free"]["p99_us"], None),
    ("victim lock waits", lambda c: c["victim_lock_wait"]["acquisitions"] or None, None),
    ("victim lock wait p99 us", lambda c: c["victim_lock_wait"]["p99_us"], None),
    ("victim lock wait total ms",
     lambda c: None if c["victim_lock_wait"]["total_us"] is None else c["victim_lock_wait"]["total_us"] / 1e3,
     None),
    ("victim fault p99.9 us", lambda c: c["victim"].get("p999_us"), None),
    ("storm ms", lambda c: c["storm_ms"]["median"], lambda c: c["storm_ms"]["runs"]),
)


def table_rows(res, kind=None):
    """The comparison, one metric of one case per row: (metric, kernel,
    setting, value, spread %, change % against the unpatched kernel at the
    same workload, mark)."""
    storms = [c for c in res if c["workload"].startswith("exit-storm") and kind != "micro"]
    micro = [c for c in res if c["workload"].startswith("micro:") and kind != "storm"]
    ref = {c["workload"]: c for c in res if c["kernel"] == "base"}
    rows = []

    def row(metric, c, val, runs, ref_val, ref_runs, setting):
        if val is None:
            return
        sp = spread_pct(runs) if runs else None
        delta = mark = None
        if c["kernel"] != "base" and val is not None and ref_val:
            delta = (val - ref_val) / ref_val * 100
            noise = [x for x in (sp, spread_pct(ref_runs) if ref_runs else None) if x is not None]
            mark = "*" if noise and abs(delta) > max(noise) else ""
        rows.append((metric, c["kernel"], setting, val, sp, delta, mark or ""))

    for metric, get, get_runs in STORM_METRICS:
        for c in storms:
            r = ref.get(c["workload"])
            row(metric, c, get(c), get_runs(c) if get_runs else None,
                get(r) if r else None, get_runs(r) if r and get_runs else None, c["setting"])
    for c in micro:
        r = ref.get(c["workload"])
        row("%s %s" % (c["workload"][len("micro:"):], c["value"]["unit"]), c,
            c["value"]["median"], c["value"]["runs"], r["value"]["median"] if r else None,
            r["value"]["runs"] if r else None, "def")
    return rows


def table(res, kind=None):
    """The comparison table as fixed-width text (report.md, README, cover);
    kind "storm" or "micro" keeps those rows only."""
    def num(x):
        if x is None:
            return "-"
        return "%.0f" % x if abs(x) >= 100 or x == int(x) else "%.1f" % x
    fmt_row = "%-25s %-9s %-7s %8s %8s %8s"
    lines = [fmt_row % ("metric", "kernel", "setting", "value", "spread", "change"),
             fmt_row % ("-" * 25, "-" * 9, "-" * 7, "-" * 8, "-" * 8, "-" * 8)]
    last = None
    for metric, kernel, setting, val, sp, delta, mark in table_rows(res, kind):
        if last is not None and metric != last:
            lines.append("")
        last = metric
        lines.append((fmt_row + "%s") % (
            metric, "unpatched" if kernel == "base" else kernel, setting, num(val),
            "-" if sp is None else "+-%.1f%%" % sp,
            "-" if delta is None else "%+.1f%%" % delta, " " + mark if mark else ""))
    return "\n".join(lines) + "\n"


def legend():
    """The setting labels, from configs/settings."""
    lines = ["%-7s %s" % (label, meaning) for label, meaning in settings_table()]
    lines.append("%-7s %s" % ("X-a", "setting X, the exit storm alone (no victim)"))
    return "\n".join(lines) + "\n"


def cover(results_path, template_path, cover_path):
    with open(results_path) as f:
        res = json.load(f)
    storms = [c for c in res if c["workload"].startswith("exit-storm")]
    with open(template_path) as f:
        subject, _, body = f.read().partition("\n")
    body = body.lstrip("\n")
    body = body.replace("@TABLE@", table(res, "storm"))
    body = body.replace("@LEGEND@", legend())
    body = body.replace("@MICRO@", table(res, "micro"))
    body = body.replace("@REPS@", str(storms[0]["reps"] if storms else 0))
    body = body.replace("@LOCKBREAK@", lock_break_verdict(storms))
    with open(cover_path) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        print("report: %s is not a format-patch cover letter" % cover_path, file=sys.stderr)
        return 1
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    text = text.replace("*** BLURB HERE ***", body.rstrip("\n"))
    with open(cover_path, "w") as f:
        f.write(text)
    return 0


def report(dirname):
    raw = os.path.join(dirname, "raw")
    labels = [label for label, _ in settings_table()]
    cases = [case(raw, "base", "def"), case(raw, "base", "def-a")]
    cases += [case(raw, "patched", s) for s in labels + ["def-a", "lb-a"]]
    cases = [c for c in cases if c["reps"]]
    res = [{k: v for k, v in c.items() if not k.startswith("_")} for c in cases] + micro_cases(raw)
    with open(os.path.join(dirname, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    made = plots(dirname, cases)
    text = table(res)

    md = ["# Exit storm: zone->lock hold time vs throughput, per setting\n",
          "Generated by `make bench` (bench/run) from %s. QEMU TCG guest, 2 vCPUs, 4 GiB; "
          "storm: 4 processes x 256 MiB of 4 KiB pages exiting at once on CPU 0, victim faulting "
          "256 MiB cycles on CPU 1. %d repetitions per setting, interleaved. Kernel-side rows come "
          "from the traced repetitions (bench/pcp.bt; percentiles interpolated in log2 buckets, "
          "pooled over the repetitions: no spread); storm time and victim fault latency from the "
          "untraced ones; the regression probes (pf, pflat, fork, mmap) at the default setting.\n"
          % (raw, cases[0]["reps"] if cases else 0),
          "Spread: half the min-max range of the repetitions over the median. Change: against "
          "the unpatched kernel at the same workload; `*`: the change exceeds the spread.\n",
          "## Settings\n", "```\n" + legend() + "```\n",
          "## Side by side\n", "```\n" + text + "```\n",
          "## Histograms\n",
          "How to read them: bench/pcp_example.txt.\n"]
    for c in cases:
        md.append("### %s %s\n" % (c["kernel"], c["setting"]))
        md.append("free_pcppages_bulk() duration, storm tasks:\n\n```\n@bulk_ns:\n" + text_hist(c["_hist"]["bulk_ns"]) + "```\n")
        md.append("pages per call:\n\n```\n@pages:\n" + text_hist(c["_hist"]["pages"]) + "```\n")
        md.append("victim wait for zone->lock:\n\n```\n@victim_wait_ns:\n" + text_hist(c["_hist"]["wait_ns"]) + "```\n")
    for png in made:
        md.append("![%s](%s)\n" % (png, png))
    with open(os.path.join(dirname, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(text)
    print("report: %s/report.md, results.json, %s" % (dirname, ", ".join(made)))
    return 0


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("-"):
        return report(argv[1])
    if len(argv) == 3 and argv[1] == "--table":
        with open(argv[2]) as f:
            print(table(json.load(f)), end="")
        return 0
    if len(argv) == 5 and argv[1] == "--cover":
        return cover(argv[2], argv[3], argv[4])
    print("usage: report.py DIR | --table RESULTS_JSON | --cover RESULTS_JSON TEMPLATE COVER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
