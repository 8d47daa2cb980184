#!/usr/bin/python3
"""bench_smoke - the structural facts of a bench/run --smoke run.

Usage: tests/bench_smoke.py DIR    (DIR: build/$BASE/report-smoke)

In the exit storm run of each setting (def, k0, k2), the largest order-0
bulk transfer (bench/analysis/results.py's holds: free and drain as asked of
free_pcppages_bulk(), its count; order-0 refills as the pages one refill
moved, from the series' tracepoint and a kretprobe) must equal
batch << knob, with batch the largest pcp batch of the guest's
/proc/zoneinfo and knob the vm.pcp_batch_scale_max the guest read back.
The check takes the largest of the three paths on either base (on 6.12 it
is the storm's bulk frees; on 7.3, where the free path frees one batch at
a time since 91e691296646, the refills of the storm's fault-in); the
refills are counted per refill from the series' per-hold event, which a
patched kernel must have.  In the refill scenario each order-0 refill
takes zone->lock once (the series leaves refills whole; the knob bounds
them): bench/guest/paths-tp.bt's holds per refill must all be 1.  The
refill scenario must have run at each setting, with its throughput and the
victim's waits split by phase.  Every workload of bench/guest/workloads-run
(run once, -q) must have its row at def with a sane figure and its
mm_page_alloc_extfrag count (the guest kernel has the event: missing is a
failure), the lru-file-mmap-read load must have reached the migratetype
fallback (a count > 0), and bench/guest/refill-lat.bt must have timed the
refills of mmap-write-unmap.  Prints one "ok"/"not ok" line per check;
exit 1 when one does not hold.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "analysis"))
import compare  # noqa: E402
import results  # noqa: E402
from bench_smoke_instruments import instrument_checks  # noqa: E402


def batch_of(env_path):
    """The largest pcp batch in the guest's /proc/zoneinfo."""
    best = 0
    with open(env_path) as f:
        for line in f:
            if line.strip().startswith("batch:"):
                best = max(best, int(line.split()[1]))
    return best


# bench/analysis/results.py's max_holds_per_refill is the upper end of the log2
# bucket (bpftrace hist) of the most holds one refill took: [1, 2) gives 2,
# so 2 means that every refill took exactly one hold (the chunked refill of
# docs/experiments gave 64: 32 holds of a batch).
ONE_HOLD = 2


def holds_text(upper):
    """The log2 bucket below UPPER as text: 1, 2-3, 32-63."""
    if upper is None:
        return "-"
    return "1" if upper == ONE_HOLD else "%d-%d" % (upper // 2, upper - 1)


def per_refill_missing(raw):
    """Why a run has no per-refill counts: the tracepoint script's state."""
    if os.path.exists(os.path.join(raw, "patched", "paths-tp.json")):
        return "raw/patched/paths-tp.json has no @refill_call_* for the run"
    return ("no raw/patched/paths-tp.json: the kernel lacks the series' "
            "kmem:mm_page_pcpu_refill_hold, or bench/guest/guest-run did not attach it")


# bench/guest/workloads-run -q: every workload once at def; (probe, unit, lowest
# sane value).  lru-file-mmap-read must reach the migratetype fallback
# (kmem:mm_page_alloc_extfrag events), which is what it is there for.
WORKLOADS = (("page_fault1_processes", "ops/s/task", 1000), ("page_fault1_threads", "ops/s/task", 1000),
             ("page_fault2_processes", "ops/s/task", 1000), ("page_fault2_threads", "ops/s/task", 1000),
             ("lru-file-mmap-read", "MiB/s", 1), ("anon-w-seq", "MiB/s", 1),
             ("mmap-write-unmap", "MiB/s", 1), ("kbuild", "s", 0.1))


def workload_checks(raw):
    """"ok"/"not ok" lines on the workloads' rows; returns the failures."""
    # mmap-write-unmap runs in the traced pass only (bench/guest/refill-lat.bt)
    rows = [r for f in ("workloads.jsonl", "workloads-traced.jsonl")
            for r in results.jsonl(os.path.join(raw, "patched", f))]
    bad = 0
    for probe, unit, low in WORKLOADS:
        rs = [r for r in rows if r.get("probe") == probe and r.get("label") == "def"]
        r = rs[0] if rs else {}
        ok = bool(rs) and r.get("unit") == unit and (r.get("value") or 0) >= low \
            and r.get("procs", 0) >= 1 and r.get("settings")
        if ok and probe == "kbuild":
            ok = r["user_s"] > 0 and r["value"] > 0
        why = ""
        if ok and probe in ("lru-file-mmap-read", "anon-w-seq"):
            # null: bench/guest/workloads.h could not count the event (no
            # tracefs id, or perf_event_open failed); the guest kernel
            # has tracefs, perf events and kmem:*, so that is a failure
            ok = r.get("extfrag") is not None
            if not ok:
                why = ": no extfrag count (bench/workloads could not open kmem:mm_page_alloc_extfrag)"
            elif probe == "lru-file-mmap-read" and r["extfrag"] <= 0:
                ok, why = False, ": it never reached the migratetype fallback"
        bad += not ok
        print("%s - smoke: workload %s ran at def (%s %s, extfrag %s)%s"
              % ("ok" if ok else "not ok", probe, r.get("value"), r.get("unit"),
                 r.get("extfrag", "-"), why))
    maps = results.bpf_maps(os.path.join(raw, "patched", "refill-lat.json"))
    n = (maps.get("@refills") or {}).get("w:def")
    ok = bool(n)
    bad += not ok
    print("%s - smoke: bench/guest/refill-lat.bt timed the refills of mmap-write-unmap (%s)"
          % ("ok" if ok else "not ok", n))
    return bad


def main(argv):
    raw = os.path.join(compare.dir_arg(argv, "bench_smoke.py"), "raw")
    env = os.path.join(raw, "patched", "env.txt")
    batch = batch_of(env)
    bad = 0
    for label in ("k0", "k2", "def"):
        c = results.case(raw, "patched", label)
        scale = c["settings"]["pcp_batch_scale_max"] if c["reps"] else None
        want = None if scale is None else batch << scale
        # pages asked of the free path (its count argument: a high-order
        # page can make the freed count overshoot it), pages per order-0
        # refill over its holds, from the series' tracepoint (no fallback
        # to the largest hold: a patched kernel has the event)
        per_refill = c["holds"]["refill"].get("per_refill") or {}
        pages = {"free": c["holds"]["free"].get("max_pages_asked"),
                 "refill": per_refill.get("max_pages_per_refill"),
                 "drain": c["holds"]["drain"].get("max_pages_asked")}
        got = max((v for v in pages.values() if v is not None), default=None)
        ok = want is not None and got == want and bool(per_refill)
        bad += not ok
        print("%s - smoke: largest bulk transfer of the exit storm run at %s is batch << %s = %s"
              " (got %s: %s)%s" % ("ok" if ok else "not ok", label, scale, want, got,
                                   ", ".join("%s %s" % kv for kv in pages.items()),
                                   "" if per_refill else "; " + per_refill_missing(raw)))
        r = results.case(raw, "patched", label, "refill")
        # Holds per refill in the refill scenario, not the exit storm:
        # paths-tp.bt sums the holds between two returns of
        # get_page_from_freelist(), and alloc_pages_bulk() (a fork's
        # vmalloc'ed stack) refills without it, so an exit storm's forks
        # add their holds to a later call (7.3.json, one kernel: 2-3 holds
        # in 8 of its 10 exit storms, 1 in all 9 refill scenarios).
        rr = r["holds"]["refill"]
        holds = (rr.get("per_refill") or {}).get("max_holds_per_refill")
        ok = holds == ONE_HOLD
        bad += not ok
        print("%s - smoke: an order-0 refill at %s is one zone->lock hold (refill scenario: "
              "most holds per refill %s; largest hold %s pages, largest refill %s)%s"
              % ("ok" if ok else "not ok", label, holds_text(holds), rr.get("max_pages"),
                 (rr.get("per_refill") or {}).get("max_pages_per_refill"),
                 "" if rr.get("per_refill") else "; " + per_refill_missing(raw)))
        # the victim may well not wait at all in one short run: its waits
        # by phase are printed, not required
        ok = bool(r["reps"] and (r.get("refill_mib_s") or {}).get("median"))
        bad += not ok
        print("%s - smoke: refill scenario at %s ran (%s MiB/s, victim waits by phase: %s)"
              % ("ok" if ok else "not ok", label, (r.get("refill_mib_s") or {}).get("median"),
                 ", ".join(sorted(r["victim_lock_wait_by_phase"]))))
    with open(env) as f:
        kopt = [line.strip() for line in f if line.startswith("kprobes-optimization=")]
    ok = kopt in (["kprobes-optimization=0"], ["kprobes-optimization=none"])
    bad += not ok
    print("%s - smoke: the traced runs used unoptimized kprobes (env.txt: %s)"
          % ("ok" if ok else "not ok", ", ".join(kopt) or "no kprobes-optimization line"))
    # the instruments (bench/analysis/compare.py's rows): untraced victim, waits,
    # cyclictest, same-CPU victim, drain_all_pages(), tracers
    bad += instrument_checks(argv[1])
    bad += workload_checks(raw)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
