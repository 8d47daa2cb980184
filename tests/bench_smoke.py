#!/usr/bin/python3
"""bench_smoke - the structural facts of a bench/run --smoke run.

Usage: tests/bench_smoke.py DIR    (DIR: build/$BASE/report-smoke)

In the exit storm run of each setting (def, k0, k2), the largest order-0
bulk transfer under zone->lock (bench/report.py's holds: free and drain as
asked of free_pcppages_bulk(), its count; order-0 refills from the series'
tracepoint where the kernel has it) must equal batch << knob, with batch the
largest pcp batch of the guest's /proc/zoneinfo and knob the
vm.pcp_batch_scale_max the guest read back.  On 6.12 that is the storm's
bulk frees; on 7.3, where the free path frees one batch at a time
(91e691296646), the refills of the storm's fault-in.  The refill scenario
must have run at each setting, with its throughput and the victim's waits
split by phase.  With the experimental chunked refill (setting ck, where
the kernel has vm.pcp_refill_chunked): no order-0 refill holds zone->lock
for more than one batch, while the largest refill still moves
batch << knob pages, as at def; a kernel without it gets a counted skip.
Prints one "ok"/"not ok" line per check; exit 1 when one does not hold.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import report  # noqa: E402


def batch_of(env_path):
    """The largest pcp batch in the guest's /proc/zoneinfo."""
    best = 0
    with open(env_path) as f:
        for line in f:
            if line.strip().startswith("batch:"):
                best = max(best, int(line.split()[1]))
    return best


def main(argv):
    if len(argv) != 2:
        print("usage: bench_smoke.py DIR", file=sys.stderr)
        return 2
    raw = os.path.join(argv[1], "raw")
    batch = batch_of(os.path.join(raw, "patched", "env.txt"))
    bad = 0
    for label in ("k0", "k2", "def"):
        c = report.case(raw, "patched", label)
        scale = c["settings"]["pcp_batch_scale_max"] if c["reps"] else None
        want = None if scale is None else batch << scale
        # pages asked of the free path (its count argument: a high-order
        # page can make the freed count overshoot it), order-0 refills
        pages = {"free": c["holds"]["free"].get("max_pages_asked"),
                 "refill": c["holds"]["refill"]["max_pages"],
                 "drain": c["holds"]["drain"].get("max_pages_asked")}
        got = max((v for v in pages.values() if v is not None), default=None)
        ok = want is not None and got == want
        bad += not ok
        print("%s - smoke: largest bulk transfer of the exit storm run at %s is batch << %s = %s"
              " (got %s: %s)" % ("ok" if ok else "not ok", label, scale, want, got,
                                 ", ".join("%s %s" % kv for kv in pages.items())))
        r = report.case(raw, "patched", label, "refill")
        ok = bool(r["reps"] and (r.get("refill_mib_s") or {}).get("median")
                  and "refill" in r["victim_lock_wait_by_phase"])
        bad += not ok
        print("%s - smoke: refill scenario at %s ran (%s MiB/s, victim waits by phase: %s)"
              % ("ok" if ok else "not ok", label, (r.get("refill_mib_s") or {}).get("median"),
                 ", ".join(sorted(r["victim_lock_wait_by_phase"]))))
    c = report.case(raw, "patched", "ck")
    if not c["reps"]:
        print("ok - smoke: chunked refill # SKIP the kernel has no vm.pcp_refill_chunked")
        return 1 if bad else 0
    scale = c["settings"]["pcp_batch_scale_max"]
    hold = c["holds"]["refill"]["max_pages"]
    per = (c["holds"]["refill"].get("per_refill") or {}).get("max_pages_per_refill")
    ok = c["settings"].get("pcp_refill_chunked") == 1 and hold is not None and hold <= batch \
        and per == batch << scale
    bad += not ok
    print("%s - smoke: chunked refill: largest order-0 refill hold %s pages (want <= batch %d), "
          "largest refill %s pages (want batch << %s = %d)"
          % ("ok" if ok else "not ok", hold, batch, per, scale, batch << scale))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
