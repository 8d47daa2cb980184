#!/usr/bin/python3
"""test_workloads - bench/guest/workloads.c on the host, small, and bench/analysis/workloads.py
on made-up lines (tests/run -t workloads-host).  KTAP output.

Each workload must print one JSON line in bench/micro's form with a
positive figure; a bad workload name or option must exit 2.  The rows
bench/analysis/workloads.py adds to results.json must have the shape of
bench/analysis/results.py's micro rows (micro:NAME at def, micro-sweep:NAME at the
other settings), a coefficient of variation and a change against the
unpatched kernel; bench/analysis/report.py writes them, and a second run
rewrites, not doubles, them.
"""
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
import workloads  # noqa: E402
from ktap import Ktap  # noqa: E402

K = Ktap()
check = K.result


def run_binary(tmp):
    exe = os.path.join(tmp, "workloads")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", exe,
                    os.path.join(TOP, "bench", "guest", "workloads.c")], check=True)
    cases = (("page_fault1_processes", ["-s", "8", "-l", "1"]),
             ("page_fault1_threads", ["-s", "8", "-l", "1"]),
             ("page_fault2_processes", ["-s", "8", "-l", "1", "-d", tmp]),
             ("page_fault2_threads", ["-s", "8", "-l", "1", "-d", tmp]),
             ("lru-file-mmap-read", ["-s", "16", "-d", tmp]),
             ("anon-w-seq", ["-s", "16"]),
             ("mmap-write-unmap", ["-s", "8", "-l", "2", "-L", "test"]))
    for probe, args in cases:
        p = subprocess.run([exe] + args + [probe], capture_output=True, text=True)
        try:
            r = json.loads(p.stdout)
        except ValueError:
            r = {}
        ok = p.returncode == 0 and r.get("probe") == probe and r.get("value", 0) > 0 and \
            r.get("procs", 0) >= 1 and "extfrag" in r and "user_ms" in r and "sys_ms" in r
        check(ok, "workloads %s prints one JSON line with a positive figure" % probe,
              "exit %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))
    for args in (["bogus"], ["-n", "0", "anon-w-seq"], ["-s", "x", "anon-w-seq"],
                 ["page_fault3_threads"], []):
        p = subprocess.run([exe] + args, capture_output=True, text=True)
        check(p.returncode == 2 and p.stderr.startswith(("workloads: ", "usage: ")) and not p.stdout,
              "workloads %s: usage error, exit 2" % " ".join(args),
              "exit %d, stderr %r" % (p.returncode, p.stderr))


def line(label, value, kernel_scale=1.0, probe="kbuild", **extra):
    r = {"label": label, "settings": {"pcp_batch_scale_max": 5 if label == "def" else 0},
         "probe": probe, "procs": 2, "unit": "s", "value": value * kernel_scale,
         "user_ms": 1000.0, "sys_ms": 100.0}
    r.update(extra)
    return json.dumps(r)


def run_rows(tmp):
    d = os.path.join(tmp, "report")
    for kernel, scale in (("base", 1.0), ("patched", 1.1)):
        os.makedirs(os.path.join(d, "raw", kernel))
        with open(os.path.join(d, "raw", kernel, "workloads.jsonl"), "w") as f:
            for label in (("def",) if kernel == "base" else ("def", "k0")):
                for v in (10.0, 10.2, 9.8):
                    f.write(line(label, v, scale, user_s=v / 2, sys_s=v / 10) + "\n")
    report = [sys.executable, os.path.join(TOP, "bench", "analysis", "report.py"), d]
    out = subprocess.run(report, capture_output=True, text=True)
    check(out.returncode == 0, "report.py runs", out.stderr)
    with open(os.path.join(d, "results.json")) as f:
        res = json.load(f)
    by = {(r.get("kernel"), r.get("workload")): r for r in res}
    row = by.get(("patched", "micro:kbuild-x2"))
    check(row is not None and row["value"]["median"] == 11.0 and row["reps"] == 3
          and row["setting"] == "def", "patched def row: micro:kbuild-x2, median of 3 runs",
          json.dumps(row))
    check(("patched", "micro-sweep:kbuild-x2") in by and
          by[("patched", "micro-sweep:kbuild-x2")]["setting"] == "k0",
          "the other settings' rows are micro-sweep:NAME", json.dumps(res))
    cv = workloads.cv_pct([10.0, 10.2, 9.8])
    check(row is not None and abs(row["real_s"]["cv_pct"] - cv) < 1e-9 and abs(cv - 2.0) < 1e-9,
          "kbuild rows carry the coefficient of variation (2.00% for 10, 10.2, 9.8)",
          json.dumps(row))
    subprocess.run(report, capture_output=True, check=True)
    with open(os.path.join(d, "results.json")) as f:
        again = json.load(f)
    check(len(again) == len(res), "a second run rewrites, not doubles, the rows (%d, then %d)"
          % (len(res), len(again)))
    with open(os.path.join(d, "report.md")) as f:
        md = f.read()
    check("+10.00% *" in md and "| real | 10.00 (2.00%)" in md,
          "report.md gives the change (+10.00%, beyond the spread) and Hahn's mean (CV)", md)

def main():
    print("TAP version 13")
    with tempfile.TemporaryDirectory() as tmp:
        run_binary(tmp)
        run_rows(tmp)
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
