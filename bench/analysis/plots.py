"""plots - the PNGs of report.md (matplotlib; none when it is missing).

bulk_free_hist.png: the bulk free's zone->lock hold per setting;
tradeoff.png: the knob against the fraction, one point per setting: the
  largest refill hold (pages, exact, from the per-hold event) against the
  exit storm's cost under icount (median and range of the runs against the
  default); nothing when the run has no icount storm (a TCG time is no
  cost the tables trust);
victim_wait_by_phase.png: the victim's wait p99 and total per phase.
"""
import os
import sys

import settings
from results import PHASE_ORDER, SCENARIOS

def plots(dirname, cases):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib missing, no plots", file=sys.stderr)
        return []
    made = []
    # the tradeoff plot reads both timings; the others the tcg boots
    all_cases = cases
    cases = [c for c in cases if c.get("timing") == "tcg"]
    waits = phase_wait_plot(plt, dirname, cases)
    if waits:
        made.append(waits)
    cases = [c for c in cases if c["scenario"] == "exit-storm"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    shown = [("base", "def")] + [("patched", s) for s in settings.in_view("hist")]
    for c in sorted((c for c in cases if (c["kernel"], c["setting"]) in shown),
                    key=lambda c: shown.index((c["kernel"], c["setting"]))):
        h = c["_hist"]["bulk_ns"]
        if not h:
            continue
        xs = [b.get("min", 0) or 1 for b in h]
        tot = sum(b["count"] for b in h) or 1
        ax.step(xs, [b["count"] / tot for b in h], where="post",
                color=settings.colour(c["setting"]), linestyle=":" if c["kernel"] == "base" else "-",
                label="%s %s" % (c["kernel"], c["setting"]))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("zone->lock hold of free_pcppages_bulk(), ns (log2 buckets)")
    ax.set_ylabel("fraction of calls")
    ax.set_title("Bulk free zone->lock hold in the exit storm run, per setting")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(dirname, "bulk_free_hist.png"), dpi=110)
    made.append("bulk_free_hist.png")
    plt.close(fig)

    made += knob_vs_fraction_plot(plt, dirname, all_cases)
    return made


def phase_wait_plot(plt, dirname, cases):
    """victim_wait_by_phase.png: the victim's zone->lock wait p99 and total
    per phase, one bar per case, a panel per scenario."""
    scs = [sc for sc in SCENARIOS if any(c["scenario"] == sc and c["victim_lock_wait_by_phase"]
                                         for c in cases)]
    if not scs:
        return None
    fig, axes = plt.subplots(2, len(scs), figsize=(6 * len(scs), 7), squeeze=False)
    for col, sc in enumerate(scs):
        cs = [c for c in cases if c["scenario"] == sc and c["victim_lock_wait_by_phase"]]
        phases = [ph for ph in PHASE_ORDER if any(ph in c["victim_lock_wait_by_phase"] for c in cs)]
        width = 0.8 / len(cs)
        for row, (key, scale, unit) in enumerate((("p99_us", 1, "p99, us"),
                                                  ("total_us", 1e3, "total, ms"))):
            ax = axes[row][col]
            for i, c in enumerate(cs):
                vals = [(c["victim_lock_wait_by_phase"].get(ph, {}).get(key) or 0) / scale
                        for ph in phases]
                ax.bar([x + i * width for x in range(len(phases))], vals, width,
                       label="%s %s" % ("unpatched" if c["kernel"] == "base" else c["kernel"],
                                        c["setting"]))
            ax.set_xticks([x + width * (len(cs) - 1) / 2 for x in range(len(phases))])
            ax.set_xticklabels(phases)
            ax.set_ylabel("victim zone->lock wait " + unit)
            if row == 0:
                ax.set_title("%s (base %s)" % (sc, cs[0]["base"]))
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(dirname, "victim_wait_by_phase.png"), dpi=110)
    plt.close(fig)
    return "victim_wait_by_phase.png"


def knob_vs_fraction_plot(plt, dirname, cases):
    """tradeoff.png: see the module docstring; [] when there is nothing
    trustworthy to draw."""
    def row(kernel, setting, workload, timing):
        for c in cases:
            if (c.get("kernel"), c.get("setting"), c.get("workload"), c.get("timing")) == \
                    (kernel, setting, workload, timing):
                return c
        return None
    ref = row("patched", "def", "exit-storm", "icount")
    if not ref or not (ref.get("storm_ms") or {}).get("runs"):
        print("report.py: no icount exit storm at def, no tradeoff.png", file=sys.stderr)
        return []
    base = sorted(ref["storm_ms"]["runs"])[len(ref["storm_ms"]["runs"]) // 2]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for s in settings.by_bound("tradeoff"):
        cost = row("patched", s, "exit-storm", "icount")
        hold = row("patched", s, "refill", "tcg") or row("patched", s, "exit-storm", "tcg")
        pages = ((hold or {}).get("holds") or {}).get("refill", {}).get("max_pages")
        runs = ((cost or {}).get("storm_ms") or {}).get("runs")
        if not pages or not runs:
            continue
        pct = [100.0 * (r - base) / base for r in runs]
        mid = sorted(pct)[len(pct) // 2]
        ax.errorbar([pages], [mid], yerr=[[mid - min(pct)], [max(pct) - mid]], fmt="o", capsize=3,
                    color=settings.colour(s))
        ax.annotate(s, (pages, mid), textcoords="offset points", xytext=(5, 5), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("largest refill under one zone->lock hold, pages (per-hold event)")
    ax.set_ylabel("exit storm time against the default, % (icount)")
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.set_title("The knob against the fraction: the hold it bounds, the cost")
    fig.tight_layout()
    fig.savefig(os.path.join(dirname, "tradeoff.png"), dpi=110)
    plt.close(fig)
    return ["tradeoff.png"]
