#!/usr/bin/python3
"""pcp_heuristics - the allocator checks that left the kselftest (in a guest).

The kselftest (tools/testing/selftests/mm/pcp_batch_test) tests only the ABI:
values, -1's high_min/high_max, one per-hold bound.  What the series does
below that bound is a heuristic of the allocator and tested here instead,
run by tests/run (guest pcp-heuristics):

  boot       the values a sysctl.vm.<name>= on the kernel command line set
             (checked first, before this program writes anything)
  refill     no order-0 refill moves more than batch << scale pages in its
             zone->lock hold (kmem:mm_page_pcpu_refill_hold), at
             scale 0, 2 and the boot value; the largest must reach half the
             bound (so above 0 a refill is not split into holds)
  refill-count  the same bound without 0002's events (posting 3 alone):
             the largest rise of the refilling CPU's pcp count in
             /proc/zoneinfo between two reads a few faults apart, at scale
             0 and 2, is at most batch << scale and reaches half of it
  drain      the drain of an offlined CPU (free_pcppages_bulk's count) asks
             for at most batch << scale pages, at scale 0 and 2
  trim       0001 and the knob on the free path: at scale 0 one trim of
             order-0 pages asks for at most batch pages in all its chunks
  thp-trim   0001: at scale 0 and -1 one trim after a THP free asks for at
             most batch pages in all its chunks (without 0001: three
             batches, free_count having passed 512)
  decay-step the knob on the decay path: at scale 0 a typical (median)
             decay_pcp_high() drains at most one batch (kprobes on its
             call and return, free_pcppages_bulk's counts summed per call)
  lowered    lowering the knob clamps an alloc_factor grown before: the
             refills after 5 -> 0 in the middle of a fault-in (no free on
             that CPU) move at most one batch
  events     the per-hold refill event fires after the unlock (interrupts
             on again in the refilling task)
  decay      under -1 every used CPU's pcp->high decays to 4 * batch
  auto       0 after -1 gives back high_min < high_max, and high grows
             above 4 * batch once the CPUs allocate

Refill sizes come from the series' per-hold refill event (a kprobe on
rmqueue_bulk() fails where gcc inlines it, as in the 7.3 guest build; the
checks that read it skip on a kernel without it, posting 3 alone), the
sizes asked of free_pcppages_bulk() from a kprobe event on it (x86_64
argument registers).  batch is the largest pcp->batch of any zone.  A bound
check that saw no transfer within a factor of two of its bound could not
have failed and prints a SKIP.

Usage: tests/guest/pcp_heuristics.py [boot]   (as root in a guest; exit 1 on
a failure; "boot": the boot values only)
"""
import mmap
import os
import re
import signal
import sys

from pcp_knobs import FRAC, SCALE, can_run, pagesets, read, report, status

TRACING = "/sys/kernel/tracing"
INST = TRACING + "/instances/pcp_heuristics"
PROBES = {
    "bulk_free": "p:pcph/bulk_free free_pcppages_bulk count=$arg2:s32",
    "decay": "p:pcph/decay decay_pcp_high",
    "decay_ret": "r:pcph/decay_ret decay_pcp_high",
}
MIB = 1 << 20
PROBED = set()
REFILL_EVENT = "mm_page_pcpu_refill_hold"


def write(path, value, append=False):
    """One write(2); append: O_APPEND without Python's seek to the end,
    which kprobe_events refuses on a write-only open."""
    fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, b"%s\n" % str(value).encode())
    finally:
        os.close(fd)


def max_batch():
    return max(p["batch"] for p in pagesets())


def online_cpus():
    return sorted({p["cpu"] for p in pagesets()})


def touch(cpu, size, thp=False, rounds=1):
    """In a child on CPU: fault in SIZE bytes and unmap them, ROUNDS times."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.sched_setaffinity(0, {cpu})
            for _ in range(rounds):
                # private: a shared mapping is shmem, which gets no THP here
                m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) if thp \
                    else mmap.mmap(-1, size)
                m.madvise(mmap.MADV_HUGEPAGE if thp else mmap.MADV_NOHUGEPAGE)
                for off in range(0, size, 2 * MIB if thp else 4096):
                    m[off] = 1
                m.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status:
        raise RuntimeError("the child on CPU %d failed (%#x)" % (cpu, status))
    return pid


LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+[\d.]+:\s+(\S+):\s+(.*)$")


def traced(events, work):
    """Run WORK with EVENTS ("group/name") on; the (pid, flags, event, fields)."""
    write(INST + "/trace", "")
    for e in events:
        write("%s/events/%s/enable" % (INST, e), 1)
    write(INST + "/tracing_on", 1)
    try:
        work()
    finally:
        write(INST + "/tracing_on", 0)
        for e in events:
            write("%s/events/%s/enable" % (INST, e), 0)
    out = []
    with open(INST + "/trace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                fields = dict(kv.split("=", 1) for kv in m.group(6).split() if "=" in kv)
                fields["_cpu"] = int(m.group(3))
                out.append((int(m.group(2)), m.group(4), m.group(5), fields))
    return out


def check_boot():
    cmd = open("/proc/cmdline").read().split()
    for name, path in (("pcp_batch_scale_max", SCALE), ("percpu_pagelist_high_fraction", FRAC)):
        want = [a.split("=", 1)[1] for a in cmd if re.fullmatch(r"sysctl[./]vm[./]%s=-?\d+" % name, a)]
        if not want:
            report(True, "boot: %s" % name, skip="not set on the kernel command line")
            continue
        got = read(path)
        report(got == int(want[-1]), "boot: %s=%s from the command line" % (name, want[-1]),
               "read %d" % got)


def check_bound(name, events, limit, scale, whole=False):
    """WHOLE: a transfer is one hold, so one under half the bound above
    one batch (scale > 0) means the refill was split: a failure, not a skip."""
    counts = [int(f["count"], 0) if e == "bulk_free" else int(f["nr_pages"])
              for _, _, e, f in events
              if e == "bulk_free" or e == REFILL_EVENT and int(f["order"]) == 0]
    if not counts:
        report(False, name, "no transfer seen")
        return
    big = max(counts)
    if big > limit:
        report(False, name, "asked for %d pages, bound %d" % (big, limit))
    elif 2 * big < limit and whole and scale > 0:
        report(False, name, "the largest of %d holds moved %d pages, under half the bound %d: "
               "a refill split into holds?" % (len(counts), big, limit))
    elif 2 * big < limit:
        report(True, name, skip="the largest of %d transfers was %d, under half the bound %d: could not fail"
               % (len(counts), big, limit))
    else:
        report(True, "%s (%d transfers, the largest %d)" % (name, len(counts), big))


def own(ev, pid):
    """The events of PID itself, not of interrupts on its CPU (irq-info
    flags).  'z'/'Z' (NMI) is how an int3 kprobe, not yet optimized, sees
    its own hit: the task's, not an interrupt's."""
    return [x for x in ev if x[0] == pid and not (len(x[1]) > 2 and x[1][2] in "hHsS")]


def has_refill_event():
    return os.path.exists("%s/events/kmem/%s" % (INST, REFILL_EVENT))


def refill_rises(cpu, size, step):
    """In a child on CPU: fault in SIZE bytes without freeing, reading
    /proc/zoneinfo every STEP pages; the largest rise of CPU's pcp count
    (all zones) between two reads.  A list refills only once empty, so at
    most one refill falls between two reads: the rise is its size less the
    pages taken since (a free burst on the CPU would add to it)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            os.sched_setaffinity(0, {cpu})
            m = mmap.mmap(-1, size)
            m.madvise(mmap.MADV_NOHUGEPAGE)

            def counts():
                return {p["zone"]: p["count"] for p in pagesets() if p["cpu"] == cpu}
            prev, rise = counts(), 0
            for i, off in enumerate(range(0, size, 4096)):
                m[off] = 1
                if i % step == step - 1:
                    now = counts()
                    rise = max([rise] + [now[z] - prev.get(z, 0) for z in now])
                    prev = now
            os.write(w, b"%d" % rise)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        out = f.read()
    _, st = os.waitpid(pid, 0)
    if st or not out:
        raise RuntimeError("the child on CPU %d failed (%#x)" % (cpu, st))
    return int(out)


def check_refill_count():
    """The refill bound read from /proc/zoneinfo alone: no tracepoint."""
    batch = max_batch()
    cpu = online_cpus()[-1]
    step = 8
    for scale in (0, 2):
        write(FRAC, 0)
        write(SCALE, scale)
        limit = batch << scale
        rise = refill_rises(cpu, 32 * MIB, step)
        name = ("refill-count: the pcp count of a refilling CPU rises by <= batch << %d = %d pages "
                "between two zoneinfo reads %d faults apart" % (scale, limit, step))
        if rise > limit:
            report(False, name, "it rose by %d pages: a refill above the bound" % rise)
        elif 2 * rise < limit:
            report(True, name, skip="the largest rise was %d, under half the bound %d: could not fail"
                   % (rise, limit))
        else:
            report(True, "%s (the largest %d)" % (name, rise))


def check_refill(default):
    if not has_refill_event():
        for name in ("refill", "events"):
            report(True, name, skip="the kernel lacks kmem:%s (posting 2)" % REFILL_EVENT)
        return
    batch = max_batch()
    held = []
    for scale in sorted({0, 2, default}):
        write(FRAC, 0)
        write(SCALE, scale)
        # more than the CPU's lists hold, which come first without a refill
        cpu = online_cpus()[0]
        cached = sum(p["count"] for p in pagesets() if p["cpu"] == cpu) * mmap.PAGESIZE
        pid = []
        ev = traced(["kmem/" + REFILL_EVENT], lambda: pid.append(touch(cpu, 64 * MIB + cached)))
        held += own(ev, pid[0])
        check_bound("refill: an order-0 refill moves <= batch << %d = %d pages in one zone->lock hold"
                    % (scale, batch << scale),
                    ev, batch << scale, scale, whole=True)
    # 0002 emits the per-hold event after the unlock, with interrupts on
    # again in the task's own context (flags "d...": interrupts off).  A
    # refill the task makes with interrupts already off (a few) fires with
    # them off either way; one fired inside every hold has them off always.
    inside = [x for x in held if x[1][:1] in ("d", "D")]
    report(bool(held) and 2 * len(inside) < len(held),
           "events: %s fires after the zone->lock hold (%d of %d with interrupts on)"
           % (REFILL_EVENT, len(held) - len(inside), len(held)),
           "%d of %d fired with interrupts off: inside the hold?" % (len(inside), len(held))
           if held else "no refill event of the task")


def trim_groups(cpu, size, thp=False, rounds=1):
    """The task's frees on CPU: one group per free event, with the pages its
    trim asked free_pcppages_bulk() for (all chunks), and whether the page
    freed was a THP.  A batched free (mm_page_free_batched, no order) takes
    the order its page had in the mm_page_free of free_pages_prepare()."""
    pmd = read("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") // mmap.PAGESIZE
    pid = []
    ev = traced(["pcph/bulk_free", "kmem/mm_page_free", "kmem/mm_page_free_batched"],
                lambda: pid.append(touch(cpu, size, thp=thp, rounds=rounds)))
    groups, cur, order = [], None, {}
    for _, _, e, f in own(ev, pid[0]):
        if e == "mm_page_free":
            order[f["pfn"]] = int(f["order"])
        if e in ("mm_page_free", "mm_page_free_batched"):
            cur = {"thp": 1 << order.get(f["pfn"], 0) >= pmd, "sum": 0}
            groups.append(cur)
        elif e == "bulk_free" and cur is not None:
            cur["sum"] += int(f["count"], 0)
    return groups


def report_within_batch(name, sizes, batch, what):
    """One result for SIZES that must stay within one batch: a failure
    naming those over it; a skip when none reached half a batch (the check
    could not have failed); else how many and the largest."""
    over = [x for x in sizes if x > batch]
    if over:
        report(False, name, "%s of %r pages, batch %d" % (what, over[:5], batch))
    elif not sizes or 2 * max(sizes) < batch:
        report(True, name, skip="no %s of half a batch or more: could not fail" % what)
    else:
        report(True, "%s (%d %s, the largest %d)" % (name, len(sizes), what, max(sizes)))


def check_trim():
    """0001 and the knob on the free path: at scale 0 free_count is capped at
    one batch, so a trim of order-0 pages asks for one batch in all."""
    name = "trim: at scale 0 one trim of order-0 pages asks for <= batch pages in all its chunks"
    batch = max_batch()
    write(FRAC, 0)
    write(SCALE, 0)
    sums = [g["sum"] for g in trim_groups(online_cpus()[-1], 64 * MIB) if g["sum"]]
    report_within_batch(name, sums, batch, "trims")


def check_drain():
    cpu = online_cpus()[-1]
    path = "/sys/devices/system/cpu/cpu%d/online" % cpu
    if cpu == 0 or not os.access(path, os.W_OK):
        report(True, "drain", skip="no CPU but the first can be offlined")
        return
    batch = max_batch()
    for scale in (0, 2):
        write(FRAC, 8)          # 1/8 of the zone: the pages stay on the lists
        write(SCALE, scale)
        touch(cpu, 16 * MIB)

        def offline():
            write(path, 0)
        try:
            ev = traced(["pcph/bulk_free"], offline)
        finally:
            write(path, 1)
        check_bound("drain: an offlined CPU's drain asks for <= batch << %d = %d pages" % (scale, batch << scale),
                    ev, batch << scale, scale)


def check_thp_trim():
    """0001: at scale 0 free_count saturates at one batch, also when a THP
    (512 pages) lands on a count below it.  Under -1 (high 4 * batch) each
    THP free trims at once, asking for clamp(free_count, batch, high -
    batch): one batch with 0001, three without it (free_count past 512)."""
    name = "thp-trim: at scale 0 one trim after a THP free asks for <= batch pages"
    try:
        enabled = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        enabled = "[never]"
    if "[never]" in enabled:
        report(True, name, skip="transparent hugepages are not available")
        return
    batch = max_batch()
    write(FRAC, -1)
    write(SCALE, 0)
    groups = trim_groups(online_cpus()[-1], 4 * MIB, thp=True, rounds=8)
    thp = [g["sum"] for g in groups if g["thp"] and g["sum"]]
    report_within_batch(name, thp, batch, "trims after a THP free")


def check_decay_step():
    """The knob on the decay path: decay_pcp_high() lowers high by at most
    batch << scale below count, so at scale 0 one decay drains at most one
    batch (in all its chunks).  High must first grow well above 8 batches
    (refills at scale 0 raise it one batch each), so that the 1/8 step
    alone would drain more."""
    name = "decay-step: at scale 0 a typical decay_pcp_high() drains <= batch pages in all its chunks"
    if not {"decay", "decay_ret"} <= PROBED:
        report(True, name, skip="no kprobe on decay_pcp_high (inlined?)")
        return
    batch = max_batch()
    write(FRAC, 0)
    write(SCALE, 0)
    touch(online_cpus()[-1], 64 * MIB)

    def refresh():
        for _ in range(3):
            write("/proc/sys/vm/stat_refresh", 1)
    # a decay is its call to its return: a kworker runs other work (a
    # drain) between two decays
    steps, cur = [], {}
    for pid, _, e, f in traced(["pcph/decay", "pcph/decay_ret", "pcph/bulk_free"], refresh):
        key = (pid, f["_cpu"])
        if e == "decay":
            cur[key] = [0]
            steps.append(cur[key])
        elif e == "decay_ret":
            cur.pop(key, None)
        elif key in cur:
            cur[key][0] += int(f["count"], 0)
    # A call that finds high at or below high_min drains count - high at
    # once, which no scale bounds (by the code; the likely source of one
    # call of 14630 pages in a CI run of the unmutated series): the bound
    # holds for the calls that lower high, the typical call, so the
    # median must stay within it.
    sums = sorted(x[0] for x in steps if x[0])
    mid = sums[len(sums) // 2] if sums else 0
    if mid > batch:
        report(False, name, "median decay drain %d pages (of %r), batch %d" % (mid, sums, batch))
    elif 2 * mid < batch:
        report(True, name, skip="no typical decay drained half a batch: could not fail (%r)" % sums)
    else:
        report(True, "%s (%d decays drained, median %d, the largest %d)"
               % (name, len(sums), mid, sums[-1]))


def check_lowered(default):
    """Lowering the knob takes effect at the next refill: an alloc_factor
    grown at DEFAULT (the boot value) is clamped to the new one, even when no
    free on that CPU has halved it since.  A child faults in 1 GiB on one
    CPU without freeing; a quarter in, the knob goes to 0, and every refill
    of the child after that moves at most one batch."""
    name = "lowered: the refills after the knob is lowered to 0 mid-load move <= batch pages"
    if not has_refill_event():
        report(True, name, skip="the kernel lacks kmem:%s (posting 2)" % REFILL_EVENT)
        return
    batch = max_batch()
    cpu = online_cpus()[-1]
    size = 1 << 30
    write(FRAC, 0)
    write(SCALE, default)
    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.sched_setaffinity(0, {cpu})
            m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            m.madvise(mmap.MADV_NOHUGEPAGE)
            for off in range(0, size, 4096):
                m[off] = 1
                if off == size // 4:
                    os.kill(parent, signal.SIGUSR1)
            os.kill(parent, signal.SIGUSR1)
            signal.sigwait({signal.SIGUSR1})
            code = 0
        finally:
            os._exit(code)
    try:
        os.sched_setaffinity(0, {online_cpus()[0]})
        signal.sigwait({signal.SIGUSR1})
        write(SCALE, 0)
        ev = traced(["kmem/" + REFILL_EVENT], lambda: signal.sigwait({signal.SIGUSR1}))
    finally:
        os.kill(pid, signal.SIGUSR1)
        os.waitpid(pid, 0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
        os.sched_setaffinity(0, set(online_cpus()))
    counts = [int(f["nr_pages"]) for _, _, e, f in own(ev, pid)
              if e == REFILL_EVENT and int(f["order"]) == 0]
    report_within_batch(name, counts, batch, "refills after lowering")


def check_decay(default):
    """Under -1 every used pcp->high decays to 4 * batch.  At the knob's
    default: at 0 a decay gives back one batch, and a list filled under
    auto-tuning (check_lowered's child frees 1 GiB on one CPU) takes one
    stat_refresh per batch, 338 for a 21546-page list (a CI run's, with
    the knob left at 0 by the check before).  Rounds go on while a high
    or count still moves, up to 2000; a high that stops above 4 * batch
    fails."""
    write(SCALE, default)
    write(FRAC, -1)
    for cpu in online_cpus():
        touch(cpu, 4 * MIB)
    rounds, before = 0, None
    while rounds < 2000:
        sets = pagesets()
        left = [p for p in sets if p["high"] not in (0, 4 * p["batch"])]
        state = [(p["high"], p["count"]) for p in sets]
        if not left or state == before:
            break
        before = state
        write("/proc/sys/vm/stat_refresh", 1)
        rounds += 1
    used = {p["cpu"] for p in pagesets() if p["high"] == 4 * p["batch"]}
    name = "decay: under -1 every used pcp->high decays to 4 * batch"
    ok = not left and used == set(online_cpus())
    report(ok, "%s (%d writes of stat_refresh)" % (name, rounds) if ok else name,
           "still off after %d writes of stat_refresh: %r; "
           "CPUs at the minimum: %r" % (rounds, left[:3], sorted(used)))


def check_auto():
    write(FRAC, -1)
    write(FRAC, 0)
    ranges = [p for p in pagesets() if p["high_min"] < p["high_max"]]
    for cpu in online_cpus():
        touch(cpu, 32 * MIB)
    grown = [p for p in pagesets() if p["high"] > 4 * p["batch"]]
    report(bool(ranges) and bool(grown), "auto: 0 after -1 gives back auto-tuning (high_min < high_max, high grows)",
           "%d pagesets with high_min < high_max, %d with high above 4 * batch" % (len(ranges), len(grown)))


def main():
    if not can_run():
        return 4
    check_boot()
    if sys.argv[1:] == ["boot"]:
        return status()
    saved = (read(SCALE), read(FRAC))
    added = []
    try:
        os.makedirs(INST, exist_ok=True)
        for name, probe in PROBES.items():
            try:
                write(TRACING + "/kprobe_events", probe, append=True)
            except OSError:
                if name == "bulk_free":
                    raise
                continue
            added.append(name)
            PROBED.add(name)
        check_refill(saved[0])
        check_refill_count()
        check_drain()
        check_trim()
        check_thp_trim()
        check_decay_step()
        check_lowered(saved[0])
        check_decay(saved[0])
        check_auto()
    finally:
        write(SCALE, saved[0])
        write(FRAC, saved[1])
        if os.path.isdir(INST):
            os.rmdir(INST)
        for name in added:
            write(TRACING + "/kprobe_events", "-:pcph/" + name, append=True)
    return status()


if __name__ == "__main__":
    sys.exit(main())
