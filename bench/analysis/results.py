"""results - read bench/guest/guest-run's raw output into results.json rows.

DIR/raw/KERNEL/ holds storm-{plain,traced}.jsonl and refill-{plain,traced}.jsonl
(one line per run of bench/storm, with "settings": the sysctls the guest
read back; the refill scenario's runs are labelled SETTING.r), paths.json,
paths-tp.json (bench/guest/paths.bt, bench/guest/paths-tp.bt, bpftrace -f json; runs
before 2026-12-02 may have pcp.json and pcp-tp.json, from scripts since
removed),
{plain,traced}/LABEL.{alone,fault,window,refill} (victim fault times in ns),
env.txt (uname -r on its second line) and micro.jsonl.  DIR/icount/raw/KERNEL/
holds the same from the instruction-counted boots (scripts/vm --icount:
untraced runs and micro.jsonl); their rows say "timing": "icount", the
others "tcg".  The row schema: docs/reading-results.md.

case() is one scenario of one setting of one kernel; micro_cases() the
regression probes; sweep_cases() the icount page-fault sweep.
"""
import json
import os
import statistics
import sys

import settings
from stats import hist_merge, hist_percentile, hist_upper, hold_stats, lat_stats


def fail(status, message):
    """MESSAGE on stderr after the program's name; exit STATUS."""
    print("%s: %s" % (os.path.basename(sys.argv[0]), message), file=sys.stderr)
    sys.exit(status)


def need(path, hint="run bench/run first"):
    """PATH, or a one-line error and exit 66 (input missing)."""
    if not os.path.exists(path):
        fail(66, "no such %s %s: %s" % ("file" if os.path.splitext(path)[1] else "folder",
                                         path, hint))
    return path


def dir_arg(argv, name):
    """The one argument, DIR, of program NAME (its usage line and exit 2
    otherwise), which must exist (exit 66)."""
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: %s DIR" % name, file=sys.stderr)
        sys.exit(2)
    return need(argv[1])


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
    """bench/guest/paths.bt's (function that took zone->lock, ctx) as a path."""
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


def samples(path):
    """The sample file's values, sorted."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(int(x) for x in f if x.strip())


def case(raw, kernel, label, scenario="exit-storm", timing="tcg"):
    """One results.json case: a setting of one kernel in one scenario."""
    d = os.path.join(raw, kernel)
    maps = raw_maps(d)
    window, suffix = SCENARIOS[scenario]
    run = label + suffix
    key_s = "s:" + run
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
    # per pcp->batch with docs/experiments/chunked-refill.patch)
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
    # holds per path as the per-hold events count them (paths-tp.bt: one
    # event per hold, where paths.bt's lock probes miss some): tp_calls
    def tp_count(name, want=None):
        hs = [h for k, h in maps.get(name, {}).items()
              if (sk := split_key(k)) and sk[1] == run and (want is None or sk[2][:1] == [want])]
        return sum(b["count"] for h in hs for b in h) if hs else None
    holds["refill"]["tp_calls"] = tp_count("@refill_pages")
    for path, ctx in (("free", "0"), ("drain", "1"), ("decay", "2")):
        holds[path]["tp_calls"] = tp_count("@free_pages", ctx)
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
        "settings": {k: applied.get(k) for k in settings.sysctl_names()},
        "scenario": scenario,
        "workload": ("exit-storm-alone" if settings.alone(label) else "exit-storm")
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
                "settings": {k: applied.get(k) for k in settings.sysctl_names()},
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
