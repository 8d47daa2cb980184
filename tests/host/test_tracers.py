#!/usr/bin/python3
"""test_tracers - how the irqsoff/preemptoff maxima are read and attributed
(tests/run -t tracers-host).

bench/analysis/compare.py reads each run's maximum section out of a tracer's trace
file (latency, where it started and ended, its stack) and says whether the
page allocator held it; bench/analysis/runs_md.py and bench/analysis/figures.py say which
path: a refill (rmqueue_bulk() under __rmqueue_pcplist), a pcp free or
trim (free_frozen_page_commit), or other.  The texts quote those
attributions, so they are checked here on a made-up trace of three runs
whose answer is known.  KTAP output.
"""
import os
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
import compare  # noqa: E402
import runs_md  # noqa: E402
from ktap import Ktap  # noqa: E402

# Three runs as bench/guest/guest-run writes them: "=== run N" and the tracer's
# trace file after it.  Run 2's section is an interrupt that came in while
# a free was running: the section is the interrupt handler's, not the
# allocator's.
TRACE = """=== run 1
# irqsoff latency trace v1.1.5 on 7.3.4
# latency: 261 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)
#  => started at: _raw_spin_lock_irqsave
#  => ended at:   _raw_spin_unlock_irqrestore
 => __rmqueue_pcplist
 => get_page_from_freelist
 => __alloc_frozen_pages_noprof
=== run 2
# latency: 40 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)
#  => started at: handle_softirqs
#  => ended at:   handle_softirqs
 => run_timer_softirq
 => asm_sysvec_apic_timer_interrupt
 => free_frozen_page_commit
=== run 3
# latency: 21 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:1)
#  => started at: _raw_spin_lock_irqsave
#  => ended at:   _raw_spin_unlock_irqrestore
 => free_frozen_page_commit
 => free_unref_folios
"""

K = Ktap()
result = K.result


with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
    f.write(TRACE)
try:
    runs = compare.tracer_sections(f.name)
finally:
    os.unlink(f.name)
result(len(runs) == 3, "one section per run", "%d sections" % len(runs))
result([r["latency_us"] for r in runs] == [261.0, 40.0, 21.0], "each run's latency",
       repr([r["latency_us"] for r in runs]))
result(runs[0]["started_at"] == "_raw_spin_lock_irqsave" and runs[0]["stack"][0] == "__rmqueue_pcplist",
       "where a section started, and its innermost frame", repr(runs[0]))
alloc = [compare.in_allocator(r) for r in runs]
result(alloc == [True, False, True], "the allocator held runs 1 and 3, an interrupt run 2",
       repr(alloc))
held = [runs_md.holder(r) for r in runs]
result(held == ["refill", "other", "free"], "run 1 is a refill, run 3 a pcp free, run 2 neither",
       repr(held))
sys.exit(K.finish())
