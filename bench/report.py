#!/usr/bin/python3
"""report - turn the raw output of bench/guest-run into build/report/.

Usage: bench/report.py [--smoke] DIR
       bench/report.py --cover RESULTS_JSON TEMPLATE COVER_LETTER

DIR/raw/KERNEL/ holds storm-plain.jsonl, storm-traced.jsonl, bpf.json (bench/pcp.bt
with -f json), plain/LABEL.{alone,window} (victim fault times in ns) and
micro.jsonl.  Writes DIR/results.json (the schema of shared/DESIGN.md),
DIR/report.md and DIR/*.png, and prints the main table.

With --smoke, checks the structural facts instead: in the storm's own bulk
frees, the largest count equals batch << knob (batch read from the guest's
/proc/zoneinfo); exits 1 when one does not hold.

With --cover, fills the git format-patch cover letter from TEMPLATE (first
line: subject; @TABLE@, @MICRO@, @REPS@ replaced from RESULTS_JSON).
"""
import json
import os
import statistics
import sys

SETTINGS = {
    "def": (None, 0), "k0": (0, 0), "k1": (1, 0), "k2": (2, 0), "k3": (3, 0),
    "k4": (4, 0), "k6": (6, 0), "hf-1": (None, -1), "hf-1k0": (0, -1),
    "lb": (None, 0),
}
PATCHED_ORDER = ("def", "k0", "k1", "k2", "k3", "k4", "k6", "hf-1", "hf-1k0", "lb",
                 "def-a", "lb-a")
KCONFIG_DEFAULT = 5


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def bpf_maps(path):
    """The maps bpftrace printed at exit: {map name: {key: value}}."""
    maps = {}
    for rec in jsonl(path):
        if rec.get("type") in ("map", "hist"):
            for name, val in rec["data"].items():
                maps[name] = val
    return maps


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
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(int(x) for x in f if x.strip())


def lat_stats(v):
    if not v:
        return {"samples": 0}
    n = len(v)
    return {"samples": n, "p50_us": v[n // 2] / 1e3, "p99_us": v[n * 99 // 100] / 1e3,
            "p999_us": v[n * 999 // 1000] / 1e3, "max_us": v[-1] / 1e3}


def batch_of(env_path):
    """The largest pcp batch in the guest's /proc/zoneinfo."""
    best = 0
    with open(env_path) as f:
        for line in f:
            if line.strip().startswith("batch:"):
                best = max(best, int(line.split()[1]))
    return best


def case(raw, kernel, label):
    d = os.path.join(raw, kernel)
    maps = bpf_maps(os.path.join(d, "bpf.json"))
    key_s, key_v = "s:" + label, "v:" + label
    bulk = maps.get("@bulk_ns", {}).get(key_s, [])
    pages = maps.get("@pages", {}).get(key_s, [])
    wait = maps.get("@victim_wait_ns", {}).get(key_v, [])
    plain = [r for r in jsonl(os.path.join(d, "storm-plain.jsonl")) if r["label"] == label]
    scale, frac = SETTINGS[label[:-2] if label.endswith("-a") else label]
    if scale is None:
        scale = KCONFIG_DEFAULT
    tp = maps.get("@tp_hold_ns", {}).get(key_s, [])
    runs = [r["storm_ms"] for r in plain]
    sys_ms = [r["storm_sys_ms"] for r in plain]

    def us(x):
        return None if x is None else x / 1e3

    return {
        "kernel": kernel,
        "setting": label,
        "settings": {"pcp_batch_scale_max": scale if kernel == "patched" else None,
                     "percpu_pagelist_high_fraction": frac,
                     "pcp_bulk_lock_break": int(label.startswith("lb")) if kernel == "patched" else None},
        "workload": "exit-storm-alone" if label.endswith("-a") else "exit-storm",
        "reps": len(plain),
        "bulk_free": {
            "calls": sum(b["count"] for b in pages),
            "max_pages": maps.get("@max_pages", {}).get(key_s),
            "p50_us": us(hist_percentile(bulk, 0.50)),
            "p99_us": us(hist_percentile(bulk, 0.99)),
            "max_us": us(maps.get("@bulk_max_ns", {}).get(key_s)),
        },
        "victim": lat_stats(sorted(samples(os.path.join(d, "plain", label + ".window")))),
        "victim_alone": lat_stats(sorted(samples(os.path.join(d, "plain", label + ".alone")))),
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
            out.append({
                "kernel": kernel,
                "settings": {"pcp_batch_scale_max": KCONFIG_DEFAULT if kernel == "patched" else None,
                             "percpu_pagelist_high_fraction": 0},
                "workload": "micro:" + probe, "reps": len(rs),
                "value": {"unit": rs[0]["unit"], "median": statistics.median(vals), "runs": vals},
                "cpu_ms": {"median": statistics.median([r["user_ms"] + r["sys_ms"] for r in rs]),
                           "user_runs": [r["user_ms"] for r in rs],
                           "sys_runs": [r["sys_ms"] for r in rs]},
            })
    return out


def micro_table(mcases, width=False):
    """Unpatched vs patched per probe: median, spread, difference, CPU time."""
    by = {(c["kernel"], c["workload"]): c for c in mcases}
    rows = []
    for probe in ("pf", "pflat", "fork", "mmap"):
        b, p = by.get(("base", "micro:" + probe)), by.get(("patched", "micro:" + probe))
        if not b or not p:
            continue

        def half_spread(c):
            v = c["value"]["runs"]
            return (max(v) - min(v)) / 2 / c["value"]["median"] * 100 if c["value"]["median"] else 0
        bm, pm = b["value"]["median"], p["value"]["median"]
        rows.append((probe, b["value"]["unit"], bm, half_spread(b), pm, half_spread(p),
                     (pm - bm) / bm * 100 if bm else 0, b["cpu_ms"]["median"], p["cpu_ms"]["median"]))
    return rows


def text_hist(buckets, unit):
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


def ratio(x, ref):
    if x is None or not ref:
        return "-"
    return "%.2fx" % (x / ref)


def smoke(dirname):
    raw = os.path.join(dirname, "raw")
    batch = batch_of(os.path.join(raw, "patched", "env.txt"))
    maps = bpf_maps(os.path.join(raw, "patched", "bpf.json"))
    bad = 0
    for label, scale in (("k0", 0), ("k2", 2), ("def", KCONFIG_DEFAULT)):
        got = maps.get("@max_pages", {}).get("s:" + label)
        want = batch << scale
        ok = got == want
        bad += not ok
        print("%s - smoke: largest bulk free of the storm at %s is batch << %d = %d (got %s)"
              % ("ok" if ok else "not ok", label, scale, want, got))
    return 1 if bad else 0


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


def cover(results_path, template_path, cover_path):
    with open(results_path) as f:
        res = json.load(f)
    storms = [c for c in res if c["workload"].startswith("exit-storm")]
    mcases = [c for c in res if c["workload"].startswith("micro:")]
    base = next((c for c in storms if c["kernel"] == "base" and c["workload"] == "exit-storm"), None)
    base_alone = next((c for c in storms if c["kernel"] == "base" and c["workload"] != "exit-storm"), None)
    lines = ["  kernel  setting  max     bulk free  wait p99   wait total  storm ms",
             "                  pages   p99 (us)   (us)       (ms)        (x base)",
             "  ------  -------  -----   ---------  ---------  ----------  --------------"]
    for c in storms:
        b, w = c["bulk_free"], c["victim_lock_wait"]
        lines.append("  %-7s %-8s %5s   %9s  %9s  %10s  %7s (%s)" % (
            c["kernel"], c["setting"], b["max_pages"] if b["max_pages"] is not None else "-",
            fmt(b["p99_us"]), fmt(w["p99_us"]), fmt((w["total_us"] or 0) / 1e3, 1),
            fmt(c["storm_ms"]["median"], 0),
            ratio(c["storm_ms"]["median"],
                  (base_alone if c["workload"] != "exit-storm" else base or {}).get("storm_ms", {}).get("median")
                  if (base_alone if c["workload"] != "exit-storm" else base) else None)))
    mlines = ["  probe  unit      unpatched         patched           diff    CPU ms",
              "  -----  -------   ----------------  ----------------  ------  ---------"]
    for r in micro_table(mcases):
        mlines.append("  %-6s %-8s  %9.1f +-%4.1f%%  %9.1f +-%4.1f%%  %+5.1f%%  %4.0f/%4.0f" % r)
    lb_text = lock_break_verdict(storms)
    with open(template_path) as f:
        subject, _, body = f.read().partition("\n")
    body = body.lstrip("\n")
    body = body.replace("@TABLE@", "\n".join(lines) + "\n")
    body = body.replace("@MICRO@", "\n".join(mlines) + "\n")
    body = body.replace("@REPS@", str(storms[0]["reps"] if storms else 0))
    body = body.replace("@LOCKBREAK@", lb_text)
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


def main(argv):
    if len(argv) == 3 and argv[1] == "--smoke":
        return smoke(argv[2])
    if len(argv) == 5 and argv[1] == "--cover":
        return cover(argv[2], argv[3], argv[4])
    if len(argv) != 2:
        print("usage: report.py [--smoke] DIR", file=sys.stderr)
        return 2
    dirname = argv[1]
    raw = os.path.join(dirname, "raw")
    cases = [case(raw, "base", "def"), case(raw, "base", "def-a")]
    cases += [case(raw, "patched", s) for s in PATCHED_ORDER]
    cases = [c for c in cases if c["reps"]]
    ref = cases[0] if cases and cases[0]["kernel"] == "base" else None

    mcases = micro_cases(raw)
    with open(os.path.join(dirname, "results.json"), "w") as f:
        json.dump([{k: v for k, v in c.items() if not k.startswith("_")} for c in cases] + mcases,
                  f, indent=1)
    made = plots(dirname, cases)

    rows = []
    head = ("| kernel | setting | max pages/call | bulk p50 us | bulk p99 us | tracepoint hold p50 / p99 us, lock breaks "
            "| victim lock-wait n / p99 / max us (total ms) "
            "| victim window p99 / p99.9 / max us | victim alone p99.9 us | storm ms median (x base) | storm sys ms |")
    rows.append(head)
    rows.append("|" + "---|" * (head.count("|") - 1))
    base_alone = next((c for c in cases if c["kernel"] == "base" and c["setting"] == "def-a"), None)
    for c in cases:
        b, w, v, va = c["bulk_free"], c["victim_lock_wait"], c["victim"], c["victim_alone"]
        t = c["tracepoint"]
        cref = base_alone if c["setting"].endswith("-a") else ref
        rows.append("| %s | %s | %s | %s | %s | %s / %s, %s | %d / %s / %s (%s) | %s / %s / %s | %s | %s (%s) | %s |" % (
            c["kernel"], c["setting"], b["max_pages"] if b["max_pages"] is not None else "-",
            fmt(b["p50_us"]), fmt(b["p99_us"]), fmt(t["hold_p50_us"]), fmt(t["hold_p99_us"]),
            t["lock_breaks"] if t["lock_breaks"] is not None else "-",
            w["acquisitions"], fmt(w["p99_us"]), fmt(w["max_us"]),
            fmt((w["total_us"] or 0) / 1e3, 2), fmt(v.get("p99_us")), fmt(v.get("p999_us")), fmt(v.get("max_us")),
            fmt(va.get("p999_us")), fmt(c["storm_ms"]["median"]),
            ratio(c["storm_ms"]["median"], cref["storm_ms"]["median"] if cref else None),
            fmt(c["storm_sys_ms"]["median"])))
    table = "\n".join(rows) + "\n"

    mrows = ["| probe | unit | base median (+- spread) | patched default median (+- spread) | difference | CPU ms base / patched (user+sys) |",
             "|---|---|---|---|---|---|"]
    for r in micro_table(mcases):
        mrows.append("| %s | %s | %.2f (+-%.1f%%) | %.2f (+-%.1f%%) | %+.1f%% | %.0f / %.0f |" % r)
    mtable = "\n".join(mrows) + "\n"

    md = ["# Exit storm: zone->lock hold time vs throughput, per setting\n",
          "Generated by `make` (bench/run) from %s. QEMU TCG guest, 2 vCPUs, 4 GiB; "
          "storm: 4 processes x 256 MiB of 4 KiB pages exiting at once on CPU 0, victim faulting "
          "256 MiB cycles on CPU 1. %d repetitions per setting, interleaved. Kernel-side columns come "
          "from the traced repetitions (bench/pcp.bt; percentiles interpolated in log2 buckets); storm "
          "time and victim fault latency from the untraced ones.\n" % (raw, cases[0]["reps"] if cases else 0),
          "## Side by side\n", table,
          "## Regression probes, default settings\n",
          "Spread is half the min-max range over the repetitions, relative to the median.\n", mtable,
          "## Histograms\n"]
    for c in cases:
        md.append("### %s %s\n" % (c["kernel"], c["setting"]))
        md.append("free_pcppages_bulk() duration, storm tasks:\n\n```\n@bulk_ns:\n" + text_hist(c["_hist"]["bulk_ns"], "ns") + "```\n")
        md.append("pages per call:\n\n```\n@pages:\n" + text_hist(c["_hist"]["pages"], "pages") + "```\n")
        md.append("victim wait for zone->lock:\n\n```\n@victim_wait_ns:\n" + text_hist(c["_hist"]["wait_ns"], "ns") + "```\n")
    for png in made:
        md.append("![%s](%s)\n" % (png, png))
    with open(os.path.join(dirname, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(table)
    print(mtable)
    print("report: %s/report.md, results.json, %s" % (dirname, ", ".join(made)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
