#!/usr/bin/python3
"""test_paths_table - the zone->lock bulk paths table and the cost table
(bench/analysis/paths_table.py; tests/run -t paths-table-host).

Made-up raw output (tests/host/fake_raw.py) plus paths-tp.bt's and
waits.bt's per-run maps whose answers are known, through
bench/analysis/report.py, the one writer of results.json: a hold at the
bound counts as at the bound, holds between runs ("Q:-") do not count,
pages per hold p50/p99/max, avg_us (the sum over the holds), the log2
p99 capped at the exact maximum, holds per MiB, and each run's wait p99
and maximum with their spread.  KTAP output.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_raw  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "analysis"))
import paths_table  # noqa: E402
from ktap import Ktap  # noqa: E402

K = Ktap()
result = K.result


def b(lo, hi, n):
    return {"min": lo, "max": hi, "count": n}


# def: knob 5 (fake_raw's first label), batch 63: the refill bound is 2016.
# Refill holds, order 0: 2 of 7 pages or less, 6 of 63, 1 of 1000, 3 of
# 2016 (at the bound); one more of 2016 between runs, not def's.
TP = {
    "@refill_pages": {"E:def,0": [b(4, 7, 2), b(32, 63, 6), b(1024, 2047, 3)],
                      "R:def.r,0": [b(512, 1023, 1)], "Q:-,0": [b(1024, 2047, 1)]},
    "@refill_n_pages": {"E:def,0,63": 6, "E:def,0,2016": 3, "R:def.r,0,1000": 1,
                        "Q:-,0,2016": 1},
    "@refill_max_pages": {"E:def,0": 2016, "R:def.r,0": 1000, "Q:-,0": 2016},
    "@refill_sum_pages": {"E:def,0": 6440, "R:def.r,0": 1000, "Q:-,0": 2016},
    "@refill_tp_hold_ns": {"E:def,0": [b(1024, 2047, 10)], "R:def.r,0": [b(16384, 32767, 2)],
                           "Q:-,0": [b(65536, 131071, 1)]},
    "@refill_sum_ns": {"E:def,0": 60000, "R:def.r,0": 12000, "Q:-,0": 99000},
    "@refill_max_ns": {"E:def,0": 1900, "R:def.r,0": 30000, "Q:-,0": 99000},
    # the free path (ctx 0): 4 holds of 63 pages in the exit window
    "@free_pages": {"E:def,0": [b(32, 63, 4)]},
    "@free_n_pages": {"E:def,0,63": 4},
    "@free_max_pages": {"E:def,0": 63},
    "@free_sum_pages": {"E:def,0": 252},
    "@free_tp_hold_ns": {"E:def,0": [b(512, 1023, 4)]},
    "@free_sum_ns": {"E:def,0": 3000},
    "@free_max_ns": {"E:def,0": 900},
    # free_one_page(): two order-10 calls, one order-9
    "@hifree_call_ns": {"E:def,10": [b(2048, 4095, 2)], "E:def,9": [b(1024, 2047, 1)]},
    "@hifree_sum_ns": {"E:def,10": 6000, "E:def,9": 1500},
    "@hifree_max_ns": {"E:def,10": 3500, "E:def,9": 1500},
}
# waits.bt: phase 1 is E:def; run 1's 100 waits have p99 10 us (5 us
# steps: [5, 9] -> 10) and max 50 us, run 2's 11 waits p99 = max = 2000 us
WAITS = {
    "@phase_name": {"0": "-:none", "1": "E:def", "2": "R:def.r"},
    "@wait_run_max_ns": {"1,1": 50000, "1,2": 2000000},
    "@wait_run_fine_us": {"1,1": [b(5, 9, 99), b(45, 49, 1)], "1,2": [b(10, 14, 10)]},
    "@wait_run_coarse_us": {"1,2": [b(2000, 2499, 1)]},
}


def write_raw(out):
    fake_raw.write(out, {"base": ["def"], "patched": ["def", "k1", "k0"]})
    d = os.path.join(out, "raw", "patched")
    with open(os.path.join(d, "env.txt"), "w") as f:
        f.write("fake\n7.3.4-fake\nNode 0, zone    DMA32\n              batch:    63\n")
    with open(os.path.join(d, "paths-tp.json"), "w") as f:
        f.write(json.dumps({"type": "map", "data": TP}) + "\n")
    with open(os.path.join(d, "waits.json"), "a") as f:
        f.write(json.dumps({"type": "map", "data": WAITS}) + "\n")
    # a third exit-storm run at def, without a wait: counts 0
    with open(os.path.join(d, "storm-waits.jsonl")) as f:
        first = next(json.loads(x) for x in f if json.loads(x).get("label") == "def")
    with open(os.path.join(d, "storm-waits.jsonl"), "a") as f:
        f.write(json.dumps(first) + "\n")


def near(a, x):
    return a is not None and abs(a - x) < 1e-6


def main():
    work = tempfile.mkdtemp(prefix="paths-table.")
    try:
        write_raw(work)
        p = subprocess.run(["/usr/bin/python3", os.path.join(TOP, "bench", "analysis", "report.py"),
                            work], capture_output=True, text=True)
        result(p.returncode == 0, "report.py analyses the made-up raw output",
               p.stdout[-1500:] + p.stderr[-1500:])
        if p.returncode:
            return K.finish()
        with open(os.path.join(work, "results.json")) as f:
            rows = json.load(f)
        with open(os.path.join(work, "report.md")) as f:
            md = f.read()
        get = {(r["setting"], r.get("path") or "cost:" + r.get("scenario", "")): r for r in rows
               if r.get("workload") in ("zone-lock-paths", "zone-lock-cost")}
        ref = get.get(("def", "refill"), {})
        pg = ref.get("pages_per_hold") or {}
        result(ref.get("bound_pages") == 2016 and ref.get("holds") == 12,
               "refill at def: bound batch << 5 = 2016, 12 holds (not the one between runs)",
               json.dumps(ref)[:600])
        result(ref.get("at_bound") == 3 and ref.get("ge_1000_pages") == 4,
               "refill at def: the 3 holds of 2016 pages are at the bound, 4 of 1000 or more",
               json.dumps(ref)[:600])
        result((pg.get("p50"), pg.get("p99"), pg.get("max")) == (63, 2016, 2016),
               "refill at def: pages per hold p50 63, p99 2016, max 2016", json.dumps(pg))
        h = ref.get("hold_us") or {}
        result(near(h.get("avg_us"), 6.0) and near(h.get("max_us"), 30.0) and
               near(h.get("p99_us"), 30.0),
               "refill at def: avg_us 72 us / 12 holds = 6, max 30, log2 p99 capped at it",
               json.dumps(h))
        free = get.get(("def", "free"), {})
        result(free.get("at_bound") == 4 and near((free.get("hold_us") or {}).get("avg_us"), 0.75),
               "free path at def: 4 holds of one batch at the bound, avg 0.75 us",
               json.dumps(free)[:600])
        hi = get.get(("def", "high-order"), {})
        result(hi.get("holds") == 3 and hi.get("at_bound") == 2 and
               (hi.get("pages_per_hold") or {}).get("max") == 1024 and
               near((hi.get("hold_us") or {}).get("avg_us"), 2.5),
               "free_one_page at def: 3 calls, 2 of order 10 at 1024 pages, avg 2.5 us",
               json.dumps(hi)[:600])
        c = get.get(("def", "cost:exit-storm"), {})
        hpm = (c.get("holds_per_mib") or {}).get("all")
        result(near(hpm, 15 / (6692 * 4096 / 2 ** 20)),
               "exit window at def: 15 holds over 6692 pages = %.4f holds/MiB" %
               (15 / (6692 * 4096 / 2 ** 20)), json.dumps(c.get("holds_per_mib")))
        p99, mx = c.get("wait_p99_us") or {}, c.get("wait_max_us") or {}
        result(p99.get("runs") == [10, 2000] and p99.get("n") == 2 and
               near(p99.get("median"), 1005) and mx.get("runs") == [50, 2000] and
               mx.get("min") == 50 and mx.get("max") == 2000,
               "exit window at def: each run's wait p99 (10, 2000 us) and max (50, 2000 us),"
               " median and min-max, not pooled", json.dumps([p99, mx]))
        wc, reps = c.get("wait_count") or {}, c.get("wait_runs")
        want = sorted([100, 11] + [0] * ((reps or 0) - 2))
        result(reps and reps >= 2 and sorted(wc.get("runs") or []) == want and
               wc.get("n") == reps and wc.get("max") == 100 and
               wc.get("min") == (0 if reps > 2 else 11),
               "exit window at def: waits per run (100, 11, and 0 for each of the other %s"
               " runs), not the pooled count" % ((reps or 2) - 2), json.dumps([wc, reps]))
        result("11 [0-100]" in md, "report.md prints the per-run wait count spread",
               md[md.find("waits/run"):][:400])
        result(all(r.get("provenance") is not None for r in get.values()),
               "every new row has its provenance", "")
        result("## zone->lock bulk paths on 7.3" in md and "at most one waiter" in md,
               "report.md has both tables, and says what 2 vCPUs cannot show", "")
        # guest-run gives a later round of a phase a phase id of its own,
        # whose runs count from 1 again: both rounds' run 1 are runs
        two = {"@phase_name": {"1": "E:def", "5": "E:def", "6": "E:k1"},
               "@wait_run_max_ns": {"1,1": 40000, "5,1": 30000, "6,1": 9000},
               "@wait_run_fine_us": {"1,1": [b(5, 9, 4)], "5,1": [b(5, 9, 7)],
                                     "6,1": [b(5, 9, 2)]}}
        pr = paths_table.per_run_waits(two, "def", "", "E")
        result(sorted(c for _, _, c in pr) == [4, 7],
               "two rounds of a phase (two phase ids, each with its run 1) are two runs",
               json.dumps(pr))
        bf = next((r for r in rows if r.get("workload") == "exit-storm" and
                   r.get("kernel") == "patched"), {})
        hf = bf.get("holds", {}).get("free", {})
        result("avg_us" in bf.get("bulk_free", {}) and hf.get("calls") and
               near(hf.get("avg_us"), hf["total_us"] / hf["calls"]),
               "holds objects carry avg_us = total_us / calls", json.dumps(hf))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
