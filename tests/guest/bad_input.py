#!/usr/bin/python3
"""bad_input - throw malformed writes at the two pcp sysctls (in a guest).

For every input: the outcome the kernel's integer sysctl parsing defines
(kernel/sysctl.c, __do_proc_dointvec() with proc_dointvec_minmax()): the
errno, or the value that must result; the value read back; and, with
percpu_pagelist_high_fraction pinned at -1, /proc/zoneinfo's high and batch
of every CPU and zone, which must not move.  Also: writes by an unprivileged
user, and by root of a user namespace that user made, are refused.

Prints one "ok - ..."/"not ok - ..." line per check; exit 1 on any failure.
"""
import ctypes
import errno
import gzip
import os
import sys

from pcp_knobs import FRAC, SCALE, can_run, pagesets, read, report, status

EINVAL = errno.EINVAL

# (input, outcome): outcome is an errno, or ("value", N) for an accepted form,
# or ("ignored", None) for a write the kernel takes but does not apply.
COMMON = [
    (b"", ("value", None)),             # zero-length: nothing written
    (b"\n", EINVAL),
    (b" ", EINVAL),
    (b"\t\n", EINVAL),
    (b"abc", EINVAL),
    (b"three", EINVAL),
    (b"+1", EINVAL),                    # no '+' sign
    (b"- 1", EINVAL),
    (b"--1", EINVAL),
    (b"1e3", EINVAL),
    (b"2.0", EINVAL),
    (b"2,", EINVAL),
    (b"2x", EINVAL),
    (b"0x", EINVAL),
    (b"08", EINVAL),                    # base 0: octal, 8 is no digit
    (b"\x002", EINVAL),
    (b"2\x00", EINVAL),
    (b"\xff", EINVAL),
    (b"2147483648", EINVAL),            # INT_MAX + 1
    (b"-2147483649", EINVAL),
    (b"4294967296", EINVAL),
    (b"9223372036854775808", EINVAL),
    (b"18446744073709551616", EINVAL),
    (b"1" * 30, EINVAL),                # longer than the parser's buffer
    (b"1" * 5000, EINVAL),
    (b"0x" + b"f" * 40, EINVAL),
    (b"-2147483648", EINVAL),           # INT_MIN: parsed, then out of range
]
SCALE_CASES = COMMON + [
    (b"7", EINVAL), (b"7\n", EINVAL), (b"-1", EINVAL), (b"100", EINVAL),
    (b"0x7", EINVAL), (b"07", EINVAL), (b"-0x1", EINVAL),
    (b"2\n", ("value", 2)), (b" 2", ("value", 2)), (b"\t6\n", ("value", 6)),
    (b"6", ("value", 6)),
    (b"0x3", ("value", 3)), (b"04", ("value", 4)), (b"-0", ("value", 0)),
    (b"5 \n\n", ("value", 5)), (b"1\t", ("value", 1)),
]
FRAC_CASES = COMMON + [
    (b"-2", EINVAL), (b"1", EINVAL), (b"7", EINVAL), (b"7\n", EINVAL),
    (b"-0x2", EINVAL), (b"07", EINVAL), (b"0x1", EINVAL),
    (b"-1\n", ("value", -1)), (b" -1", ("value", -1)), (b"8", ("value", 8)),
    (b"010", ("value", 8)), (b"0x10", ("value", 16)), (b"0\n", ("value", 0)),
    (b"-0", ("value", 0)), (b"2147483647", ("value", 2147483647)),
]

def kconfig_scale():
    """CONFIG_PCP_BATCH_SCALE_MAX of the running kernel (the guest configs
    have IKCONFIG_PROC), or None."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            for line in f:
                if line.startswith("CONFIG_PCP_BATCH_SCALE_MAX="):
                    return int(line.split("=", 1)[1])
    except OSError:
        pass
    return None


def scale_cases(limit):
    """SCALE_CASES for a kernel built with CONFIG_PCP_BATCH_SCALE_MAX=limit:
    the sysctl only lowers it, so a value above it is refused; the value
    just above it, and the limit itself, are tried whatever it is."""
    cases = [(data, EINVAL if outcome[1:] and outcome[1] is not None and outcome[1] > limit
              else outcome) if isinstance(outcome, tuple) else (data, outcome)
             for data, outcome in SCALE_CASES]
    return cases + [(b"%d\n" % (limit + 1), EINVAL), (b"%d" % limit, ("value", limit))]


def write(path, data, offset=0):
    """The write(2) outcome: bytes taken, or -errno (of open(2) or write(2))."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return -e.errno
    try:
        if offset:
            return os.pwrite(fd, data, offset)
        return os.write(fd, data)
    except OSError as e:
        return -e.errno
    finally:
        os.close(fd)


def zoneinfo():
    """(zone, cpu, high, batch) of every pageset, in file order."""
    return [(p["zone"], p["cpu"], p["high"], p["batch"]) for p in pagesets()]


def zoneinfo_same(before, after):
    """No movement a write could have caused.

    Under -1 every CPU's high_min and high_max are 4 * batch, but pcp->high,
    which zoneinfo shows, is dynamic: a CPU's first use of a zone takes it
    from 0 to 4 * batch, and a high left from an earlier fraction only decays
    toward 4 * batch (decay_pcp_high, nr_pcp_high).  Any other change, a
    high that rises or lands off the minimum, or a batch that moves, fails.
    """
    if len(before) != len(after):
        return False
    for (z, c, h, b), (z2, c2, h2, b2) in zip(before, after):
        if (z, c, b) != (z2, c2, b2):
            return False
        if h != h2 and not (h == 0 and h2 == 4 * b) and not 4 * b <= h2 < h:
            return False
    return True


def settle():
    """Decay every CPU's high to the -1 minimum (stat_refresh runs
    decay_pcp_high on each CPU); give up after 200 rounds."""
    for _ in range(200):
        if all(h in (0, 4 * b) for _, _, h, b in zoneinfo()):
            return True
        write("/proc/sys/vm/stat_refresh", b"1\n")
    return False


def show(data):
    s = repr(data)
    return s if len(s) <= 40 else s[:37] + "...'"


def run_cases(path, cases, start):
    name = os.path.basename(path)
    write(FRAC, b"-1\n")
    report(settle(), "%s: before the inputs, every CPU's high settles at 4 * batch under -1" % name,
           "still off the minimum: %r" % [e for e in zoneinfo() if e[2] not in (0, 4 * e[3])][:4])
    for data, outcome in cases:
        write(path, b"%d\n" % start)
        zi = zoneinfo()
        ret = write(path, data)
        got = read(path)
        label = "%s <- %s" % (name, show(data))
        if isinstance(outcome, int):
            same = zoneinfo_same(zi, zoneinfo())
            ok = ret == -outcome and got == start and same
            report(ok, label + ": EINVAL, unchanged",
                   "write returned %d, value %d (was %d)%s" %
                   (ret, got, start, "" if same else ", zoneinfo moved"))
        else:
            want = start if outcome[1] is None else outcome[1]
            ok = ret >= 0 and got == want
            report(ok, label + ": accepted as %d" % want, "write returned %d, value %d" % (ret, got))
    # A write at a non-zero offset is ignored (kernel.sysctl_writes_strict=1).
    write(path, b"%d\n" % start)
    ret = write(path, b"0\n", offset=1)
    report(ret == 2 and read(path) == start, "%s <- b'0\\n' at offset 1: ignored" % name,
           "write returned %d, value %d" % (ret, read(path)))
    # Two values in one write: the first is applied, the rest left unwritten.
    ret = write(path, b"%d %d\n" % (start, start))
    report(read(path) == start and 0 < ret < len(b"%d %d\n" % (start, start)),
           "%s <- two values: the first one taken, a short write" % name,
           "write returned %d, value %d" % (ret, read(path)))


def refused_unprivileged(path, userns):
    """Fork; drop to nobody (and make a user namespace); try to write."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 250
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            if userns:
                libc = ctypes.CDLL(None, use_errno=True)
                # setuid() made the task non-dumpable, which would leave
                # /proc/self/uid_map owned by root
                libc.prctl(4, 1, 0, 0, 0)      # PR_SET_DUMPABLE
                if libc.unshare(0x10000000):    # CLONE_NEWUSER
                    raise OSError(ctypes.get_errno(), "unshare")
                with open("/proc/self/uid_map", "w") as f:
                    f.write("0 65534 1")
                if os.geteuid() != 0:
                    raise OSError(errno.EINVAL, "not root in the namespace")
            code = -write(path, b"3\n")
        except BaseException as e:  # the child must never return to main()
            code = 200 + (getattr(e, "errno", 0) or 0) % 50
        finally:
            os.write(w, b"%d" % code)
            os._exit(0)
    os.close(w)
    code = int(os.read(r, 16) or b"-1")
    os.waitpid(pid, 0)
    return code


def main():
    if not can_run():
        return 4
    saved = (read(SCALE), read(FRAC))
    limit = kconfig_scale()
    report(limit is not None, "CONFIG_PCP_BATCH_SCALE_MAX read from /proc/config.gz: %s" % limit,
           "the guest kernel lacks IKCONFIG_PROC or the option")
    if limit is None:
        return status()
    cases = scale_cases(limit)
    try:
        # -1 pins every CPU's high: zoneinfo must then stay exactly put.
        write(FRAC, b"-1\n")
        run_cases(SCALE, cases, min(3, limit))
        write(SCALE, b"%d\n" % saved[0])
        run_cases(FRAC, FRAC_CASES, -1)
        write(FRAC, b"-1\n")
        for path in (SCALE, FRAC):
            before = read(path)
            for userns in (False, True):
                code = refused_unprivileged(path, userns)
                who = "root of an unprivileged user namespace" if userns else "an unprivileged user"
                report(code in (errno.EACCES, errno.EPERM) and read(path) == before,
                       "%s: a write by %s is refused" % (os.path.basename(path), who),
                       "outcome %d, value %d (was %d)" % (code, read(path), before))
    finally:
        write(SCALE, b"%d\n" % saved[0])
        write(FRAC, b"%d\n" % saved[1])
    print("# %d inputs to pcp_batch_scale_max, %d to percpu_pagelist_high_fraction"
          % (len(cases) + 2, len(FRAC_CASES) + 2))
    return status()


if __name__ == "__main__":
    sys.exit(main())
