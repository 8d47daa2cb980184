#!/usr/bin/python3
"""test_refill_harm - bench/analysis/refill_harm.py on made-up rlat and frag output
(tests/host/fake_raw.py's refill_instruments, whose figures are known), and
guest-run's instrument list (tests/run -t refill-harm-host).  KTAP output.

The Yafang-form table must give each setting's refill calls (avg, his
log2 buckets in % of calls, max), the hold alone (avg, p99, max) and the
RT task's p99, p99.9 and max; the frag table ns per page, the longest
hold and the extfrag count, as is against fragmented, and the
pagetypeinfo proof; report.py must write both into results.json and
report.md.  A bad -i name makes bench/guest/guest-run exit 2 with one line.
"""
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_raw  # noqa: E402
import refill_harm  # noqa: E402
from ktap import Ktap  # noqa: E402

K = Ktap()
check = K.result


def close(a, b):
    return a is not None and abs(a - b) < 1e-6


with tempfile.TemporaryDirectory() as tmp:
    fake_raw.write(tmp, {"base": ["def"], "patched": ["def", "k0"]})
    fake_raw.refill_instruments(os.path.join(tmp, "raw", "patched"), ["def", "k1", "k0"])
    rows = refill_harm.rows(tmp)
    ya = {r["setting"]: r for r in rows if r["workload"] == "refill-yafang"}
    fr = {r["setting"]: r for r in rows if r["workload"] == "refill-frag"}
    check(sorted(ya) == ["def", "k0", "k1"] and sorted(fr) == ["def", "k0", "k1"],
          "one refill-yafang and one refill-frag row per setting", repr(sorted(ya)))
    c, h, t = ya["k1"]["refill_call"], ya["k1"]["hold"], ya["k1"]["rt"]
    check(c["calls"] == 10 and close(c["avg_ns"], 41800) and close(c["max_ns"], 120001),
          "refill calls: count, avg, max", repr(c))
    pct = refill_harm.group_pct(c["buckets"], c["calls"])
    check(pct == [0.0, 60.0, 40.0, 0.0, 0.0, 0.0],
          "his buckets in % of calls ([65536, 131072) lies in 16384-131071)", repr(pct))
    check(h["holds"] == 100 and close(h["avg_ns"], 1985) and close(h["p99_ns"], 2048)
          and close(h["max_ns"], 50000), "hold alone: avg, p99 (log2 upper bound), max", repr(h))
    check(t["samples"] == 2000 and t["p99_us"] == 10 and t["p999_us"] == 50
          and t["max_us"] == 399 and t["max_runs"] == [399, 300],
          "RT task: pooled p99, p99.9, max of the runs", repr(t))
    check(ya["k1"]["refill_mib_s"]["median"] == 102.0 and ya["k1"]["reps"] == 2,
          "throughput of the untraced runs", repr(ya["k1"]["refill_mib_s"]))
    a, f = fr["k0"]["as_is"], fr["k0"]["fragmented"]
    check(close(a["ns_per_page"], 100) and close(f["ns_per_page"], 1000),
          "ns per page, as is against fragmented", "%r %r" % (a["ns_per_page"], f["ns_per_page"]))
    check(close(a["max_us"], 8) and close(f["max_us"], 200), "the longest hold, us",
          "%r %r" % (a["max_us"], f["max_us"]))
    check(a["extfrag"] == 0 and f["extfrag"] == 12000 and f["extfrag_runs"] == [5000, 7000],
          "extfrag: perf's counts summed over the runs", repr(f["extfrag_runs"]))
    pt = fr["k0"]["pagetypeinfo"]
    b, af = refill_harm.ptype_summary(pt["before"]), refill_harm.ptype_summary(pt["after"])
    check(len(pt["before"]) == 2 and b == (100, 500000, 0, 10) and af == (90000, 3000, 0, 400),
          "pagetypeinfo: order-0 blocks, free Movable pages, order >= 9, Unmovable blocks",
          "%r -> %r" % (b, af))
    check(fr["k0"]["hugepages"] == [1390, 1380], "huge pages held per run",
          repr(fr["k0"]["hugepages"]))

    text = "\n".join(refill_harm.section(rows))
    check("avg = 449775 nsecs" in text and "The avg alloc latency can be 449us" in text,
          "the table's text quotes Yafang Shao as the reference", "")
    line = [x for x in text.splitlines() if x.startswith("| emulated, QEMU TCG")
            and "patched k1 | 10 | 41800 |" in x]
    check(len(line) == 1 and "| 10 | 41800 | 0.0% | 60.0% | 40.0% | 0.0% | 0.0% | 0.0% | 120001 | "
          "100 | 2.0 | 2.0 | 50.0 | 10.0 | 50.0 | 399.0 | 102.0 |" in line[0],
          "the Yafang-form row of k1", repr(line))
    check("      2048 -> 4095       : 6" in text
          and "avg = 41800 nsecs, total: 418000 nsecs, count: 10" in text,
          "our calls in his funclatency form", "")
    fl = [x for x in text.splitlines() if "patched k0 | fragmented |" in x]
    check(len(fl) == 1 and "| 10 | 640 | 1000 | 64.0 | 8.2 | 200.0 | 64 | 12000 | 50.5 |" in fl[0],
          "the frag row of k0, fragmented", repr(fl))
    pl = [x for x in text.splitlines() if "patched k0 | 100 -> 90000 |" in x]
    check(len(pl) == 1 and "| 500000 -> 3000 | 0 -> 0 | 10 -> 400 | 1390, 1380 |" in pl[0],
          "the pagetypeinfo proof row of k0", repr(pl))

    out = subprocess.run(["/usr/bin/python3", os.path.join(TOP, "bench", "analysis", "report.py"),
                          tmp], capture_output=True, text=True)
    check(out.returncode == 0, "report.py runs", out.stderr[-500:])
    with open(os.path.join(tmp, "results.json")) as fh:
        res = json.load(fh)
    n = [r for r in res if r.get("workload") in ("refill-yafang", "refill-frag")]
    check(len(n) == 6 and all(r.get("provenance") for r in n),
          "results.json: the six rows, each with its provenance", "%d rows" % len(n))
    with open(os.path.join(tmp, "report.md")) as fh:
        md = fh.read()
    check("## Where a refill hold still hurts on 7.3" in md and "patched k0 | fragmented |" in md,
          "report.md carries the section", "")

out = subprocess.run([os.path.join(TOP, "bench", "guest", "guest-run"), "-i", "rlat,bogus",
                      "patched", "/nonexistent", "def"], capture_output=True, text=True)
check(out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
      and "bogus" in out.stderr, "guest-run -i with a bad name: exit 2, one line",
      "%d %r" % (out.returncode, out.stderr))
out = subprocess.run([os.path.join(TOP, "bench", "guest", "guest-run"), "-L"],
                     capture_output=True, text=True)
check(out.returncode == 0 and {"rlat", "frag"} <= set(out.stdout.split()),
      "guest-run -L lists rlat and frag", out.stdout)
sys.exit(K.finish())
