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


def _map(path, data):
    _lines(path, [{"type": "map", "data": data}])


def refill_instruments(d, labels):
    """bench/guest/guest-run's rlat and frag outputs in the boot folder D, for
    LABELS, with figures known to tests/host/test_refill_harm.py: per label
    (i its place) refill calls 6 x [2048, 4096) + 4 x [65536, 131072) ns,
    418000 ns in all (avg 41800), max 120000 + i; holds 99 x [1024, 2048) +
    1 x [32768, 65536) ns, 198500 ns, max 50000 (avg 1.985 us, p99 2.048
    us); cyclictest 2 runs of 990 x 10 us, 9 x 50 us, 1 x (400 - i, 300) us;
    frag: as is 10 holds, 640 pages, 64000 ns (100 ns/page), max 8000 ns,
    extfrag 0 + 0; fragmented 10 holds, 640 pages, 640000 ns (1000
    ns/page), max 200000 ns, extfrag 5000 + 7000; pagetypeinfo before and
    after (order-0 blocks 100 -> 90000)."""
    lat, holds, frag = {}, {}, {}
    os.makedirs(os.path.join(d, "frag"), exist_ok=True)
    for i, label in enumerate(labels):
        st = {"pcp_batch_scale_max": 5 - i}
        _lines(os.path.join(d, "refill-rlat.jsonl"),
               [{"settings": st, "label": label + suf, "storm_ms": 2000.0,
                 "refill_mib_s": 100.0 + i + r} for suf in (".y", ".t") for r in (0, 2)])
        k = "s:%s.t" % label
        _merge(lat, {"@refill_ns": {k: [{"min": 2048, "max": 4095, "count": 6},
                                        {"min": 65536, "max": 131071, "count": 4}]},
                     "@refill_sum_ns": {k: 418000}, "@refills": {k: 10},
                     "@refill_max_ns": {k: 120000 + i}})
        _merge(holds, {"@hold_ns": {k: [{"min": 1024, "max": 2047, "count": 99},
                                        {"min": 32768, "max": 65535, "count": 1}]},
                       "@hold_sum_ns": {k: 198500}, "@holds": {k: 100}, "@hold_max_ns": {k: 50000},
                       "@hold_pages": {k: 6300}, "@hold_max_pages": {k: 63}})
        os.makedirs(os.path.join(d, "rt"), exist_ok=True)
        with open(os.path.join(d, "rt", label + ".y.hist"), "a") as f:
            for mx in (400 - i, 300):
                f.write("# Histogram\n000010 990\n000050 000009\n%06d 000001\n" % mx +
                        "# Total: 000001000\n# Min Latencies: 00003\n# Avg Latencies: 00011\n"
                        "# Max Latencies: %05d\n# Histogram Overflows: 00000\n"
                        "# Histogram Overflow at cycle number:\n# Thread 0:\n" % mx)
        for suf, tot, mx, ext in ((".n", 64000, 8000, (0, 0)), (".f", 640000, 200000, (5000, 7000))):
            k = "s:" + label + suf
            _merge(frag, {"@hold_ns": {k: [{"min": 4096, "max": 8191, "count": 10}]},
                          "@hold_sum_ns": {k: tot}, "@holds": {k: 10}, "@hold_max_ns": {k: mx},
                          "@hold_pages": {k: 640}, "@hold_max_pages": {k: 64}})
            _lines(os.path.join(d, "refill-frag.jsonl"),
                   [{"settings": st, "label": label + suf, "storm_ms": 2000.0,
                     "refill_mib_s": 50.0 + r} for r in (0, 1)])
            with open(os.path.join(d, "frag", label + suf + ".extfrag"), "a") as f:
                for n in ext:
                    f.write("# started on Fri Dec  4 20:00:00 2026\n\n"
                            "%d,,kmem:mm_page_alloc_extfrag,2001234,100.00,,\n" % n)
        for when, o0, mov in (("before", 100, 500000), ("after", 90000, 3000)):
            with open(os.path.join(d, "frag", "%s.pagetypeinfo.%s" % (label, when)), "a") as f:
                for _ in range(2):
                    f.write("=== %s\nPage block order: 9\nPages per block:  512\n\n"
                            "Free pages count per migrate type at order       0      1      2\n"
                            "Node    0, zone    DMA32, type    Unmovable %6d      0      0\n"
                            "Node    0, zone    DMA32, type      Movable      0      0 %6d\n"
                            "\nNumber of blocks type     Unmovable      Movable  Reclaimable\n"
                            "Node 0, zone    DMA32            %d          900            4\n"
                            % (label, o0, mov // 4, 10 if when == "before" else 400))
        with open(os.path.join(d, "frag", label + ".hugepages"), "a") as f:
            f.write("%s asked 1400 got 1390\n%s asked 1400 got 1380\n" % (label, label))
    _map(os.path.join(d, "rlat-lat.json"), lat)
    _map(os.path.join(d, "rlat-hold.json"), holds)
    _map(os.path.join(d, "frag.json"), frag)
