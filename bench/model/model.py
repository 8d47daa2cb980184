#!/usr/bin/python3
"""model - many CPUs on one zone->lock, on paper: a discrete-event model.

Usage: bench/model/model.py [--calibrate RESULTS_JSON] [--measured RESULTS_JSON]
                      [--cpus LIST] [--out DIR] [--check] [--seed N]

Predicts what a victim CPU waits for zone->lock when N CPUs (--cpus,
default 16,32,64,128,256) share one zone, for every setting of
vm.pcp_batch_scale_max (k0..k6) and percpu_pagelist_high_fraction=-1
(hf-1), on three kernel kinds: mainline (free path in pcp->batch holds),
6.12 (one hold per trim) and mainline-ck (mainline + the chunked refill of
docs/experiments/chunked-refill.patch).  It must reproduce the published
anchors within 2x; --check exits 1 when one is outside [0.5, 2].  --calibrate fits the per-page costs
to a results.json; --measured sets a results.json's 2-vCPU rows beside the
model at 2 CPUs.  What it models, ignores and assumes: docs/model.md.

Writes DIR/model.json and DIR/model.md (default DIR: build/$BASE/report).
Exit status: 0 done; 1 an anchor outside 2x with --check (the files are
written), or the files could not be written; 2 a bad argument or an
unusable RESULTS_JSON (one line on stderr, nothing written).
Deterministic: the same seed and calibration give the same files.
"""
import argparse
import json
import os
import sys
import time

from model_md import markdown, us
from model_results import beside, calibrate, load_measured
from model_sim import (ASSUMPTIONS, CPU_COUNTS, DEFAULT_CALIBRATION, EXIT, KIND_TEXT,
                       KINDS, MAX_CPUS, PF1, SETTINGS, STORM_PAGES, TOP, WORKLOAD, UsageError,
                       anchors, run_cell)


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# ----------------------------------------------------------------- main

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse(argv):
    base = os.environ.get("BASE") or "7.3"
    if not os.path.exists(os.path.join(TOP, "configs", "base-%s.pin" % base)):
        raise UsageError("unknown BASE '%s'" % base)
    p = Parser(prog="model.py", description="zone->lock with many CPUs: a "
               "discrete-event model (what it assumes: docs/model.md)")
    p.add_argument("--calibrate", metavar="RESULTS_JSON",
                   help="fit the per-page costs to a bench results.json")
    p.add_argument("--out", metavar="DIR", default=os.path.join(TOP, "build", base, "report"),
                   help="where model.json and model.md go (default build/$BASE/report)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when an anchor's model/anchor ratio is outside [0.5, 2]")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--cpus", metavar="LIST", type=cpu_list, default=list(CPU_COUNTS),
                   help="comma-separated CPU counts, 2 to %d (default %s)" % (
                       MAX_CPUS, ",".join(map(str, CPU_COUNTS))))
    p.add_argument("--measured", metavar="RESULTS_JSON",
                   help="set a bench results.json's 2-vCPU tcg exit-storm rows beside "
                        "the model at 2 CPUs (a section in model.md)")
    return p.parse_args(argv)


def cpu_list(text):
    """--cpus: '2,4,8' -> [2, 4, 8], sorted, duplicates dropped."""
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or int(part) <= 0:
            raise argparse.ArgumentTypeError("'%s' is not a positive integer" % part)
        n = int(part)
        if n < 2:
            raise argparse.ArgumentTypeError("1 CPU: CPU 0 is the victim, nobody else "
                                             "takes zone->lock; want 2 or more")
        if n > MAX_CPUS:
            raise argparse.ArgumentTypeError("%d: at most %d CPUs" % (n, MAX_CPUS))
        out.add(n)
    return sorted(out)


def main(argv):
    started = time.monotonic()
    try:
        args = parse(argv)
        cal = calibrate(args.calibrate) if args.calibrate else dict(DEFAULT_CALIBRATION)
        measured = load_measured(args.measured) if args.measured else None
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            raise UsageError("--out %s is not a directory" % args.out)
    except UsageError as e:
        print("model.py: %s (see model.py --help)" % e, file=sys.stderr)
        return 2
    cells, index = [], {}
    for kind, chunked, chunked_refill in KINDS:
        for n in args.cpus:
            for label, knob, hf in SETTINGS:
                c = run_cell(cal, args.seed, n, label, knob, hf, kind, chunked,
                             chunked_refill)
                cells.append(c)
                index[(kind, n, label)] = c
    result = {"model": "bench/model/model.py", "seed": args.seed,
              "cpu_counts": args.cpus,
              "settings": [{"label": lb, "knob": k, "high_fraction": hf}
                           for lb, k, hf in SETTINGS],
              "kinds": {k: KIND_TEXT[k] for k, _, _ in KINDS},
              "calibration": cal, "workload": dict(WORKLOAD, storm_pages_below_4_cpus=STORM_PAGES),
              "anchor_workloads": {"page_fault1": PF1, "container_exit": EXIT},
              "anchors": anchors(cal, args.seed), "cells": cells,
              "assumptions": ASSUMPTIONS}
    if measured is not None:
        result["measured"] = beside(measured, cal, args.seed, index,
                                    os.path.relpath(os.path.abspath(args.measured), TOP))
    try:
        os.makedirs(args.out, exist_ok=True)
        write_atomically(os.path.join(args.out, "model.json"),
                         json.dumps(result, indent=1) + "\n")
        write_atomically(os.path.join(args.out, "model.md"), markdown(dict(result, index=index)))
    except OSError as e:
        print("model.py: cannot write %s: %s" % (args.out, e.strerror or e), file=sys.stderr)
        return 1
    bad = []
    for a in result["anchors"]:
        ratio = "%.2f" % a["ratio"] if a["ratio"] is not None else "none"
        print("anchor %-15s model %10s  anchor %8s  model/anchor %s" % (
            a["name"], us(a["model_us"], " us"), us(a["anchor_us"], " us"), ratio))
        if not a["within_2x"]:
            bad.append("%s (ratio %s)" % (a["name"], ratio))
    print("model: %d cells, wrote %s/model.{json,md} in %.1f s" % (
        len(cells), args.out, time.monotonic() - started))
    if args.check and bad:
        print("model.py: anchors outside [0.5, 2] x: %s" % ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
