#!/usr/bin/python3
"""test_side_by_side - report.md's "Side by side" compares each patched row
with the unpatched kernel at the same setting, else at def, and says which
(tests/run -t side-by-side-host).

Made-up results: the unpatched kernel ran def and hfmax (as bench/run
does), the patched one def, hfmax and k0, each with its own storm time.
Keyed by workload alone (the bug of 2026-12-04), every patched row was
compared with hfmax, the last unpatched row.  KTAP output.
"""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
import tables  # noqa: E402
from ktap import Ktap  # noqa: E402

STORM_MS = {("base", "def"): 100.0, ("base", "hfmax"): 200.0,
            ("patched", "def"): 110.0, ("patched", "hfmax"): 220.0, ("patched", "k0"): 130.0}


def row(kernel, setting, ms):
    return {"kernel": kernel, "setting": setting, "timing": "tcg", "scenario": "exit-storm",
            "workload": "exit-storm", "storm_ms": {"median": ms, "runs": [ms, ms, ms]}}


def main():
    k = Ktap()
    res = [row(kernel, setting, ms) for (kernel, setting), ms in STORM_MS.items()]
    got = {(r[1], r[2]): (r[5], r[7]) for r in tables.table_rows(res) if r[0] == "exit: storm ms"}
    want = {("patched", "def"): (10.0, "def"), ("patched", "hfmax"): (10.0, "hfmax"),
            ("patched", "k0"): (30.0, "def")}
    for key, (delta, against) in want.items():
        d, a = got.get(key, (None, None))
        k.result(d is not None and abs(d - delta) < 1e-9 and a == against,
                 "patched %s: %+.0f%% against unpatched %s" % (key[1], delta, against),
                 "got %r against %r" % (d, a))
    k.result(got.get(("base", "def")) == (None, None), "an unpatched row has no change",
             repr(got.get(("base", "def"))))
    text = tables.table(res)
    line = next((x for x in text.splitlines() if x.startswith("exit: storm ms") and " k0 " in x), "")
    k.result(line.split()[-1] == "def" and "+30.0% *" in line,
             "the table says which setting the change is against", text)
    return k.finish()


if __name__ == "__main__":
    sys.exit(main())
