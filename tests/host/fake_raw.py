"""fake_raw - a made-up bench output folder (DIR/raw/, DIR/icount/raw/) in
bench/guest/guest-run's shapes, for the host tests of the analysis.

write(DIR, {KERNEL: [LABEL, ...]}) writes, per kernel and label: the exit
storm and the refill load (plain and traced runs, bench/guest/paths.bt's
maps, the victim's samples), waits.bt's and the pcp sampler's phases, and
per kernel the regression probes and the workloads; under icount the
untraced runs, the probes and the page-fault sweep.  The figures grow
with a label's place in LABELS so that each differs, repeatably.
"""
import json
import os

HIST = [{"min": 1024, "max": 2047, "count": 3}, {"min": 65536, "max": 131071, "count": 1}]


def _lines(path, recs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)


def _victim(i):
    return {"samples": 100, "p50_us": 2.0 + i, "p99_us": 40.0 + i, "p999_us": 90.0 + i,
            "max_us": 300.0 + 10 * i, "sum_ms": 5.0 + i}


def _runs(label, i, k, run, reps=3):
    return [{"label": run, "settings": {"pcp_batch_scale_max": 5 - i % 6,
                                        "percpu_pagelist_high_fraction": 0},
             "storm_ms": 100.0 + 7 * i + k + r, "storm_sys_ms": 50.0 + i + r,
             "refill_mib_s": 900.0 - 3 * i + r,
             "victim_window": _victim(i + r), "victim_refill": _victim(i + r + 1),
             "victim_fault": _victim(i), "victim_period_us": 500} for r in range(reps)]


def _maps(run, letter, i, k):
    f = 1 + i + k
    hist = [{"min": 1024 * f, "max": 2048 * f - 1, "count": 5}]
    keys = {"%s:%s,%s" % (letter, run, fn): ctx for fn, ctx in
            (("free_pcppages_bulk,0", 0), ("__rmqueue_pcplist,0", 0), ("drain_pages_zone,1", 1))}
    return {"@hold_ns": {key: hist for key in keys},
            "@hold_max_ns": {key: 2048 * f for key in keys},
            "@hold_sum_ns": {key: 5000 * f for key in keys},
            "@wait_ns": {key: hist for key in keys},
            "@wait_max_ns": {key: 2000 * f for key in keys},
            "@wait_sum_ns": {key: 4000 * f for key in keys},
            "@free_max_pages": {"%s:%s,0" % (letter, run): 63 * f},
            "@free_max_count": {"%s:%s,1" % (letter, run): 62 * f},
            "@free_pages": {"%s:%s,0" % (letter, run): hist},
            "@free_count": {"%s:%s,1" % (letter, run): hist},
            "@refill_pages": {"%s:%s,0" % (letter, run): hist, "Q:%s,0" % run: hist},
            "@refill_call_max_pages": {"%s:%s,0" % (letter, run): 65 * f},
            "@refill_call_sum_pages": {"%s:%s,0" % (letter, run): 650 * f, "Q:%s,0" % run: 9},
            "@refill_calls": {"%s:%s,0" % (letter, run): 10 * f},
            "@refill_call_holds": {"%s:%s,0" % (letter, run): [{"min": 1, "max": 1, "count": 4}]},
            "@victim_uncontended": {"%s:%s" % (letter, run): 7 * f, "A:%s" % run: 2},
            "@tp_hold_ns": {"s:" + run: hist}, "@tp_calls": {"s:" + run: 5 * f},
            "@tp_lock_breaks": {"s:" + run: f},
            "@refill_max_pages": {"%s:%s,0" % (letter, run): 64 * f, "%s:%s,3" % (letter, run): 8}}


def _waits_maps(run, letter, i):
    keys = ["%s:%s,%s" % (letter, run, who) for who in ("v", "s", "-")]
    fine = [{"min": 5 * (i + 1), "max": 5 * (i + 2) - 1, "count": 4}]
    return {"@wait_ns": {k: HIST for k in keys}, "@wait_sum_ns": {k: 9000 + i for k in keys},
            "@wait_max_ns": {k: 70000 + i for k in keys}, "@wait_fine_us": {k: fine for k in keys},
            "@hwait_ns": {"%s:%s,v,refill" % (letter, run): HIST},
            "@hwait_sum_ns": {"%s:%s,v,refill" % (letter, run): 3000},
            "@hwait_max_ns": {"%s:%s,v,refill" % (letter, run): 2000},
            "@holds": {"%s:%s,free" % (letter, run): 4 + i},
            "@hold_sum_ns": {"%s:%s,free" % (letter, run): 1000 * (i + 1)},
            "@hold_max_ns": {"%s:%s,free" % (letter, run): 500 * (i + 1)}}


def _merge(into, maps):
    for name, m in maps.items():
        into.setdefault(name, {}).update(m)


def _kernel(d, kernel, labels, k, icount):
    with open(os.path.join(_mk(d), "env.txt"), "w") as f:
        f.write("fake\n7.3.4-fake\n")
    paths, waits = {}, {}
    for i, label in enumerate(labels):
        for stem, letter, run in (("storm", "E", label), ("refill", "R", label + ".r")):
            if stem == "refill" and label.endswith("-a"):
                continue
            _lines(os.path.join(d, stem + "-plain.jsonl"), _runs(label, i, k, run))
            for r, name in enumerate((".window", ".refill", ".alone", ".fault")):
                _samples(os.path.join(d, "plain", run + name), i + r)
            if icount:
                continue
            _lines(os.path.join(d, stem + "-traced.jsonl"), _runs(label, i, k, run, 2))
            _merge(paths, _maps(run, letter, i, k))
            _lines(os.path.join(d, stem + "-waits.jsonl"), _runs(label, i, k, run, 2))
            _merge(waits, _waits_maps(run, letter, i))
            _lines(os.path.join(d, stem + "-pcp.jsonl"), _runs(label, i, k, run, 2))
            _lines(os.path.join(d, "pcp", "pcp.jsonl"),
                   [{"label": run, "samples": 10, "mean_pages": 100 + i + r,
                     "max_pages": 200 + i, "high_pages": 300} for r in range(2)])
    if paths:
        _lines(os.path.join(d, "paths.json"), [{"type": "map", "data": paths}])
        _lines(os.path.join(d, "waits.json"), [{"type": "map", "data": waits}])
    _lines(os.path.join(d, "micro.jsonl"),
           [{"probe": p, "procs": n, "unit": "pages/s", "value": 1000.0 + 10 * k + r,
             "user_ms": 10.0, "sys_ms": 20.0 + r, "settings": {"pcp_batch_scale_max": 5}}
            for p, n in (("pf", 1), ("pf", 2), ("fork", 1)) for r in range(3)])
    _lines(os.path.join(d, "workloads.jsonl"),
           [{"label": label, "probe": "anon-w-seq", "procs": 1, "unit": "s",
             "value": 2.0 + 0.1 * i + 0.05 * k + 0.01 * r, "user_ms": 5.0, "sys_ms": 6.0,
             "extfrag": 3 + r, "settings": {}} for i, label in enumerate(labels[:3])
            for r in range(3)])


def _mk(d):
    os.makedirs(d, exist_ok=True)
    return d


def _samples(path, i):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.writelines("%d\n" % (1000 * (j % 97 + 1) * (i + 1)) for j in range(200))


def write(out, kernels):
    """Made-up raw output of every kernel in KERNELS ({kernel: [labels]})."""
    for k, (kernel, labels) in enumerate(sorted(kernels.items())):
        _kernel(os.path.join(out, "raw", kernel), kernel, labels, k, False)
        _kernel(os.path.join(out, "icount", "raw", kernel), kernel, labels, k, True)
    patched = [s for s in kernels.get("patched", []) if not s.endswith("-a")]
    _lines(os.path.join(out, "icount", "raw", "sweep", "micro-sweep.jsonl"),
           [{"label": label, "unit": "pages/s", "value": 5000.0 - 10 * i + r, "user_ms": 1.0,
             "sys_ms": 2.0, "settings": {"pcp_batch_scale_max": 5 - i % 6}}
            for i, label in enumerate(patched) for r in range(3)])
    with open(os.path.join(out, "icount", "raw", "sweep", "env.txt"), "w") as f:
        f.write("fake\n7.3.4-fake\n")
