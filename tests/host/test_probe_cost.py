#!/usr/bin/python3
"""test_probe_cost - what waits.bt's return probe adds to the holds its
waiters start (tests/run -t probe-cost-host).

bench/analysis/compare.py's in_holds() puts the int3 trap (bench/guest/guest-run's
trap_cost) and the probe body's own time together, per wait and per
window.  waits.bt keeps the program's first body run apart (cold: QEMU
translates the new code): a window whose only wait is that first run has
no warm run and so no median (the CI of 2026-12-03 met one: the smoke's
exit storm had one wait).  Checked here on made-up maps whose answer is
known.  KTAP output.
"""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
import compare  # noqa: E402
from ktap import Ktap  # noqa: E402

K = Ktap()
result = K.result
TRAP = {"median": 3000.0}

# one wait, the program's first: 5 us cold body, no warm run
cold = compare.in_holds({"@handler_first_ns": {"E:def": 5000}}, "def", "E",
                        {"count": 1, "total_us": 300.0}, TRAP)
result(cold is not None and cold["warm_runs"] == 0 and cold["body_p50_us"] is None and
       cold["body_mean_us"] == 5.0 and cold["per_wait_us"] == 8.0 and cold["total_us"] == 8.0,
       "a window whose one wait is the first body run: no median, trap + cold body per wait",
       repr(cold))

# four waits: the cold one (5 us) and three warm ones of 1024-2047 ns, 4 us in all
warm = compare.in_holds({"@handler_first_ns": {"E:def": 5000},
                         "@handler_ns": {"E:def": [{"min": 1024, "max": 2047, "count": 3}]},
                         "@handler_sum_ns": {"E:def": 4000}}, "def", "E",
                        {"count": 4, "total_us": 300.0}, TRAP)
result(warm is not None and warm["warm_runs"] == 3 and warm["body_p50_us"] == 2.048 and
       warm["body_mean_us"] == 2.25 and warm["total_us"] == 21.0 and
       abs(warm["of_total_wait_pct"] - 7.0) < 1e-9,
       "three warm runs: the median is their log2 bucket's upper bound, the window's total"
       " is trap x waits + every body", repr(warm))

# another phase's or another run's entries are not this window's
other = compare.in_holds({"@handler_ns": {"R:def": [{"min": 1024, "max": 2047, "count": 3}]},
                          "@handler_first_ns": {"E:k0": 5000}}, "def", "E",
                         {"count": 2, "total_us": 300.0}, TRAP)
result(other is None, "no body run in this window's phase and run: no figure", repr(other))
result(compare.in_holds({}, "def", "E", {"count": 0, "total_us": 0}, TRAP) is None,
       "no wait: no figure", "")
sys.exit(K.finish())
