#!/usr/bin/python3
"""bench_smoke - the structural facts of a bench/run --smoke run.

Usage: tests/bench_smoke.py DIR    (DIR: build/$BASE/report-smoke)

In the storm's own bulk frees, the largest count must equal batch << knob,
with batch the largest pcp batch of the guest's /proc/zoneinfo and knob the
vm.pcp_batch_scale_max the guest read back for each setting (def, k0, k2).
Prints one "ok"/"not ok" line per setting; exit 1 when one does not hold.
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
    d = os.path.join(argv[1], "raw", "patched")
    batch = batch_of(os.path.join(d, "env.txt"))
    maps = report.raw_maps(d)
    knob = {r["label"]: r["settings"]["pcp_batch_scale_max"]
            for r in report.jsonl(os.path.join(d, "storm-traced.jsonl"))}
    bad = 0
    for label in ("k0", "k2", "def"):
        got = maps.get("@max_pages", {}).get("s:" + label)
        scale = knob.get(label)
        want = None if scale is None else batch << scale
        ok = want is not None and got == want
        bad += not ok
        print("%s - smoke: largest bulk free of the storm at %s is batch << %s = %s (got %s)"
              % ("ok" if ok else "not ok", label, scale, want, got))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
