#!/usr/bin/python3
"""report - render the raw output of bench/guest-run as build/$BASE/report/.

Usage: bench/report.py DIR
       bench/report.py --table RESULTS_JSON
       bench/report.py --cover RESULTS_JSON TEMPLATE COVER_LETTER

DIR/raw/KERNEL/ holds storm-{plain,traced}.jsonl and refill-{plain,traced}.jsonl
(one line per run of bench/storm, with "settings": the sysctls the guest
read back; the refill scenario's runs are labelled SETTING.r), paths.json,
paths-tp.json and pcp-tp.json (bench/paths.bt, bench/paths-tp.bt,
bench/pcp-tp.bt, bpftrace -f json; old runs: pcp.json),
{plain,traced}/LABEL.{alone,fault,window,refill} (victim fault times in ns),
env.txt (uname -r on its second line) and micro.jsonl.  DIR/icount/raw/KERNEL/
holds the same from the instruction-counted boots (scripts/vm --icount:
untraced runs and micro.jsonl); their results.json rows say "timing":
"icount", the others "tcg".

Percentiles of the bpftrace histograms (zone->lock holds, victim waits) are
conservative: the upper bound of the log2 bucket that holds the percentile,
capped at the exact maximum; at most 2x the true value, never below it.
Writes DIR/results.json (the schema in the README), DIR/report.md and
DIR/*.png, and prints the comparison table.

The comparison table has one format, rendered once (table()) and reused by
report.md, --table (the README) and --cover: one metric per row, the value,
its spread (half the range of the repetitions over the median, where there
are repetitions), the change against the unpatched kernel at the same
workload, and '*' where that change exceeds the spread of either side.

The regression table (regression_table()) is in the form of mmtests
compare-kernels and LKP: one metric per row, unpatched and patched medians
with their spreads, the change, and '*' where the change exceeds the larger
spread; the trade-off table (tradeoff_table()) gives every setting's cost
with its spread.  Both prefer the icount rows.

With --cover, fills the git format-patch cover letter from TEMPLATE (first
line: subject; @TABLE@ (the exit storm rows), @MICRO@ (the regression
table), @TRADEOFF@, @LEGEND@ (configs/settings), @REPS@ and @CHUNKED@ (refills
by hold: unpatched, def, k0)).
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
        label, _, _, meaning = line.split(None, 3)
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
    return bpf_maps(*(os.path.join(d, f + ".json") for f in ("pcp", "pcp-tp", "paths", "paths-tp")))


PHASES = {"A": "alone", "F": "fault_in", "E": "exit", "R": "refill", "Q": "quiet"}
PHASE_ORDER = ("alone", "fault_in", "exit", "refill", "quiet")
PATHS = ("free", "refill", "drain", "decay", "other")
SCENARIOS = {"exit-storm": ("E", ""), "refill": ("R", ".r")}  # window phase, label suffix


def path_of(fn, ctx):
    """bench/paths.bt's (function that took zone->lock, ctx) as a path."""
    if ctx == "1":
        return "drain"
    if ctx == "2":
        return "decay"
    if fn == "free_pcppages_bulk":
        return "free"
    if fn in ("__rmqueue_pcplist", "rmqueue_bulk"):
        return "refill"
    return "other"


def split_key(key):
    """"E:LABEL,fn,ctx" -> ("exit", "LABEL", ["fn", "ctx"]); None for
    bpftrace's "-:none" (before the first run) and "Q:-" (between runs)."""
    head, *rest = key.split(",")
    letter, _, label = head.partition(":")
    if letter not in PHASES or label in ("", "-"):
        return None
    return PHASES[letter], label, rest


def hist_merge(hists):
    """The sum of bpftrace log2 histograms (lists of {min, max, count})."""
    acc = {}
    for h in hists:
        for b in h:
            k = (b.get("min", 0), b.get("max", 0))
            acc[k] = acc.get(k, 0) + b["count"]
    return [{"min": lo, "max": hi, "count": n} for (lo, hi), n in sorted(acc.items())]


def hist_upper(buckets, q, cap=None):
    """The q-th percentile of a log2 histogram, conservatively: the upper
    bound of the bucket it falls in (at most 2x the true value), capped at
    the exact maximum CAP where known."""
    total = sum(b["count"] for b in buckets)
    if not total:
        return None
    rank, seen = q * total, 0
    for b in buckets:
        seen += b["count"]
        if b["count"] and seen >= rank:
            hi = b.get("max", 0) + 1
            return hi if cap is None else min(hi, cap)
    return cap


def hold_stats(items, count_key="calls"):
    """Pooled statistics of (hist, max_ns, sum_ns) triples, in us."""
    h = hist_merge(i[0] for i in items)
    maxes = [i[1] for i in items if i[1] is not None]
    sums = [i[2] for i in items if i[2] is not None]
    mx = max(maxes) if maxes else None

    def us(x):
        return None if x is None else x / 1e3
    return {count_key: sum(b["count"] for b in h),
            "total_us": us(sum(sums)) if sums else (0.0 if not h else None),
            "p50_us": us(hist_upper(h, 0.50, mx)), "p99_us": us(hist_upper(h, 0.99, mx)),
            "max_us": us(mx)}, h


def tp_max(maps, name, run_label, want):
    """Largest value of paths-tp/paths map NAME over the run's phases, for
    keys whose second part (ctx or order) is WANT; None when absent."""
    vals = [v for k, v in maps.get(name, {}).items()
            if (sk := split_key(k)) and sk[1] == run_label and sk[2][:1] == [want]]
    return max(vals) if vals else None


def base_of(d):
    """The kernel base of a raw folder: uname -r in env.txt (7.3.4 -> 7.3),
    else $BASE, else the build/BASE/ path."""
    try:
        with open(os.path.join(d, "env.txt")) as f:
            rel = f.read().split("\n")[1]
        return ".".join(rel.split("-")[0].split(".")[:2])
    except (OSError, IndexError):
        pass
    if os.environ.get("BASE"):
        return os.environ["BASE"]
    parts = os.path.abspath(d).split(os.sep)
    return parts[parts.index("build") + 1] if "build" in parts[:-1] else None


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


def case(raw, kernel, label, scenario="exit-storm", timing="tcg"):
    """One results.json case: a setting of one kernel in one scenario."""
    d = os.path.join(raw, kernel)
    maps = raw_maps(d)
    window, suffix = SCENARIOS[scenario]
    run = label + suffix
    key_s, key_v = "s:" + run, "v:" + run
    stem = "storm" if scenario == "exit-storm" else "refill"
    plain = [r for r in jsonl(os.path.join(d, stem + "-plain.jsonl")) if r["label"] == run]
    traced = [r for r in jsonl(os.path.join(d, stem + "-traced.jsonl")) if r["label"] == run]
    applied = (plain + traced + [{"settings": {}}])[0]["settings"]
    timed = plain or traced
    sdir = os.path.join(d, "plain" if plain else "traced")
    tp = maps.get("@tp_hold_ns", {}).get(key_s, [])

    def us(x):
        return None if x is None else x / 1e3

    def med(xs):
        return statistics.median(xs) if xs else None

    # zone->lock holds by path, pooled over the run's phases (paths.bt)
    held = {p: [] for p in PATHS}
    held_phase = {}
    for key, h in maps.get("@hold_ns", {}).items():
        sk = split_key(key)
        if not sk or sk[1] != run or len(sk[2]) != 2:
            continue
        item = (h, maps.get("@hold_max_ns", {}).get(key), maps.get("@hold_sum_ns", {}).get(key))
        path = path_of(*sk[2])
        held[path].append(item)
        held_phase.setdefault(sk[0], {}).setdefault(path, []).append(item)
    holds, hold_hists = {}, {}
    for path in PATHS:
        holds[path], hold_hists[path] = hold_stats(held[path])
        holds[path]["max_pages"] = None
        holds[path]["pages_from"] = None
    # pages per transfer: the tracepoints (paths-tp.bt) where the kernel has
    # them, else free_pcppages_bulk()'s count argument (paths.bt)
    for path, ctx in (("free", "0"), ("drain", "1"), ("decay", "2")):
        # asked (the count argument): bounded by the knob; freed (the
        # tracepoint) can overshoot it by a high-order page
        holds[path]["max_pages_asked"] = tp_max(maps, "@free_max_count", run, ctx)
        for name, src in (("@free_max_pages", "tracepoint"), ("@free_max_count", "count")):
            v = tp_max(maps, name, run, ctx)
            if v is not None:
                holds[path]["max_pages"], holds[path]["pages_from"] = v, src
                break
    by_order = {}
    for k, v in maps.get("@refill_max_pages", {}).items():
        sk = split_key(k)
        if sk and sk[1] == run:
            by_order[sk[2][0]] = max(v, by_order.get(sk[2][0], 0))
    # pages and holds per refill (paths-tp.bt; one hold per refill, or one
    # per pcp->batch with patches/0006)
    per_call = {}
    for name, key in (("@refill_call_max_pages", "max_pages_per_refill"),
                      ("@refill_call_sum_pages", "pages_total"), ("@refill_calls", "refills")):
        for k, v in maps.get(name, {}).items():
            sk = split_key(k)
            if sk and sk[1] == run:
                per_call[key] = (max if key.startswith("max") else sum)(
                    [v, per_call.get(key, 0)])
    hs = [h for k, h in maps.get("@refill_call_holds", {}).items()
          if (sk := split_key(k)) and sk[1] == run]
    if hs:
        per_call["max_holds_per_refill"] = hist_upper(hist_merge(hs), 1.0)
    holds["refill"]["per_refill"] = per_call or None
    if by_order:
        holds["refill"]["max_pages"] = by_order.get("0")
        holds["refill"]["max_pages_by_order"] = by_order
        holds["refill"]["pages_from"] = "tracepoint"
    # pages per transfer, as histograms (the tracepoints, else the count)
    page_hists = {}
    for path, want in (("free", "0"), ("drain", "1"), ("decay", "2"), ("refill", "0")):
        names = ("@refill_pages",) if path == "refill" else ("@free_pages", "@free_count")
        for name in names:
            hs = [h for k, h in maps.get(name, {}).items()
                  if (sk := split_key(k)) and sk[1] == run and sk[2][:1] == [want]]
            if hs:
                page_hists[path] = hist_merge(hs)
                break
    holds_by_phase = {ph: {p: hold_stats(items)[0] for p, items in paths.items()}
                      for ph, paths in held_phase.items()}

    # the victim's waits for zone->lock, by phase and by holder (paths.bt)
    waits = {}
    for key, h in maps.get("@wait_ns", {}).items():
        sk = split_key(key)
        if not sk or sk[1] != run or len(sk[2]) != 2:
            continue
        item = (h, maps.get("@wait_max_ns", {}).get(key), maps.get("@wait_sum_ns", {}).get(key))
        waits.setdefault(sk[0], {}).setdefault(path_of(*sk[2]), []).append(item)
    uncontended = {}
    for key, n in maps.get("@victim_uncontended", {}).items():
        sk = split_key(key)
        if sk and sk[1] == run:
            uncontended[sk[0]] = uncontended.get(sk[0], 0) + n
    traced_run = bool(traced) and bool(maps.get("@hold_ns"))
    phases_run = [ph for ph in PHASE_ORDER if ph != {"E": "refill", "R": "exit"}[window]]
    by_phase, wait_hists = {}, {}
    for ph in phases_run:
        items = [i for items in waits.get(ph, {}).values() for i in items]
        if not traced_run:
            continue
        by_phase[ph], wait_hists[ph] = hold_stats(items, "acquisitions")
        by_phase[ph]["uncontended"] = uncontended.get(ph, 0)
    win = PHASES[window]
    by_holder = {p: hold_stats(waits.get(win, {}).get(p, []), "acquisitions")[0]
                 for p in PATHS} if traced_run else {}
    by_phase_holder = {ph: {p: hold_stats(items, "acquisitions")[0] for p, items in hs.items()}
                       for ph, hs in waits.items()}
    all_waits, all_hist = hold_stats([i for hs in waits.values() for items in hs.values()
                                      for i in items], "acquisitions")

    runs = [r["storm_ms"] for r in timed]
    sys_ms = [r["storm_sys_ms"] for r in timed]
    res = {
        "base": base_of(d),
        "timing": timing,
        "kernel": kernel,
        "setting": label,
        "settings": {k: applied.get(k) for k in
                     ("pcp_batch_scale_max", "percpu_pagelist_high_fraction")},
        "scenario": scenario,
        "workload": ("exit-storm-alone" if label.endswith("-a") else "exit-storm")
        if scenario == "exit-storm" else "refill",
        "reps": len(timed),
        "timed_from": "plain" if plain else "traced",
        "holds": holds,
        "holds_by_phase": holds_by_phase,
        "bulk_free": {k: holds["free"][k] for k in ("calls", "max_pages", "p50_us", "p99_us", "max_us")},
        "victim": lat_stats(samples(os.path.join(sdir, run + (".window" if window == "E" else ".refill")))),
        "victim_alone": lat_stats(samples(os.path.join(sdir, run + ".alone"))),
        "victim_fault_in": lat_stats(samples(os.path.join(sdir, run + ".fault"))),
        "victim_lock_wait": {k: all_waits[k] for k in
                             ("acquisitions", "p50_us", "p99_us", "max_us", "total_us")},
        "victim_lock_wait_by_phase": by_phase,
        "victim_lock_wait_by_holder": by_holder,
        "victim_lock_wait_by_phase_holder": by_phase_holder,
        "tracepoint": {
            "calls": maps.get("@tp_calls", {}).get(key_s),
            "hold_p50_us": us(hist_percentile(tp, 0.50)),
            "hold_p99_us": us(hist_percentile(tp, 0.99)),
            "lock_breaks": maps.get("@tp_lock_breaks", {}).get(key_s),
        },
        "storm_ms": {"median": med(runs), "runs": runs},
        "storm_sys_ms": {"median": med(sys_ms), "runs": sys_ms},
        "_hist": {"bulk_ns": hold_hists["free"], "holds": hold_hists, "waits": wait_hists,
                  "pages": page_hists,
                  "wait_ns": all_hist},
    }
    if scenario == "refill":
        mibs = [r["refill_mib_s"] for r in timed if "refill_mib_s" in r]
        res["refill_mib_s"] = {"median": med(mibs), "runs": mibs}
    # the victim's fault times per repetition (bench/storm prints them)
    wname = "victim_window" if window == "E" else "victim_refill"
    for key, src in (("victim_runs", wname), ("victim_fault_in_runs", "victim_fault")):
        per = [r[src] for r in timed if r.get(src, {}).get("samples")]
        if per:
            res[key] = {k: {"median": med([x[k] for x in per]), "runs": [x[k] for x in per]}
                        for k in ("p99_us", "p999_us", "max_us", "sum_ms")}
    return res


def micro_cases(raw, timing="tcg"):
    """One results.json case per (kernel, probe, processes) of the regression
    probes; workload micro:PROBE, or micro:PROBE-xN for N processes."""
    out = []
    for kernel in ("base", "patched"):
        probes = {}
        for r in jsonl(os.path.join(raw, kernel, "micro.jsonl")):
            name = r["probe"] + ("-x%d" % r["procs"] if r.get("procs", 1) > 1 else "")
            probes.setdefault(name, []).append(r)
        for probe, rs in probes.items():
            vals = [r["value"] for r in rs]
            applied = rs[0].get("settings", {})
            out.append({
                "base": base_of(os.path.join(raw, kernel)), "timing": timing,
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


def sweep_cases(raw, timing="icount"):
    """bench/run's icount sweep (guest-run -K): the page-fault probe of the
    patched kernel at every setting -> one case per setting, workload
    micro-sweep:pf."""
    d = os.path.join(raw, "sweep")
    rows = jsonl(os.path.join(d, "micro-sweep.jsonl"))
    out = []
    for label in dict.fromkeys(r["label"] for r in rows):
        rs = [r for r in rows if r["label"] == label]
        vals = [r["value"] for r in rs]
        out.append({
            "base": base_of(d), "timing": timing, "kernel": "patched", "setting": label,
            "settings": rs[0].get("settings", {}), "workload": "micro-sweep:pf", "reps": len(rs),
            "value": {"unit": rs[0]["unit"], "median": statistics.median(vals), "runs": vals},
            "cpu_ms": {"median": statistics.median([r["user_ms"] + r["sys_ms"] for r in rs]),
                       "sys_runs": [r["sys_ms"] for r in rs]},
        })
    return out


def sweep_table(res):
    """page_fault1 (one process) per setting, icount: the knob's cost to the
    CPU that faults in and unmaps, with its spread."""
    cs = [c for c in res if c["workload"] == "micro-sweep:pf"]
    if not cs:
        return "(no page-fault sweep in results.json)\n"
    order = [label for label, _ in settings_table()]
    cs.sort(key=lambda c: (c.get("base") or "", order.index(c["setting"])
                           if c["setting"] in order else 99))
    fmt_row = "%-5s %-7s %5s %5s %10s %9s %9s %8s %s"
    out = [fmt_row % ("base", "setting", "scale", "hfrac", "pages/s", "spread", "sys ms",
                      "change", "")]
    ref = {c.get("base"): c for c in cs if c["setting"] == "def"}
    for c in cs:
        d = ref.get(c.get("base"))
        delta = mark = ""
        if d and c is not d:
            dv = (c["value"]["median"] / d["value"]["median"] - 1) * 100
            delta = "%+.2f%%" % dv
            noise = [x for x in (spread_pct(c["value"]["runs"]), spread_pct(d["value"]["runs"]))
                     if x is not None]
            mark = "*" if noise and abs(dv) > max(noise) else ""
        st = c.get("settings", {})
        out.append((fmt_row % (c.get("base") or "?", c["setting"],
                               st.get("pcp_batch_scale_max"), st.get("percpu_pagelist_high_fraction"),
                               _num(c["value"]["median"]),
                               _sp(c["value"]["runs"]), _num(c["cpu_ms"]["median"]),
                               delta or "-", mark)).rstrip())
    return "\n".join(out) + "\n"


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


def spread_pct(runs):
    """Half the range over the median, in %; None without repetitions."""
    if len(runs) < 2:
        return None
    med = statistics.median(runs)
    return (max(runs) - min(runs)) / 2 / med * 100 if med else None


def _get(*path):
    """A getter of c[path...], None where any step is missing."""
    def get(c):
        for k in path:
            if not isinstance(c, dict) or c.get(k) is None:
                return None
            c = c[k]
        return c
    return get


def _ms(get):
    return lambda c: None if get(c) is None else get(c) / 1e3


def _storm_metrics():
    """(name, scenario, value of a case, its repetitions or None): the rows
    of the comparison, per scenario."""
    m = []
    for sc, short, win in (("exit-storm", "exit", "exit"), ("refill", "refill", "refill")):
        for p in PATHS:
            m.append(("%s: hold p99 us %s" % (short, p), sc, _get("holds", p, "p99_us"), None))
        for p in ("free", "refill", "drain"):
            m.append(("%s: max pages %s" % (short, p), sc, _get("holds", p, "max_pages"), None))
        for ph in ("alone", "fault_in", win, "quiet"):
            m.append(("%s: wait p99 us %s" % (short, ph), sc,
                      _get("victim_lock_wait_by_phase", ph, "p99_us"), None))
            m.append(("%s: wait sum ms %s" % (short, ph), sc,
                      _ms(_get("victim_lock_wait_by_phase", ph, "total_us")), None))
        for p in PATHS:
            m.append(("%s: wait p99 us by %s" % (short, p), sc,
                      _get("victim_lock_wait_by_holder", p, "p99_us"), None))
            m.append(("%s: wait sum ms by %s" % (short, p), sc,
                      _ms(_get("victim_lock_wait_by_holder", p, "total_us")), None))
        m.append(("%s: victim fault p99.9 us" % short, sc, _get("victim", "p999_us"), None))
        if sc == "exit-storm":
            m.append(("exit: storm ms", sc, _get("storm_ms", "median"), _get("storm_ms", "runs")))
        else:
            m.append(("refill: MiB/s", sc, _get("refill_mib_s", "median"),
                      _get("refill_mib_s", "runs")))
    return tuple(m)


STORM_METRICS = _storm_metrics()
# the rows the cover letter quotes (as before the per-path split, + refill)
COVER_METRICS = ("exit: max pages free", "exit: hold p99 us free", "exit: wait p99 us exit",
                 "exit: wait sum ms exit", "exit: wait p99 us by free",
                 "exit: victim fault p99.9 us", "exit: storm ms", "refill: max pages refill",
                 "refill: hold p99 us refill", "refill: wait p99 us refill",
                 "refill: wait sum ms refill", "refill: MiB/s")


def table_rows(res, kind=None):
    """The comparison, one metric of one case per row: (metric, kernel,
    setting, value, spread %, change % against the unpatched kernel at the
    same workload, mark)."""
    # waits and holds come from the real-time (tcg) boots; the probes from
    # the icount ones where there are any
    storms = [c for c in res if c.get("scenario") and c.get("timing", "tcg") == "tcg"
              and kind != "micro"]
    micro = [c for c in res if c["workload"].startswith("micro:") and kind in (None, "micro")]
    mt = "icount" if any(c.get("timing") == "icount" for c in micro) else "tcg"
    micro = [c for c in micro if c.get("timing", "tcg") == mt]
    ref = {c["workload"]: c for c in storms + micro if c["kernel"] == "base"}
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

    for metric, sc, get, get_runs in STORM_METRICS:
        if kind == "cover" and metric not in COVER_METRICS:
            continue
        for c in storms:
            if c["scenario"] != sc:
                continue
            r = ref.get(c["workload"])
            row(metric, c, get(c), get_runs(c) if get_runs else None,
                get(r) if r else None, get_runs(r) if r and get_runs else None, c["setting"])
    for c in micro:
        r = ref.get(c["workload"])
        row("%s %s" % (c["workload"][len("micro:"):], c["value"]["unit"]), c,
            c["value"]["median"], c["value"]["runs"], r["value"]["median"] if r else None,
            r["value"]["runs"] if r else None, "def")
    # a metric that is 0 or absent for every case says nothing: no rows
    keep = {r[0] for r in rows if r[3]}
    return [r for r in rows if r[0] in keep]


def table(res, kind=None):
    """The comparison table as fixed-width text (report.md, README, cover);
    kind "storm" or "micro" keeps those rows only, "cover" the storm rows
    of COVER_METRICS."""
    def num(x):
        if x is None:
            return "-"
        return "%.0f" % x if abs(x) >= 100 or x == int(x) else "%.1f" % x
    fmt_row = "%-30s %-9s %-7s %8s %8s %8s"
    lines = [fmt_row % ("metric", "kernel", "setting", "value", "spread", "change"),
             fmt_row % ("-" * 30, "-" * 9, "-" * 7, "-" * 8, "-" * 8, "-" * 8)]
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


PROBE_NAMES = {"pf": "page_fault1", "pf2": "page_fault2", "pflat": "fault latency",
               "fork": "fork+exit", "mmap": "mmap+munmap", "build": "gcc -c storm.c"}


def preferred_timing(cases):
    return "icount" if any(c.get("timing") == "icount" for c in cases) else "tcg"


def _num(x, nd=None):
    if x is None:
        return "-"
    if nd is not None:
        return "%.*f" % (nd, x)
    if abs(x) >= 100 or x == int(x):
        return "%.0f" % x
    return "%.2f" % x


def _sp(runs):
    sp = spread_pct(runs or [])
    return "-" if sp is None else "+-%.2f%%" % sp


def regression_rows(res):
    """(base, timing, metric, unit, unpatched median, runs, patched median,
    runs) at the default settings, per base, in the preferred timing: the
    probes and the scenarios' cost."""
    rows = []
    for b in sorted({c.get("base") or "?" for c in res}):
        cs = [c for c in res if (c.get("base") or "?") == b]
        t = preferred_timing(cs)
        cs = [c for c in cs if c.get("timing", "tcg") == t]
        by = {(c["kernel"], c["workload"], c.get("setting", "def")): c for c in cs}
        for c in cs:
            if c["kernel"] != "base" or not c["workload"].startswith("micro:"):
                continue
            p = by.get(("patched", c["workload"], "def"))
            probe, _, procs = c["workload"][len("micro:"):].partition("-x")
            name = "%s x%s" % (PROBE_NAMES.get(probe, probe), procs or "1")
            rows.append((b, t, name, c["value"]["unit"], c["value"]["median"], c["value"]["runs"],
                         p["value"]["median"] if p else None, p["value"]["runs"] if p else None))
        for wl, metric, unit, get in (
                ("exit-storm", "exit storm time", "ms", _get("storm_ms")),
                ("exit-storm", "exit storm sys time", "ms", _get("storm_sys_ms")),
                ("refill", "refill load", "MiB/s", _get("refill_mib_s"))):
            c, p = by.get(("base", wl, "def")), by.get(("patched", wl, "def"))
            if c and get(c) and get(c)["median"] is not None:
                rows.append((b, t, metric, unit, get(c)["median"], get(c)["runs"],
                             get(p)["median"] if p and get(p) else None,
                             get(p)["runs"] if p and get(p) else None))
    return rows


def regression_table(res):
    """mmtests compare / LKP form: per base and timing, one metric per row."""
    rows = regression_rows(res)
    if not rows:
        return "(no regression probes in results.json)\n"
    fmt_row = "%-24s %-7s %12s %9s %12s %9s %8s %s"
    out, last = [], None
    worst = {}
    for b, t, name, unit, bv, br, pv, pr in rows:
        if (b, t) != last:
            if last:
                out.append("")
            out.append("base %s, timing %s, default settings (runs: %d)" % (b, t, len(br)))
            out.append((fmt_row % ("metric", "unit", "unpatched", "spread", "patched", "spread",
                                   "change", "")).rstrip())
            last = (b, t)
        delta = mark = None
        if pv is not None and bv:
            delta = (pv - bv) / bv * 100
            noise = [x for x in (spread_pct(br), spread_pct(pr or [])) if x is not None]
            mark = "*" if noise and abs(delta) > max(noise) else ""
            w = worst.setdefault((b, t), [0.0, 0.0])
            w[0] = max(w[0], abs(delta))
            w[1] = max([w[1]] + noise)
        out.append((fmt_row % (name, unit, _num(bv), _sp(br), _num(pv), _sp(pr),
                               "-" if delta is None else "%+.2f%%" % delta, mark or "")).rstrip())
    out.append("")
    for (b, t), (d, sp) in sorted(worst.items()):
        out.append("base %s, %s: largest |change| %.2f%%, largest spread %.2f%%" % (b, t, d, sp))
    return "\n".join(out) + "\n"


def tradeoff_rows(res):
    """Per base, the patched kernel at every setting (+ unpatched def), in
    the preferred timing: (base, timing, kernel, setting, exit-storm case,
    refill case)."""
    rows = []
    order = [label for label, _ in settings_table()]
    for b in sorted({c.get("base") or "?" for c in res}):
        cs = [c for c in res if (c.get("base") or "?") == b and c.get("scenario")
              and not c["setting"].endswith("-a")]
        t = preferred_timing(cs)
        cs = [c for c in cs if c.get("timing", "tcg") == t]
        by = {(c["kernel"], c["setting"], c["scenario"]): c for c in cs}
        for k, s in [("base", "def")] + [("patched", s) for s in order]:
            e, r = by.get((k, s, "exit-storm")), by.get((k, s, "refill"))
            if e or r:
                rows.append((b, t, k, s, e, r))
    return rows


def tradeoff_table(res):
    """Every setting's cost, median and spread: the exit storm's time and
    system time, the refill load's throughput, the victim's fault time p99
    and sum in the exit window, the storm time's change against def.  The
    icount runs have no victim (bench/run: each run alone): there the
    victim's columns come from the same setting's untraced tcg run."""
    rows = tradeoff_rows(res)
    if not rows:
        return "(no scenario runs in results.json)\n"
    tcg = {(c.get("base") or "?", c["kernel"], c["setting"]): c for c in res
           if c.get("scenario") == "exit-storm" and c.get("timing", "tcg") == "tcg"
           and c.get("victim_runs")}

    def mr(get, c):
        v = get(c) if c else None
        if not v or v.get("median") is None:
            return "-", "-"
        return _num(v["median"]), _sp(v.get("runs"))
    fmt_row = "%-9s %-6s %8s %8s %8s %8s %7s %8s %8s %8s %7s"
    out, last, ref = [], None, {}
    for b, t, k, s, e, r in rows:
        if (b, t) != last:
            if last:
                out.append("")
            out.append("base %s, timing %s; change: storm time against patched def%s"
                       % (b, t, "; v. columns: tcg" if t != "tcg" else ""))
            out.append(fmt_row % ("kernel", "setting", "storm ms", "spread", "sys ms", "spread",
                                  "refill", "spread", "v.p99 us", "v.sum ms", "change"))
            out.append(fmt_row % ("", "", "(exit)", "", "(exit)", "", "MiB/s", "", "(exit)",
                                  "(exit)", ""))
            last = (b, t)
            ref = {x[3]: x[4] for x in rows if x[0] == b and x[1] == t and x[2] == "patched"}
        sm, ssp = mr(_get("storm_ms"), e)
        ym, ysp = mr(_get("storm_sys_ms"), e)
        rm, rsp = mr(_get("refill_mib_s"), r)
        v = e if e and e.get("victim_runs") else tcg.get((b, k, s))
        vp, _ = mr(_get("victim_runs", "p99_us"), v)
        vs, _ = mr(_get("victim_runs", "sum_ms"), v)
        d = ref.get("def")
        change = "-"
        if e and d and k == "patched" and d["storm_ms"]["median"] and e["storm_ms"]["median"]:
            change = "%+.2f%%" % ((e["storm_ms"]["median"] / d["storm_ms"]["median"] - 1) * 100)
        out.append(fmt_row % ("unpatched" if k == "base" else k, s, sm, ssp, ym, ysp, rm, rsp,
                              vp, vs, change))
    return "\n".join(out) + "\n"


def cost_table(res):
    """Where a setting's cost goes, from the traced real-time runs: zone->lock
    holds (lock round trips) per path, the time they held it, and the
    largest refill."""
    cs = [c for c in res if c.get("scenario") and c.get("timing", "tcg") == "tcg"
          and c.get("holds") and not c["setting"].endswith("-a")
          and any(h["calls"] for h in c["holds"].values())]
    if not cs:
        return "(no traced runs in results.json)\n"
    fmt_row = "%-9s %-7s %-10s %8s %8s %8s %8s %9s %9s %9s"
    out = [fmt_row % ("kernel", "setting", "scenario", "free", "refill", "drain", "decay",
                      "free ms", "refill ms", "pages/rf"),
           fmt_row % ("", "", "", "holds", "holds", "holds", "holds", "held", "held", "max")]
    order = [label for label, _ in settings_table()]
    cs.sort(key=lambda c: (c.get("base") or "", c["scenario"], c["kernel"] != "base",
                           order.index(c["setting"]) if c["setting"] in order else 99))
    for c in cs:
        h = c["holds"]
        per = (h["refill"].get("per_refill") or {}).get("max_pages_per_refill")
        out.append(fmt_row % ("unpatched" if c["kernel"] == "base" else c["kernel"], c["setting"],
                              c["scenario"], h["free"]["calls"], h["refill"]["calls"],
                              h["drain"]["calls"], h["decay"]["calls"],
                              _num(h["free"]["total_us"] / 1e3, 1),
                              _num(h["refill"]["total_us"] / 1e3, 1), _num(per)))
    return "\n".join(out) + "\n"


def chunked_verdict(res):
    """Refills in pcp->batch sized zone->lock holds (patches/0006 on
    mainline): the unpatched kernel (one hold per refill), the patched one
    at the default and at knob 0 (and setting ck, where the results come
    from the run-time switch of the experiment): the victim's wait tail per
    phase, the largest refill hold and refill, and the cost in the
    preferred timing against the unpatched kernel."""
    tcg = {(c["kernel"], c["setting"], c["scenario"]): c for c in res
           if c.get("scenario") and c.get("timing", "tcg") == "tcg"}
    cols = [(k, s) for k, s in (("base", "def"), ("patched", "def"), ("patched", "k0"),
                                ("patched", "ck"))
            if tcg.get((k, s, "exit-storm"))]
    if ("patched", "def") not in cols:
        return "(no tcg exit-storm run of the patched kernel at def in results.json)"

    def name(k, s):
        return "unpatched" if k == "base" else s
    lines = []
    for sc, ph in (("exit-storm", "fault_in"), ("exit-storm", "exit"), ("refill", "refill")):
        vals = []
        for k, s in cols:
            c = tcg.get((k, s, sc))
            w = (c or {}).get("victim_lock_wait_by_phase", {}).get(ph, {})
            vals.append("%s %s" % (name(k, s), _num(w.get("p99_us"))))
        lines.append("victim zone->lock wait p99 us, %s phase: %s" % (ph, ", ".join(vals)))
    for sc in ("exit-storm", "refill"):
        vals = []
        for k, s in cols:
            c = tcg.get((k, s, sc))
            if c:
                r = c["holds"]["refill"]
                per = r.get("per_refill") or {}
                vals.append("%s: %s holds, max %s pages / %s us (p99 %s us), refill max %s pages"
                            % (name(k, s), _num(r["calls"]), _num(r["max_pages"]),
                               _num(r["max_us"]), _num(r["p99_us"]),
                               _num(per.get("max_pages_per_refill"))))
        lines.append("%s refills: %s" % (sc, "; ".join(vals)))
    t = preferred_timing([c for c in res if c.get("scenario")])
    cost = {(c["kernel"], c["setting"], c["scenario"]): c for c in res
            if c.get("scenario") and c.get("timing", "tcg") == t}
    for sc, get, what in (("exit-storm", _get("storm_ms"), "exit storm ms"),
                          ("refill", _get("refill_mib_s"), "refill MiB/s")):
        ref = cost.get(("base", "def", sc)) or cost.get(("patched", "def", sc))
        if not (ref and get(ref) and get(ref)["median"]):
            continue
        vals = []
        for k, s in cols:
            c = cost.get((k, s, sc))
            if c and get(c):
                vals.append("%s %s %s (%+.2f%%)" % (name(k, s), _num(get(c)["median"]),
                                                   _sp(get(c)["runs"]),
                                                   (get(c)["median"] / get(ref)["median"] - 1) * 100))
        lines.append("%s (%s): %s" % (what, t, ", ".join(vals)))
    return "\n".join(lines)


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
    body = body.replace("@TABLE@", table(res, "cover"))
    body = body.replace("@LEGEND@", legend())
    body = body.replace("@MICRO@", regression_table(res))
    body = body.replace("@TRADEOFF@", sweep_table(res) + "\n" + tradeoff_table(res))
    body = body.replace("@CHUNKED@", chunked_verdict(res))
    body = body.replace("@REPS@", str(storms[0]["reps"] if storms else 0))
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
                                c["setting"], _num(c["storm_ms"]["median"]),
                                _sp(c["storm_ms"]["runs"]), _num(v["p99_us"]["median"]),
                                _num(v["p999_us"]["median"]), _num(v["max_us"]["median"])))
    text = "\n".join(lines) + "\n"
    md = ["# Several CPUs at once (bench/run --multi): base %s\n"
          % " ".join(sorted({c["base"] or "?" for c in res})),
          "One exit storm (2 x 128 MiB) and one victim per pair of vCPUs, all at once; "
          "medians over storms and repetitions, the victim's fault time in its storm's exit "
          "window. Emulated CPUs: under tcg the vCPUs share the host's 2 cores, under icount "
          "they take turns on one thread, so waits are inflated (tcg) or serialized "
          "(icount). A check on the trend of bench/model.py across settings and CPU counts, "
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
    labels = [label for label, _ in settings_table()]
    cases, micro = [], []
    for timing, r in (("tcg", raw), ("icount", os.path.join(dirname, "icount", "raw"))):
        for kernel in ("base", "patched"):
            for label in labels + ["def-a"]:
                for sc in SCENARIOS:
                    if sc == "refill" and label.endswith("-a"):
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
    made = plots(dirname, [c for c in cases if c["timing"] == "tcg"])
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
          "(bench/paths.bt: zone->lock holds by the path that took the lock, the victim's "
          "waits by phase and by the path holding the lock; bench/paths-tp.bt: pages per "
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
          "## Refills by hold (patches/0006)\n",
          "```\n" + chunked_verdict(res) + "\n```\n",
          "## Histograms\n",
          "How to read them: bench/pcp_example.txt. Holds are pooled over the run's phases.\n"]
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
            md.append("## Many CPUs, on paper (bench/model.py)\n")
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
    if len(argv) == 5 and argv[1] == "--cover":
        return cover(argv[2], argv[3], argv[4])
    print("usage: report.py DIR | --table RESULTS_JSON | --cover RESULTS_JSON TEMPLATE COVER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
