#!/usr/bin/python3
"""test_workloads - bench/guest/workloads.c on the host, small, and bench/analysis/workloads.py
on made-up lines (tests/run -t workloads-host).  KTAP output.

Each workload must print one JSON line in bench/micro's form with a
positive figure; a bad workload name or option must exit 2.  The rows
bench/analysis/workloads.py adds to results.json must have the shape of
bench/analysis/results.py's micro rows (micro:NAME at def, micro-sweep:NAME at the
other settings), a coefficient of variation and a change against the
unpatched kernel; bench/analysis/report.py writes them, and a second run
rewrites, not doubles, them.  The net (iperf3) and bonnie (bonnie++ proxy)
rows carry their metrics and the change against the kernel's default,
report.md the table against the default (median, delta %, CoV); a bad
workload name or size given to bench/guest/workloads-run exits 2 with one
line, a missing iperf3 or bonnie++ 66 with one line naming the package.
The counted net rows (-C, bench/guest/free-high.bt) carry the script's
counters per run, report.md their table, and a counted run whose file has
no @frees (the script did not run) is refused.
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

NET = {"def": (1.0, 1.1, 0.9), "k1": (0.9, 1.0, 0.8), "k0": (1.2, 1.2, 1.2)}
BONNIE = {"def": (20.0, 21.0, 19.0), "k1": (22.0, 22.0, 22.0), "k0": (18.0, 20.0, 19.0)}
SCALE = {"def": 5, "k1": 1, "k0": 0}


def throughput_line(label, probe, value, i):
    r = {"label": label, "settings": {"pcp_batch_scale_max": SCALE[label],
                                      "percpu_pagelist_high_fraction": 0},
         "probe": probe, "value": value, "user_ms": 10.0, "sys_ms": 90.0}
    if probe == "net":
        r.update(unit="Gbit/s", sent_gbit_s=value * 2, retransmits=i,
                 cpu_client_pct=50.0, cpu_server_pct=60.0)
    else:
        # bonnie++'s "+++++" (null) in one run of three: the median of two
        r.update(procs=1, unit="s", seq_out_block_kps=None if i == 0 else 1000.0 * (i + 1),
                 seq_rewrite_kps=None, seq_in_block_kps=4000.0, seeks_ps=100.0 + i,
                 seq_create_ps=None, seq_read_ps=None, seq_delete_ps=None,
                 ran_create_ps=None, ran_read_ps=None, ran_delete_ps=None)
    return json.dumps(r)


def run_throughput(tmp):
    d = os.path.join(tmp, "tp")
    os.makedirs(os.path.join(d, "raw", "patched"))
    with open(os.path.join(d, "raw", "patched", "workloads.jsonl"), "w") as f:
        for i in range(3):
            for label in ("def", "k1", "k0"):
                f.write(throughput_line(label, "net", NET[label][i], i) + "\n")
                f.write(throughput_line(label, "bonnie", BONNIE[label][i], i) + "\n")
    p = subprocess.run([sys.executable, os.path.join(TOP, "bench", "analysis", "report.py"), d],
                       capture_output=True, text=True)
    check(p.returncode == 0, "report.py runs on net and bonnie lines", p.stderr)
    with open(os.path.join(d, "results.json")) as f:
        by = {(r.get("workload"), r.get("setting")): r for r in json.load(f)}
    net, net0 = by.get(("micro:net", "def")), by.get(("micro-sweep:net", "k0"))
    check(net is not None and net["value"]["median"] == 1.0 and net["value"]["unit"] == "Gbit/s"
          and abs(net["value"]["cv_pct"] - 10.0) < 1e-9 and net["metrics"]["retransmits"]["median"] == 1,
          "net def row: median 1.0 Gbit/s, CoV 10.00%, retransmits", json.dumps(net))
    check(net0 is not None and abs(net0["vs_def"]["value"] - 20.0) < 1e-9
          and net0["value"]["cv_pct"] == 0,
          "net k0 row: +20% against def (vs_def), CoV 0", json.dumps(net0))
    b, b1 = by.get(("micro:bonnie", "def")), by.get(("micro-sweep:bonnie", "k1"))
    check(b is not None and b["value"]["median"] == 20.0 and b["reps"] == 3
          and b["metrics"]["seq_out_block_kps"]["runs"] == [2000.0, 3000.0]
          and b["metrics"]["seq_out_block_kps"]["median"] == 2500.0
          and b["metrics"]["seq_rewrite_kps"]["median"] is None,
          "bonnie def row: wall 20 s, a phase's null runs left out, an all-null phase None",
          json.dumps(b))
    check(b1 is not None and abs(b1["vs_def"]["value"] - 10.0) < 1e-9
          and b1["vs_def"]["seq_rewrite_kps"] is None and b1["vs_def"]["seq_in_block_kps"] == 0,
          "bonnie k1 row: +10% wall time against def", json.dumps(b1))
    with open(os.path.join(d, "report.md")) as f:
        md = f.read()
    want = ["### Against the default: patched kernel, tcg timing, n = 3 runs per setting",
            "| metric | unit | def | def CoV | k0 | k0 delta | k0 CoV | k1 | k1 delta | k1 CoV |",
            "| net (iperf3 over lo, received) | Gbit/s | 1.00 | 10.00% | 1.20 | +20.00% * | 0.00% "
            "| 0.90 | -10.00% | 11.11% |",
            "| bonnie proxy: wall time | s | 20.00 | 5.00% | 19.00 | -5.00% | 5.26% | 22.00 "
            "| +10.00% * | 0.00% |",
            "| bonnie seq_rewrite_kps | K/s | - | - | - | - | - | - | - | - |",
            "a proxy of Claudiu Beznea's bonnie++"]
    missing = [w for w in want if w not in md]
    check(not missing, "report.md: the table against the default (median, delta %, CoV, n)",
          "missing %r in:\n%s" % (missing, md))


def run_free_high(tmp):
    """bench/guest/workloads-run -C's counted net lines and free-high.bt
    files: the row's free_high counters (medians, every run; a counter the
    script never bumped is 0, a check map absent is None), the table in
    report.md, and a file without @frees (the script did not run) refused."""
    d = os.path.join(tmp, "fh")
    raw = os.path.join(d, "raw", "patched")
    os.makedirs(os.path.join(raw, "free-high"))
    maps = {"def": [(100, 80, 5, 3), (120, 90, 7, 0), (110, 85, 0, 0)],
            "k1": [(100, 80, 0, 0), (100, 81, 0, 0), (100, 82, 0, 0)]}
    with open(os.path.join(raw, "workloads-traced.jsonl"), "w") as f:
        for label, runs in maps.items():
            for i, (frees, hi, fh, left) in enumerate(runs):
                name = "free-high/%s-%d.json" % (label, i + 1)
                with open(os.path.join(raw, name), "w") as g:
                    g.write('{"type": "attached_probes", "data": {"probes": 3}}\n')
                    for k, v in (("@frees", frees), ("@hi_frees", hi), ("@threshold_min", 912),
                                 ("@threshold_max", 912), ("@hi_free_count_max", 126)):
                        g.write(json.dumps({"type": "map", "data": {k: v}}) + "\n")
                    if fh:
                        g.write(json.dumps({"type": "map", "data": {"@free_high": fh}}) + "\n")
                        g.write(json.dumps({"type": "map", "data": {"@free_high_left_max": left}}) + "\n")
                r = json.loads(throughput_line(label, "net", 1.0, i))
                r.update(traced=1, free_high_file=name)
                f.write(json.dumps(r) + "\n")
    rp = [sys.executable, os.path.join(TOP, "bench", "analysis", "report.py"), d]
    p = subprocess.run(rp, capture_output=True, text=True)
    check(p.returncode == 0, "report.py runs on counted net lines", p.stderr)
    with open(os.path.join(d, "results.json")) as f:
        by = {(r.get("workload"), r.get("setting")): r for r in json.load(f)}
    r, r1 = by.get(("micro:net-traced", "def"), {}), by.get(("micro-sweep:net-traced", "k1"), {})
    x, x1 = r.get("free_high", {}), r1.get("free_high", {})
    check(x.get("free_high", {}).get("runs") == [5, 7, 0] and x["free_high"]["median"] == 5
          and x["hi_frees"]["median"] == 85 and x["free_high_left_max"]["runs"] == [3, 0, None]
          and x["missed"]["runs"] == [0, 0, 0],
          "counted net def row: free_high per run 5, 7, 0 (median 5), checks 0 or None",
          json.dumps(r))
    check(x1.get("free_high", {}).get("runs") == [0, 0, 0] and x1["hi_frees"]["runs"] == [80, 81, 82],
          "counted net k1 row: no free_high, its order 1-3 frees", json.dumps(r1))
    with open(os.path.join(d, "report.md")) as f:
        md = f.read()
    want = "| patched | def | 3 | 110 [100-120] | 85 [80-90] | 5 [0-7] | 0 | 0 | 126 [126-126] | 912-912 |"
    check(want in md, "report.md: the free_high table", "missing %r in:\n%s" % (want, md))
    with open(os.path.join(raw, "free-high", "k1-2.json"), "w") as g:
        g.write('{"type": "attached_probes", "data": {"probes": 3}}\n')
    p = subprocess.run(rp, capture_output=True, text=True)
    check(p.returncode != 0 and "no @frees" in p.stderr and "k1-2.json" in p.stderr,
          "report.py refuses a counted run whose free-high.bt file has no @frees",
          "exit %d, stderr %r" % (p.returncode, p.stderr))


def run_bad_options():
    wr = os.path.join(TOP, "bench", "guest", "workloads-run")
    for args in (["-w", "net,bogus"], ["-w", ""], ["-w", "net", "-N", "0"], ["-w", "net", "-N", "5s"],
                 ["-w", "bonnie", "-B", "1"], ["-w", "bonnie", "-B", "x"],
                 ["-w", "bonnie", "-F", "-3"], ["-w", "bonnie", "--bonnie-files=08"],
                 ["-C", "-w", "pf"]):
        p = subprocess.run([wr] + args + ["patched", tempfile.gettempdir(), "def"],
                           capture_output=True, text=True)
        check(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and not p.stdout and
              p.stderr.startswith("bench/guest/workloads-run: "),
              "workloads-run %s: one line, exit 2" % " ".join(args),
              "exit %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))


def run_missing_tool(tmp):
    """A PATH with every program but the one a workload needs: exit 66,
    one line naming the Debian package."""
    wr = os.path.join(TOP, "bench", "guest", "workloads-run")
    for w, prog in (("net", "iperf3"), ("bonnie", "bonnie++")):
        d = os.path.join(tmp, "path-no-" + prog)
        os.makedirs(d)
        for bindir in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
            for name in os.listdir(bindir) if os.path.isdir(bindir) else ():
                if name != prog and not os.path.exists(os.path.join(d, name)):
                    os.symlink(os.path.join(bindir, name), os.path.join(d, name))
        p = subprocess.run([wr, "-w", w, "patched", tmp, "def"], capture_output=True, text=True,
                           env=dict(os.environ, PATH=d))
        check(p.returncode == 66 and len(p.stderr.splitlines()) == 1
              and "apt-get install %s" % prog in p.stderr,
              "workloads-run -w %s without %s: exit 66 naming the package" % (w, prog),
              "exit %d, stderr %r" % (p.returncode, p.stderr))


def main():
    print("TAP version 13")
    with tempfile.TemporaryDirectory() as tmp:
        run_binary(tmp)
        run_rows(tmp)
        run_throughput(tmp)
        run_free_high(tmp)
        run_bad_options()
        run_missing_tool(tmp)
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
