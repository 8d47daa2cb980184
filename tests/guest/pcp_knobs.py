"""pcp_knobs - what bad_input.py and pcp_heuristics.py share (in a guest).

The two pcp sysctls, reading one back, /proc/zoneinfo's pagesets, the
"ok - ..."/"not ok - ..." result lines and the exit status they add up to.
Imported from the guest drivers' own folder: python3 stdlib only.
"""
import os
import sys

SCALE = "/proc/sys/vm/pcp_batch_scale_max"
FRAC = "/proc/sys/vm/percpu_pagelist_high_fraction"
results = {"fail": 0}


def report(ok, name, why="", skip=None):
    if skip:
        print("ok - %s # SKIP %s" % (name, skip))
    else:
        results["fail"] += not ok
        print("%s - %s%s" % ("ok" if ok else "not ok", name, "" if ok else ": " + why))
    sys.stdout.flush()


def status():
    """The driver's exit status: 1 after a failed check, else 0."""
    return 1 if results["fail"] else 0


def can_run():
    """Root on a kernel with the knobs; else says why (a SKIP line)."""
    if os.geteuid() == 0 and os.path.exists(SCALE):
        return True
    print("# SKIP: needs root and a kernel with %s" % SCALE)
    return False


def read(path):
    with open(path) as f:
        return int(f.read())


def pagesets():
    """One dict per pageset (zone, cpu) of /proc/zoneinfo, in file order."""
    out, zone = [], None
    with open("/proc/zoneinfo") as f:
        for line in f:
            w = line.split()
            if line.startswith("Node"):
                zone = w[3]
            elif w[:1] == ["cpu:"]:
                out.append({"zone": zone, "cpu": int(w[1])})
            elif out and len(w) == 2 and w[0] in ("count:", "high:", "batch:", "high_min:", "high_max:"):
                out[-1][w[0][:-1]] = int(w[1])
    return out
