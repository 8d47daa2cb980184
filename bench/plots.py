"""plots - the PNGs of report.md (matplotlib; none when it is missing).

bulk_free_hist.png: the bulk free's zone->lock hold per setting;
tradeoff.png: latency against storm time per knob value;
victim_wait_by_phase.png: the victim's wait p99 and total per phase.
"""
import os
import sys

from results import PHASE_ORDER, SCENARIOS

def plots(dirname, cases):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plots", file=sys.stderr)
        return []
    made = []
    waits = phase_wait_plot(plt, dirname, cases)
    if waits:
        made.append(waits)
    cases = [c for c in cases if c["scenario"] == "exit-storm"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    shown = [("base", "def"), ("patched", "def"), ("patched", "k0"), ("patched", "k2"),
             ("patched", "k6"), ("patched", "hf-1"), ("patched", "hf-1k0"), ("patched", "ck")]
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
    ax.set_xlabel("zone->lock hold of free_pcppages_bulk(), ns (log2 buckets)")
    ax.set_ylabel("fraction of calls")
    ax.set_title("Bulk free zone->lock hold in the exit storm run, per setting")
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
