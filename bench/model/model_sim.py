"""model_sim - the model of bench/model/model.py: one zone->lock, many CPUs.

The constants (settings, kernel kinds, default costs, workload, anchors and
the assumptions model.json lists), simulate() (a FIFO zone->lock and its
request generators, sampled by zero-cost probes), the generators of each
kind of CPU, run_cell() (one kind x CPU count x setting) and anchors()
(the published figures it must reproduce).  What it models and ignores:
docs/model.md.
"""
import bisect
import heapq
import math
import os
import sys
import random
import zlib
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from stats import r3, summary

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BATCH = 63
CPU_COUNTS = (16, 32, 64, 128, 256)
MAX_CPUS = 4096
DEFAULT_KNOB = 5        # CONFIG_PCP_BATCH_SCALE_MAX's default
# label, vm.pcp_batch_scale_max, vm.percpu_pagelist_high_fraction
SETTINGS = [("k%d" % k, k, 0) for k in range(7)] + [("hf-1", DEFAULT_KNOB, -1)]
# kind, free path in pcp->batch chunks (91e691296646), refill in pcp->batch
# chunks (docs/experiments/chunked-refill.patch)
KINDS = (("mainline", True, False), ("6.12", False, False), ("mainline-ck", True, True))
KIND_TEXT = {
    "mainline": "free path in pcp->batch holds (91e691296646), one hold per refill",
    "6.12": "one zone->lock hold per trim and per refill",
    "mainline-ck": "mainline + the chunked-refill experiment (docs/experiments/): free path and "
                   "refills in pcp->batch holds",
}
KIND_TITLE = {
    "mainline": "mainline",
    "6.12": "6.12",
    "mainline-ck": "mainline + the chunked-refill experiment",
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
    "(the experiment) also splits a refill into pcp->batch holds 0.05 us "
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

class Lock:
    """One FIFO zone->lock and the CPUs' request generators (simulate())."""

    def __init__(self, gens, cal, rng, probes, warm_holds, tagged):
        self.gens, self.rng, self.probes = gens, rng, probes
        self.fixed = {p: cal[p]["fixed_us"] for p in PATHS}
        self.per_page = {p: cal[p]["per_page_us"] for p in PATHS}
        self.h0, self.h1 = cal["handover_us"], cal["handover_per_waiter_us"]
        self.tagged, self.warm_holds = set(tagged), warm_holds
        self.heap, self.seq, self.queue = [], 0, deque()
        self.holds = {p: [] for p in PATHS}
        self.pages_max = {p: 0 for p in PATHS}
        self.pages_total = {p: 0 for p in PATHS}
        self.waits, self.wait_t, self.calls = [], [], []
        self.busy = 0.0
        self.t_free = 0.0        # the lock is free from this time on
        self.current = None      # the request whose release is t_free
        self.last = None         # the last request admitted to the queue
        self.n_holds = 0
        self.t_warm = None
        self.next_probe, self.probe_rate = math.inf, 0.0
        for i, g in enumerate(gens):
            delay, path, pages = next(g)
            self.push(delay, i, path, pages)

    def push(self, t, cpu, path, pages):
        heapq.heappush(self.heap, (t, self.seq, cpu, path, pages))
        self.seq += 1

    def admit(self):
        """Queue the next arrival; the probes before it belong to the one
        before."""
        entry = heapq.heappop(self.heap)
        while self.next_probe < entry[0]:
            self.attach(self.next_probe)
            self.next_probe += self.rng.expovariate(self.probe_rate)
        # arrival, cpu, path, pages, release, probes
        self.last = [entry[0], entry[2], entry[3], entry[4], None, None]
        return self.last

    def attach(self, tp):
        """A probe at tp waits for the last request that arrived before it."""
        last = self.last
        if last is None or (last[4] is not None and last[4] <= tp):
            self.waits.append(0.0)
            self.wait_t.append(tp)
        elif last[5] is None:
            last[5] = [tp]
        else:
            last[5].append(tp)

    def release_probes(self):
        """The probes up to the release of the current hold: their waits."""
        while self.next_probe <= self.t_free:
            self.attach(self.next_probe)
            self.next_probe += self.rng.expovariate(self.probe_rate)
        if self.current[5]:
            ho = self.h0 + self.h1 * (len(self.queue) + 1)
            for tp in self.current[5]:
                self.waits.append(self.t_free - tp + ho if self.t_free > tp else 0.0)
                self.wait_t.append(tp)
            self.current[5] = None

    def count(self, req, hold, release, holds_target, min_us):
        """A hold's figures once warm; the warm-up's end and the probes'
        rate when it ends."""
        ta, cpu, path, pages = req[0], req[1], req[2], req[3]
        if self.t_warm is not None:
            self.holds[path].append(hold)
            self.busy += hold
            self.pages_total[path] += pages
            self.pages_max[path] = max(self.pages_max[path], pages)
            if cpu in self.tagged and path == "free":
                self.calls.append(release - ta)
        elif self.n_holds >= self.warm_holds:
            self.t_warm = release
            per_hold = self.t_warm / self.n_holds
            span = max(min_us - self.t_warm, (holds_target - self.n_holds) * per_hold)
            if self.probes and span > 0:
                self.probe_rate = self.probes / span
                self.next_probe = self.t_warm + self.rng.expovariate(self.probe_rate)

    def run(self, holds_target, min_us):
        while True:
            while self.heap and self.heap[0][0] <= self.t_free:
                self.queue.append(self.admit())
            if self.current is not None:
                self.release_probes()
            if self.n_holds >= holds_target and self.t_free >= min_us:
                break
            if self.queue:
                req = self.queue.popleft()
                start = self.t_free + self.h0 + self.h1 * (len(self.queue) + 1)
            elif self.heap:
                req = self.admit()
                start = req[0]
            else:
                break
            hold = self.fixed[req[2]] + self.per_page[req[2]] * req[3]
            release = req[4] = start + hold
            self.n_holds += 1
            self.count(req, hold, release, holds_target, min_us)
            self.t_free, self.current = release, req
            try:
                delay, path, pages = self.gens[req[1]].send(release)
            except StopIteration:
                continue
            self.push(release + delay, req[1], path, pages)


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
    lock = Lock(gens, cal, rng, probes, max(1, int(holds_target * warmup)), tagged)
    lock.run(holds_target, min_us)
    span = lock.t_free - (lock.t_warm or 0.0)
    out = {"holds": lock.holds, "pages_max": lock.pages_max, "pages_total": lock.pages_total,
           "waits": lock.waits, "calls": lock.calls,
           "simulated_us": span, "busy": lock.busy / span if span > 0 else 0.0}
    if phases is not None:
        starts = [t for t, _ in phases]
        by_phase = {}
        for tp, w in zip(lock.wait_t, lock.waits):
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


def held(parts, delay, gap, path):
    """One transfer as its zone->lock holds: PARTS pages each, the first
    DELAY after the previous release, the others GAP apart; returns the
    release time of the last (what the simulation sends back)."""
    now = None
    for i, n in enumerate(parts):
        now = yield (delay if i == 0 else gap), path, n
    return now


def transfers(rng, path, pages, chunk, us_per_page, gap, jitter):
    """A CPU that moves PAGES at a time on PATH, after pages x us_per_page
    of work (jittered), in holds of CHUNK pages GAP apart: "free", a CPU in
    exit_mmap() trimming its list each time it is full; "refill", a CPU
    faulting memory in, refilling each time its list runs out (in chunks
    on mainline-ck, else one hold)."""
    parts = chunks(pages, chunk)
    delay = rng.uniform(0, pages * us_per_page)
    while True:
        yield from held(parts, delay, gap, path)
        delay = pages * us_per_page * rng.uniform(1 - jitter, 1 + jitter)


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
            now = yield from held(rparts, delay, gap, "refill")
            delay = refill * fault_us * jit()
        # the last refill's pages faulted in, the storm exits
        phases.append((now + delay, "exit"))
        delay += trim * exit_us * jit()
        for _ in range(n_trim):
            now = yield from held(fparts, delay, gap, "free")
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
        # now: the release of the last chunk
        now = yield from held(parts, t - now, gap, "drain")


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


def hold_summary(r):
    """simulate()'s holds per path: count, pages, time."""
    holds = {}
    for p in PATHS:
        s = summary(r["holds"][p])
        holds[p] = {"calls": s["samples"], "max_pages": r["pages_max"][p] or None,
                    "pages_total": r["pages_total"][p],
                    "total_us": r3(sum(r["holds"][p])),
                    "mean_us": s["mean_us"], "p50_us": s["p50_us"],
                    "p99_us": s["p99_us"], "max_us": s["max_us"]}
    return holds


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
            gens.append(transfers(rng, "free", trim, free_chunk,
                                  w["exit_work_us_per_page"], gap, w["jitter"]))
            gens.append(transfers(rng, "refill", refill, refill_chunk,
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
    cell = {"kind": kind, "cpus": cpus, "setting": label, "knob": knob,
            "high_fraction": high_fraction, "high": high, "workload": split,
            "trim_pages": trim, "refill_pages": refill,
            "free_pages_per_hold": min(trim, free_chunk),
            "refill_pages_per_hold": min(refill, refill_chunk),
            "drain_pages_per_hold": min(bound, high - trim // 2),
            "victim_wait": wait_summary(r["waits"]), "holds": hold_summary(r),
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
        gens = [transfers(rng, "free", trim, trim, p["exit_us_per_page"], gap,
                          WORKLOAD["jitter"]) for _ in range(p["exiting"])]
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
