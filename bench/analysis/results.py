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
    """The JSON lines of PATH ([] without the file); a line that does not
    parse (a run cut short) is skipped and said, not fatal."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if line.strip().startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    print("%s: %s: skipped a line that is not JSON"
                          % (os.path.basename(sys.argv[0]), path), file=sys.stderr)
    return out


# waits.bt's return handler keys its maps by integers (phase number, who):
# back to "PHASE:LABEL[,v|s|-]" with its @phase_name
INT_KEYED = ("@wait_ns", "@wait_sum_ns", "@wait_max_ns", "@wait_fine_us", "@wait_coarse_us",
             "@handler_ns", "@handler_sum_ns", "@handler_first_ns")
WHO_NUM = {"1": "v", "2": "s", "0": "-"}


def named_keys(m, names):
    out = {}
    for key, val in m.items():
        parts = key.split(",")
        parts[0] = names.get(parts[0], parts[0])
        if len(parts) > 1:
            parts[1] = WHO_NUM.get(parts[1], parts[1])
        out[",".join(parts)] = val
    return out


def bpf_maps(*paths):
    """The maps bpftrace printed at exit: {map name: {key: value}}, waits.bt's
    integer keys named."""
    maps = {}
    for path in paths:
        for rec in jsonl(path):
            if rec.get("type") in ("map", "hist", "lhist", "stats"):
                maps.update(rec["data"])
    names = maps.get("@phase_name")
    for m in INT_KEYED if names else ():
        if m in maps:
            maps[m] = named_keys(maps[m], names)
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


def us(x):
    return None if x is None else x / 1e3


def med(xs):
    return statistics.median(xs) if xs else None


def entries(maps, name, run, want=None):
    """(phase, [fn, ctx] or [order...], value) of paths(-tp).bt map NAME's
    keys of RUN; WANT: the first of those parts must be it."""
    for key, v in maps.get(name, {}).items():
        sk = split_key(key)
        if sk and sk[1] == run and (want is None or sk[2][:1] == [want]):
            yield sk[0], sk[2], v, key


def triples(maps, stem, run):
    """(phase, path, (hist, max_ns, sum_ns)) of @STEM_ns's per-path keys."""
    for phase, rest, h, key in entries(maps, "@%s_ns" % stem, run):
        if len(rest) == 2:
            yield phase, path_of(*rest), (h, maps.get("@%s_max_ns" % stem, {}).get(key),
                                          maps.get("@%s_sum_ns" % stem, {}).get(key))


def lock_holds(maps, run):
    """zone->lock holds by path pooled over the run's phases (paths.bt), the
    path's histograms, and the holds by phase."""
    held, held_phase = {p: [] for p in PATHS}, {}
    for phase, path, item in triples(maps, "hold", run):
        held[path].append(item)
        held_phase.setdefault(phase, {}).setdefault(path, []).append(item)
    holds, hists = {}, {}
    for path in PATHS:
        holds[path], hists[path] = hold_stats(held[path])
        holds[path].update(max_pages=None, pages_from=None, avg_us=avg_us(holds[path]))
    by_phase = {ph: {p: with_avg(hold_stats(items)[0]) for p, items in paths.items()}
                for ph, paths in held_phase.items()}
    return holds, hists, by_phase


def avg_us(h):
    """A holds object's mean hold: total_us over calls; None without."""
    n, tot = h.get("calls"), h.get("total_us")
    return tot / n if n and tot is not None else None


def with_avg(h):
    h["avg_us"] = avg_us(h)
    return h


def pages_per_free(maps, run, holds):
    """Pages per transfer of the free paths: the tracepoints (paths-tp.bt)
    where the kernel has them, else free_pcppages_bulk()'s count argument
    (paths.bt).  Asked (the count) is bounded by the knob; freed (the
    tracepoint) can overshoot it by a high-order page."""
    for path, ctx in (("free", "0"), ("drain", "1"), ("decay", "2")):
        holds[path]["max_pages_asked"] = tp_max(maps, "@free_max_count", run, ctx)
        for name, src in (("@free_max_pages", "tracepoint"), ("@free_max_count", "count")):
            v = tp_max(maps, name, run, ctx)
            if v is not None:
                holds[path]["max_pages"], holds[path]["pages_from"] = v, src
                break


def per_refill(maps, run):
    """Pages and holds per refill (paths-tp.bt; one hold per refill, or one
    per pcp->batch with docs/experiments/chunked-refill.patch); None
    without."""
    out = {}
    for name, key in (("@refill_call_max_pages", "max_pages_per_refill"),
                      ("@refill_call_sum_pages", "pages_total"), ("@refill_calls", "refills")):
        for _, _, v, _ in entries(maps, name, run):
            out[key] = (max if key.startswith("max") else sum)([v, out.get(key, 0)])
    hs = [h for _, _, h, _ in entries(maps, "@refill_call_holds", run)]
    if hs:
        out["max_holds_per_refill"] = hist_upper(hist_merge(hs), 1.0)
    return out or None


def tp_count(maps, name, run, want=None):
    """Holds as the per-hold events count them (paths-tp.bt: one event per
    hold, where paths.bt's lock probes miss some); None without."""
    hs = [h for _, _, h, _ in entries(maps, name, run, want)]
    return sum(b["count"] for h in hs for b in h) if hs else None


def refill_holds(maps, run, holds):
    """The refill path's per-refill figures, the holds' event counts, and
    the largest refill by order."""
    holds["refill"]["per_refill"] = per_refill(maps, run)
    holds["refill"]["tp_calls"] = tp_count(maps, "@refill_pages", run)
    for path, ctx in (("free", "0"), ("drain", "1"), ("decay", "2")):
        holds[path]["tp_calls"] = tp_count(maps, "@free_pages", run, ctx)
    by_order = {}
    for _, rest, v, _ in entries(maps, "@refill_max_pages", run):
        by_order[rest[0]] = max(v, by_order.get(rest[0], 0))
    if by_order:
        holds["refill"].update(max_pages=by_order.get("0"), max_pages_by_order=by_order,
                               pages_from="tracepoint")


def page_hists(maps, run):
    """Pages per transfer as histograms, per path (the tracepoints, else the
    count)."""
    out = {}
    for path, want in (("free", "0"), ("drain", "1"), ("decay", "2"), ("refill", "0")):
        names = ("@refill_pages",) if path == "refill" else ("@free_pages", "@free_count")
        for name in names:
            hs = [h for _, _, h, _ in entries(maps, name, run, want)]
            if hs:
                out[path] = hist_merge(hs)
                break
    return out


def victim_waits(maps, run, window, traced_run):
    """The victim's waits for zone->lock (paths.bt): by phase (with their
    histograms), by holder in the scenario's window, by phase and holder,
    and pooled (with its histogram)."""
    waits = {}
    for phase, path, item in triples(maps, "wait", run):
        waits.setdefault(phase, {}).setdefault(path, []).append(item)
    uncontended = {}
    for phase, _, n, _ in entries(maps, "@victim_uncontended", run):
        uncontended[phase] = uncontended.get(phase, 0) + n
    by_phase, hists = {}, {}
    for ph in PHASE_ORDER:
        if not traced_run or ph == {"E": "refill", "R": "exit"}[window]:
            continue
        items = [i for items in waits.get(ph, {}).values() for i in items]
        by_phase[ph], hists[ph] = hold_stats(items, "acquisitions")
        by_phase[ph]["uncontended"] = uncontended.get(ph, 0)
    by_holder = {p: hold_stats(waits.get(PHASES[window], {}).get(p, []), "acquisitions")[0]
                 for p in PATHS} if traced_run else {}
    by_phase_holder = {ph: {p: hold_stats(items, "acquisitions")[0] for p, items in hs.items()}
                       for ph, hs in waits.items()}
    pooled, hist = hold_stats([i for hs in waits.values() for items in hs.values()
                               for i in items], "acquisitions")
    return by_phase, hists, by_holder, by_phase_holder, pooled, hist


def victim_faults(sdir, run, window):
    """The victim's fault times (bench/storm's sample files): in the
    scenario's window, alone before it, while the storm faults in."""
    return {"victim": lat_stats(samples(os.path.join(
                sdir, run + (".window" if window == "E" else ".refill")))),
            "victim_alone": lat_stats(samples(os.path.join(sdir, run + ".alone"))),
            "victim_fault_in": lat_stats(samples(os.path.join(sdir, run + ".fault")))}


def tracepoint(maps, run):
    """The series' per-hold event's figures of the run (bench/storm -T)."""
    key = "s:" + run
    tp = maps.get("@tp_hold_ns", {}).get(key, [])
    return {"calls": maps.get("@tp_calls", {}).get(key),
            "hold_p50_us": us(hist_percentile(tp, 0.50)),
            "hold_p99_us": us(hist_percentile(tp, 0.99)),
            "lock_breaks": maps.get("@tp_lock_breaks", {}).get(key)}


def storm_times(timed, scenario):
    """The storm's time and system time per repetition, and the refill
    load's throughput."""
    runs = [r["storm_ms"] for r in timed]
    sys_ms = [r["storm_sys_ms"] for r in timed]
    out = {"storm_ms": {"median": med(runs), "runs": runs},
           "storm_sys_ms": {"median": med(sys_ms), "runs": sys_ms}}
    if scenario == "refill":
        mibs = [r["refill_mib_s"] for r in timed if "refill_mib_s" in r]
        out["refill_mib_s"] = {"median": med(mibs), "runs": mibs}
    return out


def victim_per_run(timed, window):
    """The victim's fault times per repetition (bench/storm prints them)."""
    out = {}
    wname = "victim_window" if window == "E" else "victim_refill"
    for key, src in (("victim_runs", wname), ("victim_fault_in_runs", "victim_fault")):
        per = [r[src] for r in timed if r.get(src, {}).get("samples")]
        if per:
            out[key] = {k: {"median": med([x[k] for x in per]), "runs": [x[k] for x in per]}
                        for k in ("p99_us", "p999_us", "max_us", "sum_ms")}
    return out


def case(raw, kernel, label, scenario="exit-storm", timing="tcg"):
    """One results.json case: a setting of one kernel in one scenario."""
    d = os.path.join(raw, kernel)
    maps = raw_maps(d)
    window, suffix = SCENARIOS[scenario]
    run = label + suffix
    stem = "storm" if scenario == "exit-storm" else "refill"
    plain = [r for r in jsonl(os.path.join(d, stem + "-plain.jsonl")) if r["label"] == run]
    traced = [r for r in jsonl(os.path.join(d, stem + "-traced.jsonl")) if r["label"] == run]
    applied = (plain + traced + [{"settings": {}}])[0]["settings"]
    timed = plain or traced
    holds, hold_hists, holds_by_phase = lock_holds(maps, run)
    pages_per_free(maps, run, holds)
    refill_holds(maps, run, holds)
    by_phase, wait_hists, by_holder, by_phase_holder, waits, wait_hist = victim_waits(
        maps, run, window, bool(traced) and bool(maps.get("@hold_ns")))
    times = storm_times(timed, scenario)
    return dict({
        "base": base_of(d), "timing": timing, "kernel": kernel, "setting": label,
        "settings": {k: applied.get(k) for k in settings.sysctl_names()},
        "scenario": scenario,
        "workload": ("exit-storm-alone" if settings.alone(label) else "exit-storm")
        if scenario == "exit-storm" else "refill",
        "reps": len(timed), "timed_from": "plain" if plain else "traced",
        "holds": holds, "holds_by_phase": holds_by_phase,
        "bulk_free": {k: holds["free"][k] for k in ("calls", "max_pages", "p50_us", "p99_us", "max_us",
                                                    "avg_us")},
    }, **victim_faults(os.path.join(d, "plain" if plain else "traced"), run, window), **{
        "victim_lock_wait": {k: waits[k] for k in
                             ("acquisitions", "p50_us", "p99_us", "max_us", "total_us")},
        "victim_lock_wait_by_phase": by_phase,
        "victim_lock_wait_by_holder": by_holder,
        "victim_lock_wait_by_phase_holder": by_phase_holder,
        "tracepoint": tracepoint(maps, run),
        "storm_ms": times.pop("storm_ms"), "storm_sys_ms": times.pop("storm_sys_ms"),
        "_hist": {"bulk_ns": hold_hists["free"], "holds": hold_hists, "waits": wait_hists,
                  "pages": page_hists(maps, run), "wait_ns": wait_hist},
    }, **times, **victim_per_run(timed, window))


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
