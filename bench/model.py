#!/usr/bin/python3
"""model - many CPUs on one zone->lock, on paper: a discrete-event model.

Usage: bench/model.py [--calibrate RESULTS_JSON] [--measured RESULTS_JSON]
                      [--cpus LIST] [--out DIR] [--check] [--seed N]

The bench runs on 2 vCPUs under an emulator; the problem it is about needs
16 to 256 CPUs.  This model takes per-page lock costs (a default, or fitted
to a bench results.json) and predicts what a victim CPU waits for zone->lock
when N CPUs (--cpus, default 16,32,64,128,256) share one zone, for every
setting of vm.pcp_batch_scale_max (k0..k6) and for
vm.percpu_pagelist_high_fraction=-1 (hf-1), on three kernel kinds:
"mainline" (7.3, with 91e691296646: the free path takes zone->lock once per
pcp->batch pages), "6.12" (one hold per trim) and "mainline-ck" (mainline
plus the series' chunked refill, patches/0006:
rmqueue_bulk() takes zone->lock once per pcp->batch = 63 pages and drops it
between chunks; a refill still moves min(batch << alloc_factor, ...) pages,
bounded by the knob, in ceil(pages / 63) holds).  It must reproduce the
published anchors within 2x and prints the ratio model/anchor for each;
--check exits 1 when one is outside [0.5, 2].

--cpus LIST: comma-separated CPU counts, each 2 to 4096 (CPU 0 is the
victim, so 1 CPU has nobody to wait for); 2, 4 and 8 set the model beside
the bench's 2-vCPU runs and its --multi runs at 4 and 8 vCPUs.

--measured RESULTS_JSON: a bench results.json; model.md gets a section
"Beside the 2-vCPU measurement": per kernel and setting of its tcg exit-storm
rows, the victim's measured zone->lock wait p99 in the exit and the fault_in
phases, the measured per-page hold cost of the free and refill paths
("mean": total_us / holds.refill.per_refill.pages_total, the pages the refill
path moved, where the row has it; else "p99": holds.PATH.p99_us / max_pages,
the p99 hold being one of the largest transfers: a log2 bucket's upper
bound, up to 2x, vCPU preemption included; the model's by the same
estimator from its own holds), each beside the model at 2 CPUs
with the same kind (base 7.3 -> mainline, or mainline-ck where the row's
largest refill hold is smaller than its largest refill: patches/0006;
6.12 -> 6.12) and knob, and the ratio
measured/model.
The emulated costs are tens of times the model's (hardware) ones and more:
the comparison is of the trend across settings, not of absolute values.
model.json carries the same under "measured".  The 2-CPU cells it needs are
run for it when 2 is not in --cpus (they are then not in "cells").

Writes DIR/model.json and DIR/model.md (default DIR: build/$BASE/report,
BASE defaulting to 7.3).  Exit status: 0 done; 1 an anchor outside 2x
with --check (the files are written), or the files could not be written;
2 a bad argument or an unusable RESULTS_JSON (one line on stderr, nothing
written).  Deterministic: the same seed and
calibration give the same files.

What it models
- One zone->lock, a FIFO queue: qspinlock hands the lock to its MCS queue in
  arrival order once contended; the pending-bit and lock-stealing fast paths
  are ignored.
- Hold time of one acquisition = fixed cost + per-page cost x pages, per
  path: bulk free (free_pcppages_bulk), refill (rmqueue_bulk), drain
  (drain_pages_zone's chunks).  Defaults: 0.5 us fixed, 35 ns per page
  freed or drained, 25 ns per page refilled (buddy merging on free costs
  more than splitting); --calibrate fits them per path to a results.json.
- Hand-over: when the lock is released with W CPUs spinning, the next one
  owns it after h0 + h1 x W (0.1 us + 2 ns per waiter): the lock word and
  the zone's free-list lines move to another core, and every spinner adds
  coherence traffic (linear in waiters, as measured for ticket locks in
  "Non-scalable locks are dangerous", Boyd-Wickizer et al. 2012; qspinlock
  spins locally, hence the small slope).  An uncontended acquisition costs
  only the fixed cost.
- Refills: one hold per refill on mainline and 6.12; on mainline-ck a
  refill of P pages is ceil(P / 63) holds, the same 0.05 us gap apart as
  mainline's free chunks (drop and retake zone->lock; the pages moved per
  refill do not change).
- Transfer sizes follow mm/page_alloc.c: trim = clamp(free_count, batch,
  high - batch) with free_count capped at batch << knob, so a storm's trims
  are min(batch << knob, high - batch); refill = min(batch << alloc_factor,
  high - count - batch) with alloc_factor capped at the knob, count ~ 0 when
  a refill is due; drain chunks of min(count, batch << knob).  batch 63.
  Default high 6392 (the 256-CPU report's machine); hf-1: high 4 x batch =
  252, so trims of 189 and refills of 189 (the high - count - batch term
  binds before the knob's 2016).
- Workload per cell: CPU 0 is the victim; N/4 CPUs exit (free pages at
  0.25 us of other work per page, a trim each time the list reaches high),
  N/4 fault in (0.6 us of work per page, a refill when the list runs out),
  the other N - 2 x N/4 - 1 allocate lightly (a 63-page refill every 2 ms
  on average, exponential).  Every 100 ms a drain_all_pages drains the list
  of every storm CPU (started within 100 us of each other).  Work times are
  jittered +-20 %; CPUs start at random phases; the first 10 % of the run is
  warm-up and not counted.
- Fewer than 4 CPUs (N/4 = 0): CPU 0 is the victim and CPU 1 is the storm,
  as on the bench's 2 vCPUs: it faults in 262144 pages (the storm of
  bench/run's full run, 4 x 256 MiB; --short and --multi storms are smaller,
  which shortens the phases but hardly changes the waits within each; a
  refill each time its list runs out) and then exits them
  (a trim each time its list reaches high), over and over, with no pause
  between the two phases; at N = 3, CPU 2 allocates lightly.  Its list is
  drained every 100 ms as an exiting CPU's.  The victim's waits are also
  split by the phase the storm CPU was in (fault_in, exit), as the bench
  splits them; the phase starts when the CPU takes its first refill, and
  the exit when the last refill's pages are faulted in.
- The victim's wait: sampled at Poisson times by a probe that takes no lock
  time (PASTA: what an allocation arriving at a random moment would wait:
  the holds queued ahead of it plus the hand-overs); 0 when the lock is
  free.  The victim's own holds (one batch, rare) are left out of the load.
- Bulk-transfer hold times: every hold of each path, pooled over CPUs; the
  pages they moved are summed too (the per-page cost set beside a
  measurement).

What it ignores
- NUMA (one zone, one node; remote-node holds are not slower), several
  zones, the zone's other lock users (compaction, isolation, the decay
  worker: decay_pcp_high already frees in batch steps on both kinds).
- qspinlock details: lock stealing, the pending bit, paravirt spinning,
  vCPU preemption of the holder (the bench's emulator has plenty of it).
- Interrupts-off time on the holder's side and the pcp->lock: the victim
  waits for zone->lock only; work done between chunks on mainline is a
  fixed 0.05 us gap (drop and retake pcp->lock; on mainline-ck the same
  gap between refill chunks).
- pcp high auto-tuning (high is fixed per setting), high-order pages,
  free_high, memory pressure feedback (reclaim), cache effects of bigger
  transfers on the work outside the lock.

Anchors (each the mean latency of one free_pcppages_bulk() call, lock wait
included, 6.12-like unchunked free path)
- Huang Ying (52166607ecc9), Sapphire Rapids, will-it-scale page_fault1, pcp
  high = 2 x batch: 2.33 us at batch 63, 59.39 us at batch 2047.  Assumed:
  16 processes on one zone, 1.5 us fault-in work and 0.37 us unmap work per
  page (1/513633 page/s, the reported throughput read as per process),
  128 MiB mapped and unmapped per iteration.
- Yafang Shao (July 2024), 256 CPUs, a kernel without the scale cap: trims
  of high - batch = 6329 pages average 3.07 ms; with high = 4 x batch
  (trims of 189): 104 us.  Assumed: the exiting container's 18 processes
  exit together (0.25 us of exit work per page), the other 238 CPUs
  allocate lightly (a 63-page refill every 5 ms on average).
"""
import argparse
import bisect
import heapq
import json
import math
import os
import random
import sys
import time
import zlib
from collections import deque

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 63
CPU_COUNTS = (16, 32, 64, 128, 256)
MAX_CPUS = 4096
DEFAULT_KNOB = 5        # CONFIG_PCP_BATCH_SCALE_MAX's default
# label, vm.pcp_batch_scale_max, vm.percpu_pagelist_high_fraction
SETTINGS = [("k%d" % k, k, 0) for k in range(7)] + [("hf-1", DEFAULT_KNOB, -1)]
# kind, free path in pcp->batch chunks (91e691296646), refill in pcp->batch
# chunks (patches/0006)
KINDS = (("mainline", True, False), ("6.12", False, False), ("mainline-ck", True, True))
KIND_TEXT = {
    "mainline": "free path in pcp->batch holds (91e691296646), one hold per refill",
    "6.12": "one zone->lock hold per trim and per refill",
    "mainline-ck": "mainline + the series' chunked refill (0006): free path and "
                   "refills in pcp->batch holds",
}
KIND_TITLE = {
    "mainline": "mainline",
    "6.12": "6.12",
    "mainline-ck": "mainline + chunked refill (0006)",
}
PATHS = ("free", "refill", "drain")
# the storm of bench/run's full run (guest-run -n 4 -s 256): 4 x 256 MiB
# faulted in, then exited
STORM_PAGES = 4 * 256 * 256

DEFAULT_CALIBRATION = {
    "source": "default: reproduces the published anchors (see anchors)",
    "free": {"fixed_us": 0.5, "per_page_us": 0.035},
    "refill": {"fixed_us": 0.5, "per_page_us": 0.025},
    "drain": {"fixed_us": 0.5, "per_page_us": 0.035},
    "handover_us": 0.1,
    "handover_per_waiter_us": 0.002,
}

WORKLOAD = {
    "batch": BATCH,
    "high": 6392,
    "high_hf-1": 4 * BATCH,
    "exit_work_us_per_page": 0.25,
    "fault_work_us_per_page": 0.6,
    "light_refill_interval_us": 2000.0,
    "drain_interval_us": 100000.0,
    "drain_spread_us": 100.0,
    "chunk_gap_us": 0.05,
    "jitter": 0.2,
    "holds_per_cell": 24000,
    "min_simulated_us": 160000.0,
    "probes_per_cell": 20000,
    "warmup_fraction": 0.1,
}

ANCHORS = [
    # name, source, anchor us, scenario
    ("ying-batch63", "Huang Ying, 52166607ecc9: SPR, will-it-scale page_fault1, "
     "high = 2 x batch, batch 63: free latency avg", 2.33,
     {"kind": "pf1", "batch": 63}),
    ("ying-batch2047", "Huang Ying, 52166607ecc9: SPR, will-it-scale page_fault1, "
     "high = 2 x batch, batch 2047: free latency avg", 59.39,
     {"kind": "pf1", "batch": 2047}),
    ("yafang-6329", "Yafang Shao, Jul 2024: 256 CPUs, no scale cap, high 6392: "
     "free_pcppages_bulk avg during container exit", 3070.0,
     {"kind": "exit", "trim": 6392 - 63}),
    ("yafang-4xbatch", "Yafang Shao, Jul 2024: 256 CPUs, high fraction tuned to "
     "high = 4 x batch: free_pcppages_bulk avg", 104.0,
     {"kind": "exit", "trim": 3 * 63}),
]
PF1 = {"cpus": 16, "fault_us_per_page": 1.5, "unmap_us_per_page": 0.37,
       "pages_per_iteration": 32768, "holds": 20000}
EXIT = {"cpus": 256, "exiting": 18, "exit_us_per_page": 0.25,
        "light_refill_interval_us": 5000.0, "holds": 20000}

ASSUMPTIONS = [
    "zone->lock is a FIFO queue (qspinlock's MCS order once contended); lock "
    "stealing, the pending bit and paravirt spinning are ignored",
    "hold = fixed + per-page cost x pages, per path (free, refill, drain); "
    "defaults 0.5 us + 35 ns/page free and drain, 25 ns/page refill",
    "hand-over after a contended release = 0.1 us + 2 ns x spinning waiters "
    "(cache-line transfer plus coherence traffic growing with waiters, as for "
    "ticket locks in Boyd-Wickizer et al. 2012); uncontended acquisitions pay "
    "only the fixed cost",
    "transfer sizes as mm/page_alloc.c: trim min(batch << knob, high - batch), "
    "refill min(batch << knob, high - batch), drain chunks min(count, "
    "batch << knob); batch 63, high 6392 by default, 252 with hf-1 (trims and "
    "refills of 189)",
    "mainline (91e691296646) splits a trim into pcp->batch holds 0.05 us apart; "
    "6.12 holds once per trim; both chunk drains at batch << knob; mainline-ck "
    "(0006) also splits a refill into pcp->batch holds 0.05 us "
    "apart, the pages per refill unchanged",
    "cell workload: N/4 CPUs exit (0.25 us of work per page freed), N/4 fault "
    "in (0.6 us per page), N - 2 x N/4 - 1 allocate lightly (63 pages every "
    "2 ms), one victim; drain_all_pages every 100 ms drains every storm CPU's "
    "list",
    "below 4 CPUs: CPU 0 the victim, CPU 1 the storm, faulting in 262144 pages "
    "(bench/run's storm, 4 x 256 MiB) then exiting them, over and over; CPU 2 (N = 3) "
    "allocates lightly; the victim's waits are also split by the storm's phase",
    "the victim's wait is sampled by zero-cost Poisson probes (PASTA): the "
    "holds and hand-overs queued ahead of an allocation arriving at a random "
    "moment; its own holds are left out of the load",
    "ignored: NUMA and other zones, interrupts-off time and pcp->lock, vCPU "
    "preemption, pcp high auto-tuning, high-order pages, reclaim feedback, "
    "cache effects of transfer size on the work outside the lock",
    "anchor (a) assumes 16 page_fault1 processes on one zone with 1.5 us "
    "fault-in and 0.37 us unmap work per page (513633 page/s read as per "
    "process); anchor (b) assumes the container's 18 processes exit at once "
    "(0.25 us per page) while 238 CPUs refill 63 pages every 5 ms",
    "pages per hold in --calibrate are the rows' max_pages (the bound), so a "
    "row whose holds were mostly smaller gives a lower per-page cost",
]


class UsageError(Exception):
    """A bad argument or input: one line, exit 2, nothing written."""


# ---------------------------------------------------------------- the lock

def percentile(sorted_values, q):
    """Nearest-rank percentile of a sorted list; None when empty."""
    if not sorted_values:
        return None
    rank = max(1, int(math.ceil(q * len(sorted_values))))
    return sorted_values[rank - 1]


def r3(v):
    return None if v is None else round(v, 3)


def summary(values):
    v = sorted(values)
    if not v:
        return {"samples": 0, "mean_us": None, "p50_us": None, "p99_us": None,
                "p999_us": None, "max_us": None}
    return {"samples": len(v), "mean_us": r3(sum(v) / len(v)),
            "p50_us": r3(percentile(v, 0.50)), "p99_us": r3(percentile(v, 0.99)),
            "p999_us": r3(percentile(v, 0.999)), "max_us": r3(v[-1])}


def simulate(gens, cal, rng, holds_target, min_us, probes, warmup, tagged=(),
             phases=None):
    """Run the CPUs' request generators against one FIFO zone->lock.

    Each generator yields (delay_us, path, pages): it asks for the lock
    delay_us after the release of its previous hold (after time 0 for the
    first) and is sent the release time back.  Stops after holds_target
    holds and min_us of simulated time.  Returns the holds per path and the
    pages they moved, the probes' waits, the call latencies (wait + hold) of
    the tagged CPUs' frees, the simulated time and the lock's busy fraction;
    with PHASES (a list of (start time, phase) that a generator appends to in
    time order) also the waits by the phase their probe fell in."""
    fixed = {p: cal[p]["fixed_us"] for p in PATHS}
    per_page = {p: cal[p]["per_page_us"] for p in PATHS}
    h0, h1 = cal["handover_us"], cal["handover_per_waiter_us"]
    tagged = set(tagged)
    heap, seq = [], 0
    for i, g in enumerate(gens):
        delay, path, pages = next(g)
        heapq.heappush(heap, (delay, seq, i, path, pages))
        seq += 1
    queue = deque()
    holds = {p: [] for p in PATHS}
    pages_max = {p: 0 for p in PATHS}
    pages_total = {p: 0 for p in PATHS}
    waits, wait_t, calls = [], [], []
    busy = 0.0
    t_free = 0.0            # the lock is free from this time on
    current = None          # the request whose release is t_free
    last = None             # the last request admitted to the queue
    n_holds = 0
    t_warm = None
    warm_holds = max(1, int(holds_target * warmup))
    next_probe = math.inf
    probe_rate = 0.0
    pop, push, expo = heapq.heappop, heapq.heappush, rng.expovariate

    def admit(entry):
        """Queue an arrival; the probes before it belong to the one before."""
        nonlocal next_probe, last
        ta = entry[0]
        while next_probe < ta:
            attach(next_probe)
            next_probe += expo(probe_rate)
        req = [ta, entry[2], entry[3], entry[4], None, None]  # ta cpu path pages release probes
        last = req
        return req

    def attach(tp):
        # A probe at tp waits for the last request that arrived before it.
        if last is None or (last[4] is not None and last[4] <= tp):
            waits.append(0.0)
            wait_t.append(tp)
        elif last[5] is None:
            last[5] = [tp]
        else:
            last[5].append(tp)

    while True:
        while heap and heap[0][0] <= t_free:
            queue.append(admit(pop(heap)))
        if current is not None:
            while next_probe <= t_free:
                attach(next_probe)
                next_probe += expo(probe_rate)
            if current[5]:
                ho = h0 + h1 * (len(queue) + 1)
                for tp in current[5]:
                    waits.append(t_free - tp + ho if t_free > tp else 0.0)
                    wait_t.append(tp)
                current[5] = None
        if n_holds >= holds_target and t_free >= min_us:
            break
        if queue:
            req = queue.popleft()
            start = t_free + h0 + h1 * (len(queue) + 1)
        elif heap:
            req = admit(pop(heap))
            start = req[0]
        else:
            break
        ta, cpu, path, pages = req[0], req[1], req[2], req[3]
        hold = fixed[path] + per_page[path] * pages
        release = start + hold
        req[4] = release
        n_holds += 1
        if t_warm is not None:
            holds[path].append(hold)
            busy += hold
            pages_total[path] += pages
            if pages > pages_max[path]:
                pages_max[path] = pages
            if cpu in tagged and path == "free":
                calls.append(release - ta)
        elif n_holds >= warm_holds:
            t_warm = release
            per_hold = t_warm / n_holds
            span = max(min_us - t_warm, (holds_target - n_holds) * per_hold)
            if probes and span > 0:
                probe_rate = probes / span
                next_probe = t_warm + expo(probe_rate)
        t_free, current = release, req
        try:
            delay, path, pages = gens[cpu].send(release)
        except StopIteration:
            continue
        push(heap, (release + delay, seq, cpu, path, pages))
        seq += 1
    span = t_free - (t_warm or 0.0)
    out = {"holds": holds, "pages_max": pages_max, "pages_total": pages_total,
           "waits": waits, "calls": calls,
           "simulated_us": span, "busy": busy / span if span > 0 else 0.0}
    if phases is not None:
        starts = [t for t, _ in phases]
        by_phase = {}
        for tp, w in zip(wait_t, waits):
            i = bisect.bisect_right(starts, tp) - 1
            by_phase.setdefault(phases[i][1] if i >= 0 else "before", []).append(w)
        out["waits_by_phase"] = by_phase
    return out


# ------------------------------------------------------------ the workload

def chunks(pages, size):
    out = []
    while pages > 0:
        out.append(min(pages, size))
        pages -= size
    return out


def exiting(rng, trim, chunk, us_per_page, gap, jitter):
    """A CPU in exit_mmap(): frees pages to its list, trims when it is full."""
    parts = chunks(trim, chunk)
    delay = rng.uniform(0, trim * us_per_page)
    while True:
        for i, pages in enumerate(parts):
            yield (delay if i == 0 else gap), "free", pages
        delay = trim * us_per_page * rng.uniform(1 - jitter, 1 + jitter)


def faulting(rng, refill, chunk, us_per_page, gap, jitter):
    """A CPU faulting memory in: a refill each time its list runs out, in
    holds of CHUNK pages GAP apart (mainline-ck) or one hold."""
    parts = chunks(refill, chunk)
    delay = rng.uniform(0, refill * us_per_page)
    while True:
        for i, pages in enumerate(parts):
            yield (delay if i == 0 else gap), "refill", pages
        delay = refill * us_per_page * rng.uniform(1 - jitter, 1 + jitter)


def cycling(rng, pages, trim, free_chunk, refill, refill_chunk, fault_us, exit_us,
            gap, jitter, phases):
    """The storm CPU of a cell with fewer than 4 CPUs: faults PAGES in (a
    refill each time its list runs out), then exits them (a trim each time
    its list reaches high), over and over; appends (start, phase) to
    PHASES."""
    n_refill = max(1, -(-pages // refill))
    n_trim = max(1, pages // trim)
    rparts, fparts = chunks(refill, refill_chunk), chunks(trim, free_chunk)

    def jit():
        return rng.uniform(1 - jitter, 1 + jitter)

    delay = rng.uniform(0, refill * fault_us)
    phases.append((delay, "fault_in"))
    while True:
        for _ in range(n_refill):
            for i, n in enumerate(rparts):
                now = yield (delay if i == 0 else gap), "refill", n
            delay = refill * fault_us * jit()
        # the last refill's pages faulted in, the storm exits
        phases.append((now + delay, "exit"))
        delay += trim * exit_us * jit()
        for _ in range(n_trim):
            for i, n in enumerate(fparts):
                now = yield (delay if i == 0 else gap), "free", n
            delay = trim * exit_us * jit()
        # the exit's last trim released: the next fault-in starts at once
        phases.append((now, "fault_in"))
        delay = 0.0


def light(rng, interval_us):
    """A lightly allocating CPU: one batch now and then."""
    while True:
        yield rng.expovariate(1.0 / interval_us), "refill", BATCH


def drainer(rng, pages, chunk, interval_us, spread_us, gap):
    """drain_pages_zone() of one CPU's list at every drain_all_pages()."""
    now, k = 0.0, 0
    parts = chunks(pages, chunk)
    while True:
        t = (k + 0.5) * interval_us + rng.uniform(0, spread_us)
        k += 1
        if t < now:
            continue
        for i, n in enumerate(parts):
            now = yield (t - now if i == 0 else gap), "drain", n
        # now: the release of the last chunk


def page_fault1(rng, batch, fault_us, unmap_us, pages, gap):
    """will-it-scale page_fault1 with pcp high = 2 x batch: refills and
    trims of one batch each, a map-and-fault phase then an unmap phase."""
    n = max(1, pages // batch)
    delay = rng.uniform(0, 2 * pages * (fault_us + unmap_us))
    while True:
        for _ in range(n):
            yield delay, "refill", batch
            delay = batch * fault_us
        for _ in range(n):
            yield delay, "free", batch
            delay = batch * unmap_us
        delay = gap


def transfer_sizes(knob, high_fraction):
    high = WORKLOAD["high_hf-1"] if high_fraction == -1 else WORKLOAD["high"]
    bound = BATCH << knob
    trim = min(bound, high - BATCH)
    refill = min(bound, max(high - BATCH, BATCH))
    return high, trim, refill, bound


def cell_seed(seed, *parts):
    return zlib.crc32(":".join(str(p) for p in (seed,) + parts).encode())


def wait_summary(waits):
    v = summary(waits)
    v["contended"] = sum(1 for x in waits if x > 0)
    return v


def run_cell(cal, seed, cpus, label, knob, high_fraction, kind, chunked,
             chunked_refill=False):
    w = WORKLOAD
    gap = w["chunk_gap_us"]
    rng = random.Random(cell_seed(seed, cpus, label, kind))
    high, trim, refill, bound = transfer_sizes(knob, high_fraction)
    free_chunk = BATCH if chunked else trim
    refill_chunk = BATCH if chunked_refill else refill
    storm = cpus // 4
    gens, phases = [], None
    if storm:
        for _ in range(storm):
            gens.append(exiting(rng, trim, free_chunk, w["exit_work_us_per_page"],
                                gap, w["jitter"]))
            gens.append(faulting(rng, refill, refill_chunk,
                                 w["fault_work_us_per_page"], gap, w["jitter"]))
        light_cpus = cpus - 2 * storm - 1
        # Each storm CPU's list at drain time: an exiting one between high -
        # trim and high, a faulting one half a refill on average.
        drained = [high - trim // 2, refill // 2] * storm
        split = "%d exiting, %d faulting in, %d light, the victim" % (
            storm, storm, light_cpus)
    else:
        # Below 4 CPUs: CPU 1 is the bench's storm, fault-in then exit.
        phases = []
        gens.append(cycling(rng, STORM_PAGES, trim, free_chunk, refill, refill_chunk,
                            w["fault_work_us_per_page"], w["exit_work_us_per_page"],
                            gap, w["jitter"], phases))
        light_cpus = cpus - 2
        drained = [high - trim // 2]
        split = "1 storm (fault-in of %d pages, then exit), %d light, the victim" % (
            STORM_PAGES, light_cpus)
    for _ in range(light_cpus):
        gens.append(light(rng, w["light_refill_interval_us"]))
    for pages in drained:
        gens.append(drainer(rng, pages, bound, w["drain_interval_us"],
                            w["drain_spread_us"], gap))
    r = simulate(gens, cal, rng, w["holds_per_cell"], w["min_simulated_us"],
                 w["probes_per_cell"], w["warmup_fraction"], phases=phases)
    holds = {}
    for p in PATHS:
        s = summary(r["holds"][p])
        holds[p] = {"calls": s["samples"], "max_pages": r["pages_max"][p] or None,
                    "pages_total": r["pages_total"][p],
                    "total_us": r3(sum(r["holds"][p])),
                    "mean_us": s["mean_us"], "p50_us": s["p50_us"],
                    "p99_us": s["p99_us"], "max_us": s["max_us"]}
    cell = {"kind": kind, "cpus": cpus, "setting": label, "knob": knob,
            "high_fraction": high_fraction, "high": high, "workload": split,
            "trim_pages": trim, "refill_pages": refill,
            "free_pages_per_hold": min(trim, free_chunk),
            "refill_pages_per_hold": min(refill, refill_chunk),
            "drain_pages_per_hold": min(bound, high - trim // 2),
            "victim_wait": wait_summary(r["waits"]), "holds": holds,
            "lock_busy": round(r["busy"], 4),
            "simulated_ms": round(r["simulated_us"] / 1000.0, 3)}
    if phases is not None:
        cell["victim_wait_by_phase"] = {
            ph: wait_summary(r["waits_by_phase"].get(ph, []))
            for ph in ("fault_in", "exit")}
    return cell


def run_anchor(cal, seed, name, scenario):
    rng = random.Random(cell_seed(seed, "anchor", name))
    gap = WORKLOAD["chunk_gap_us"]
    if scenario["kind"] == "pf1":
        p = PF1
        gens = [page_fault1(rng, scenario["batch"], p["fault_us_per_page"],
                            p["unmap_us_per_page"], p["pages_per_iteration"], gap)
                for _ in range(p["cpus"])]
        tagged = range(p["cpus"])
        holds = p["holds"]
    else:
        p = EXIT
        trim = scenario["trim"]
        gens = [exiting(rng, trim, trim, p["exit_us_per_page"], gap, WORKLOAD["jitter"])
                for _ in range(p["exiting"])]
        gens += [light(rng, p["light_refill_interval_us"])
                 for _ in range(p["cpus"] - p["exiting"])]
        tagged = range(p["exiting"])
        holds = p["holds"]
    r = simulate(gens, cal, rng, holds, 0.0, 0, WORKLOAD["warmup_fraction"], tagged)
    calls = r["calls"]
    return sum(calls) / len(calls) if calls else None, len(calls)


def anchors(cal, seed):
    out = []
    for name, source, value, scenario in ANCHORS:
        model, n = run_anchor(cal, seed, name, scenario)
        ratio = model / value if model else None
        out.append({"name": name, "anchor": "a" if name.startswith("ying") else "b",
                    "source": source, "anchor_us": value,
                    "model_us": r3(model), "ratio": r3(ratio), "calls": n,
                    "within_2x": ratio is not None and 0.5 <= ratio <= 2.0})
    return out


# ----------------------------------------------------------- calibration

def read_json(path):
    """PATH's JSON; UsageError (one line, exit 2) when unreadable or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise UsageError("%s is not JSON: %s" % (path, e))


def load_rows(path):
    data = read_json(path)
    rows = data if isinstance(data, list) else None
    if not rows or not any(isinstance(r, dict) and isinstance(r.get("holds"), dict)
                           for r in rows):
        raise UsageError("%s has no row with 'holds' (not a bench results.json?)" % path)
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("holds"), dict)]


def pages_of(path, h):
    if path == "refill":
        by_order = h.get("max_pages_by_order") or {}
        pages = by_order.get("0", h.get("max_pages"))
    else:
        pages = h.get("max_pages_asked") or h.get("max_pages")
    return pages if isinstance(pages, (int, float)) and pages > 0 else None


def fit(points):
    """points: {pages: [calls, total_us]} -> (fixed_us, per_page_us, how)."""
    xs = sorted(points)
    means = {x: points[x][1] / points[x][0] for x in xs}
    if len(xs) >= 2:
        n = len(xs)
        mx = sum(xs) / n
        my = sum(means[x] for x in xs) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (means[x] - my) for x in xs) / sxx
        fixed = my - slope * mx
        if slope > 0 and fixed >= 0:
            return fixed, slope, "least squares over %d transfer sizes" % n
    total_pages = sum(x * points[x][0] for x in xs)
    total_us = sum(points[x][1] for x in xs)
    return 0.0, total_us / total_pages, "mean hold / pages (fixed cost folded in)"


def calibrate(path):
    rows = load_rows(path)
    points = {p: {} for p in PATHS}
    timing = sorted({str(r.get("timing")) for r in rows if r.get("timing")})
    for r in rows:
        for p in PATHS:
            h = r["holds"].get(p)
            if not isinstance(h, dict):
                continue
            calls, total = h.get("calls"), h.get("total_us")
            pages = pages_of(p, h)
            if not (isinstance(calls, (int, float)) and calls > 0 and
                    isinstance(total, (int, float)) and total > 0 and pages):
                continue
            acc = points[p].setdefault(pages, [0, 0.0])
            acc[0] += calls
            acc[1] += total
    cal = {"source": "fitted to %s" % os.path.relpath(os.path.abspath(path), TOP),
           "timing": timing}
    for p in PATHS:
        if points[p]:
            fixed, slope, how = fit(points[p])
            cal[p] = {"fixed_us": round(fixed, 4), "per_page_us": round(slope, 5),
                      "from": how, "transfer_sizes": sorted(points[p])}
    if "free" not in cal and "refill" not in cal:
        raise UsageError("%s: no row has holds.free or holds.refill with calls and "
                         "max_pages" % path)
    cal.setdefault("free", dict(cal["refill"], **{"from": "refill's (no free data)"}))
    cal.setdefault("refill", dict(cal["free"], **{"from": "free's (no refill data)"}))
    cal.setdefault("drain", dict(cal["free"], **{"from": "free's (drains run "
                                                  "free_pcppages_bulk)"}))
    cal["handover_us"] = DEFAULT_CALIBRATION["handover_us"]
    cal["handover_per_waiter_us"] = DEFAULT_CALIBRATION["handover_per_waiter_us"]
    cal["handover_from"] = "default (a results.json does not measure it)"
    if "tcg" in timing:
        cal["note"] = ("emulator (TCG) hold times: per-page costs far above "
                       "hardware; the anchors are not expected to hold")
    return cal


# ------------------------------------------------- beside a measurement

MEASURED_PHASES = ("exit", "fault_in")
MEASURED_PATHS = ("free", "refill")
BASE_KIND = {"7.3": "mainline", "6.12": "6.12"}


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _pos(v):
    return _num(v) and v > 0


def measured_setting(row):
    """(knob, high_fraction) a measured row ran at: the values the guest
    read back, else the label's, else the defaults."""
    label = str(row.get("setting") or "")
    got = row.get("settings") if isinstance(row.get("settings"), dict) else {}
    knob = got.get("pcp_batch_scale_max")
    if not (_num(knob) and 0 <= knob <= 6):
        knob = None
        for part in label.split("k")[1:]:
            if part.isdigit() and int(part) <= 6:
                knob = int(part)
        if knob is None:
            knob = DEFAULT_KNOB
    hf = got.get("percpu_pagelist_high_fraction")
    hf = -1 if hf == -1 or (hf is None and label.startswith("hf-1")) else 0
    return int(knob), hf


def load_measured(path):
    """The tcg exit-storm rows of a bench results.json, with what the
    beside section needs; UsageError when there is none."""
    data = read_json(path)
    rows = []
    for r in data if isinstance(data, list) else []:
        if not (isinstance(r, dict) and r.get("timing") == "tcg" and
                r.get("scenario") == "exit-storm" and r.get("workload", "exit-storm")
                == "exit-storm" and isinstance(r.get("victim_lock_wait_by_phase"), dict)):
            continue
        waits = {}
        for ph in MEASURED_PHASES:
            w = r["victim_lock_wait_by_phase"].get(ph)
            waits[ph] = w.get("p99_us") if isinstance(w, dict) and _num(w.get("p99_us")) else None
        holds = r.get("holds") if isinstance(r.get("holds"), dict) else {}
        cost = {}
        for p in MEASURED_PATHS:
            h = holds.get(p) if isinstance(holds.get(p), dict) else {}
            calls, total = h.get("calls"), h.get("total_us")
            per = h.get("per_refill") if isinstance(h.get("per_refill"), dict) else {}
            pages = pages_of(p, h)
            p99 = h.get("p99_us") if _pos(h.get("p99_us")) else None
            c = {"calls": calls if _num(calls) else None,
                 "total_us": total if _num(total) else None,
                 "max_pages": pages, "p99_us": p99,
                 "pages_total": per.get("pages_total") if _pos(per.get("pages_total")) else None,
                 "per_page_us": None, "from": None, "mean_per_page_us": None,
                 "p99_per_page_us": p99 / pages if p99 and pages else None,
                 "mean_per_max_page_us": None}
            if _pos(calls) and _pos(total):
                if c["pages_total"]:
                    c["mean_per_page_us"] = total / c["pages_total"]
                if pages:
                    c["mean_per_max_page_us"] = total / (calls * pages)
            if c["mean_per_page_us"] is not None:
                c.update(per_page_us=c["mean_per_page_us"], **{"from": "mean"})
            elif c["p99_per_page_us"] is not None:
                c.update(per_page_us=c["p99_per_page_us"], **{"from": "p99"})
            cost[p] = c
        kernel, base = str(r.get("kernel")), str(r.get("base"))
        knob, hf = measured_setting(r)
        # a refill that took more than one hold: the chunked refill
        rh = holds.get("refill") if isinstance(holds.get("refill"), dict) else {}
        per = rh.get("per_refill") if isinstance(rh.get("per_refill"), dict) else {}
        chunked = bool(_pos(rh.get("max_pages")) and _pos(per.get("max_pages_per_refill"))
                       and rh["max_pages"] < per["max_pages_per_refill"])
        kind = BASE_KIND.get(base)
        note = None
        if kind is None:
            note = "base %s: no model kind (7.3 -> mainline, 6.12 -> 6.12)" % base
        elif chunked:
            if kind == "mainline":
                kind = "mainline-ck"
            else:
                kind, note = None, "chunked refill on %s: not modelled" % base
        rows.append({"base": base, "kernel": kernel, "setting": r.get("setting"),
                     "knob": knob, "high_fraction": hf, "chunked_refill": chunked,
                     "kind": kind, "note": note, "wait_p99_us": waits, "cost": cost})
    if not rows:
        raise UsageError("%s has no tcg exit-storm row with victim_lock_wait_by_phase "
                         "(not a bench results.json?)" % path)
    return rows


def model_label(knob, hf):
    for label, k, f in SETTINGS:
        if (k, f) == (knob, hf):
            return label
    return ("hf-1k%d" if hf == -1 else "k%d") % knob


def round5(v):
    return None if v is None else round(v, 5)


def times(v):
    return "%.0fx" % v if v >= 10 else "%.1fx" % v


def ratio(a, b):
    return a / b if _pos(a) and _pos(b) else None


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def spearman(pairs):
    """Rank correlation of (measured, model) pairs; None below 3 pairs or
    with no spread."""
    pairs = [(a, b) for a, b in pairs if _num(a) and _num(b)]
    if len(pairs) < 3:
        return None
    ra, rb = ranks([a for a, _ in pairs]), ranks([b for _, b in pairs])
    n = len(pairs)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else None


def beside(rows, cal, seed, index, source):
    """Each measured row beside the model at 2 CPUs (cells from INDEX or
    run here)."""
    kinds = {k: (c, cr) for k, c, cr in KINDS}
    cache = {}
    out = []
    for m in rows:
        entry = dict(m, model=None, ratio=None)
        if m["kind"] is not None:
            label = model_label(m["knob"], m["high_fraction"])
            key = (m["kind"], 2, label)
            if key not in index and key not in cache:
                chunked, chunked_refill = kinds[m["kind"]]
                cache[key] = run_cell(cal, seed, 2, label, m["knob"], m["high_fraction"],
                                      m["kind"], chunked, chunked_refill)
            cell = index.get(key) or cache[key]
            waits = {ph: cell["victim_wait_by_phase"][ph]["p99_us"] for ph in MEASURED_PHASES}
            waits["all"] = cell["victim_wait"]["p99_us"]
            cost = {}
            for p in MEASURED_PATHS:
                h, c = cell["holds"][p], m["cost"][p]
                mean = ratio(h["total_us"], h["pages_total"])
                p99 = ratio(h["p99_us"], h["max_pages"])
                per = mean if c["from"] == "mean" else p99
                cost[p] = {"per_page_us": round5(per), "mean_per_page_us": round5(mean),
                           "p99_per_page_us": round5(p99),
                           "max_pages": h["max_pages"], "hold_p99_us": h["p99_us"]}
            entry["model"] = {"cpus": 2, "setting": label, "wait_p99_us": waits,
                              "cost": cost, "lock_busy": cell["lock_busy"]}
            entry["ratio"] = {
                "wait_p99": {ph: r3(ratio(m["wait_p99_us"][ph], waits[ph]))
                             for ph in MEASURED_PHASES},
                "per_page": {p: r3(ratio(m["cost"][p]["per_page_us"], cost[p]["per_page_us"]))
                             for p in MEASURED_PATHS}}
        for p in MEASURED_PATHS:
            c = entry["cost"][p] = dict(m["cost"][p])
            for f in ("per_page_us", "mean_per_page_us", "p99_per_page_us",
                      "mean_per_max_page_us"):
                c[f] = round5(c[f])
        out.append(entry)
    modelled = [e for e in out if e["model"]]
    per_page = [e["ratio"]["per_page"][p] for e in modelled for p in MEASURED_PATHS
                if e["ratio"]["per_page"][p] is not None]
    trend = {}
    for base in sorted({e["base"] for e in modelled}):
        for kernel in sorted({e["kernel"] for e in modelled if e["base"] == base}):
            sel = [e for e in modelled if (e["base"], e["kernel"]) == (base, kernel)]
            trend["%s %s" % (base, kernel)] = {
                "settings": len(sel),
                "spearman": {ph: r3(spearman([(e["wait_p99_us"][ph],
                                               e["model"]["wait_p99_us"][ph]) for e in sel]))
                             for ph in MEASURED_PHASES}}
    default_cal = not str(cal.get("source", "")).startswith("fitted")
    return {
        "source": source, "model_cpus": 2,
        "per_page_estimator": (
            "'mean': total_us / holds.refill.per_refill.pages_total (the pages the "
            "refill path moved; newer results, refill only) where the row has it; else 'p99': holds.PATH.p99_us / max_pages "
            "(the p99 hold is one of the largest transfers; a log2 bucket's upper bound, "
            "up to 2x, with any vCPU preemption of the holder in it); the model's the "
            "same way from its own holds. model.json also has mean_per_max_page_us, "
            "total_us / (calls x max_pages), a lower bound that is far too low where "
            "most holds are small (refills in the exit storm)"),
        "per_page_ratio_range": [r3(min(per_page)), r3(max(per_page))] if per_page else None,
        "note": (
            ("The measurement is emulated (TCG, 2 vCPUs sharing the host's cores): its "
             "per-page hold costs are tens of times the model's real-hardware costs or "
             "more (%s here), and its waits include vCPU preemption, so the comparison is "
             "of the trend across settings, not of absolute values." % (
                 "%s to %s" % (times(min(per_page)), times(max(per_page)))
                 if per_page else "no ratio")
             ) if default_cal else
            ("The model's per-page costs are fitted to %s; the emulated per-page costs are "
             "tens of times a real machine's, so the comparison is of the trend across "
             "settings, not of absolute values." % cal["source"][len("fitted to "):])),
        "trend": trend, "rows": out}


# --------------------------------------------------------------- output

def us(v, unit=""):
    """A time in us for a table: 3 significant digits, ms from 10 ms on;
    UNIT " us" labels the us values too."""
    if v is None:
        return "-"
    if v >= 10000:
        return "%.1f ms" % (v / 1000.0)
    if v >= 100:
        return "%.0f%s" % (v, unit)
    if v >= 10:
        return "%.1f%s" % (v, unit)
    return "%.2f%s" % (v, unit)


def markdown(result):
    out = ["# zone->lock with many CPUs: the model", "",
           "`bench/model.py` (a discrete-event model; the assumptions at the end). "
           "Times in us unless marked ms.  Calibration: %s." % result["calibration"]["source"],
           "", "## Anchors", "",
           "| anchor | source | anchor | model | model/anchor |", "|---|---|---|---|---|"]
    for a in result["anchors"]:
        out.append("| %s | %s | %s | %s | %s%s |" % (
            a["name"], a["source"], us(a["anchor_us"]), us(a["model_us"]),
            "%.2f" % a["ratio"] if a["ratio"] is not None else "-",
            "" if a["within_2x"] else " **outside 2x**"))
    cpus = result["cpu_counts"]
    for kind, _, _ in KINDS:
        out += ["", "## %s: victim's zone->lock wait, p99 (mean)" % KIND_TITLE[kind], "",
                "Kind `%s`: %s." % (kind, KIND_TEXT[kind]), "",
                "| setting | " + " | ".join("%d CPUs" % n for n in cpus) + " |",
                "|---|" + "---|" * len(cpus)]
        for label, _, _ in SETTINGS:
            cells = []
            for n in cpus:
                c = result["index"][(kind, n, label)]
                v = c["victim_wait"]
                cells.append("%s (%s)" % (us(v["p99_us"]), us(v["mean_us"])))
            out.append("| %s | %s |" % (label, " | ".join(cells)))
    if any(n < 4 for n in cpus):
        out += ["", "Below 4 CPUs CPU 0 is the victim and CPU 1 the storm, faulting in "
                "%d pages and then exiting them, over and over (CPU 2 allocates lightly "
                "at 3 CPUs); the victim's wait p99 by the storm's phase:" % STORM_PAGES, "",
                "| kind | CPUs | setting | fault_in p99 | exit p99 |", "|---|---|---|---|---|"]
        for c in result["cells"]:
            if "victim_wait_by_phase" in c:
                ph = c["victim_wait_by_phase"]
                out.append("| %s | %d | %s | %s | %s |" % (
                    c["kind"], c["cpus"], c["setting"], us(ph["fault_in"]["p99_us"]),
                    us(ph["exit"]["p99_us"])))
    if result.get("measured"):
        out += markdown_measured(result["measured"])
    out += ["", "## Every cell", "",
            "victim wait: mean, p50, p99, p99.9, max; holds: the longest of each "
            "path (pages per hold); busy: fraction of time zone->lock is held.", "",
            "| kind | CPUs | setting | mean | p50 | p99 | p99.9 | max | free hold max "
            "| refill hold max | drain hold max | busy |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in result["cells"]:
        v, h = c["victim_wait"], c["holds"]
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
            c["kind"], c["cpus"], c["setting"], us(v["mean_us"]), us(v["p50_us"]),
            us(v["p99_us"]), us(v["p999_us"]), us(v["max_us"]),
            *("%s (%s)" % (us(h[p]["max_us"]), h[p]["max_pages"] or "-") for p in PATHS),
            c["lock_busy"]))
    cal = result["calibration"]
    out += ["", "## Calibration", "", "| path | fixed | per page | from |", "|---|---|---|---|"]
    for p in PATHS:
        out.append("| %s | %s | %s | %s |" % (p, us(cal[p]["fixed_us"]),
                                           "%.4f" % cal[p]["per_page_us"],
                                           cal[p].get("from", "default")))
    out.append("")
    out.append("Hand-over: %.3f us + %.4f us per waiter." % (
        cal["handover_us"], cal["handover_per_waiter_us"]))
    if cal.get("note"):
        out += ["", "Note: " + cal["note"] + "."]
    out += ["", "## Assumptions", ""] + ["- " + a for a in result["assumptions"]]
    return "\n".join(out) + "\n"


def ratio_text(v):
    return "-" if v is None else ("%.0f" % v if v >= 100 else "%.2g" % v if v < 10
                                  else "%.1f" % v)


def per_page_text(v):
    return "-" if v is None else "%.3g" % v


def markdown_measured(meas):
    out = ["", "## Beside the 2-vCPU measurement", "",
           "%s Measured: the tcg exit-storm rows of `%s` (2 vCPUs, emulated); model: "
           "2 CPUs, the same kind (7.3 -> mainline, or mainline-ck where its refills "
           "took several holds: patches/0006; 6.12 -> 6.12) and knob."
           % (meas["note"], meas["source"]), "",
           "Victim's zone->lock wait p99 (us), by phase of the storm; the model's phase "
           "is that of its storm CPU:", "",
           "| base | kernel | setting | model | exit: measured | model | measured/model "
           "| fault_in: measured | model | measured/model |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for e in meas["rows"]:
        m = e["model"]
        if m is None:
            out.append("| %s | %s | %s | %s | %s | - | - | %s | - | - |" % (
                e["base"], e["kernel"], e["setting"], e["note"],
                us(e["wait_p99_us"]["exit"]), us(e["wait_p99_us"]["fault_in"])))
            continue
        cols = []
        for ph in MEASURED_PHASES:
            cols += [us(e["wait_p99_us"][ph]), us(m["wait_p99_us"][ph]),
                     ratio_text(e["ratio"]["wait_p99"][ph])]
        out.append("| %s | %s | %s | %s %s | %s |" % (
            e["base"], e["kernel"], e["setting"], e["kind"], m["setting"], " | ".join(cols)))
    trend = meas["trend"]
    if trend:
        out += ["", "Trend: Spearman rank correlation across settings of the measured and "
                "the model's wait p99 (1: same order, 0: none; - below 3 settings): " +
                "; ".join("%s (%d setting(s)): exit %s, fault_in %s" % (
                    k, t["settings"], "-" if t["spearman"]["exit"] is None
                    else "%.2f" % t["spearman"]["exit"],
                    "-" if t["spearman"]["fault_in"] is None
                    else "%.2f" % t["spearman"]["fault_in"])
                    for k, t in trend.items()) + "."]
    out += ["", "Per-page hold cost (us per page), free and refill paths, 'from': %s." %
            meas["per_page_estimator"].split(" model.json also")[0].rstrip("."), "",
            "| base | kernel | setting | free: measured | from | model | "
            "measured/model | refill: measured | from | model | measured/model |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in meas["rows"]:
        cols = []
        for p in MEASURED_PATHS:
            c = e["cost"][p]
            mp = e["model"]["cost"][p]["per_page_us"] if e["model"] else None
            cols += [per_page_text(c["per_page_us"]), c["from"] or "-", per_page_text(mp),
                     ratio_text(e["ratio"]["per_page"][p] if e["ratio"] else None)]
        out.append("| %s | %s | %s | %s |" % (e["base"], e["kernel"], e["setting"],
                                              " | ".join(cols)))
    return out


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
               "discrete-event model (see the docstring for its assumptions)")
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
    result = {"model": "bench/model.py", "seed": args.seed,
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
