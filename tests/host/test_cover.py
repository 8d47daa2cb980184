#!/usr/bin/python3
"""test_cover - bench/cover.py on a made-up results file (tests/run -t cover-render).

The stored cover letters' tables are rendered from the committed results
and checked by rendering them again: a figure edited by hand, or a stale
render, must fail the check; a block marker must not reach the outgoing
copy; an unknown block is an error, not a silent blank.  KTAP output.
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench"))
import cover  # noqa: E402

# Made-up figures, only for this test: two kernels, one probe, five runs.
RESULTS = [
    {"base": "7.3", "timing": "icount", "kernel": k, "setting": "def",
     "settings": {"pcp_batch_scale_max": 5, "percpu_pagelist_high_fraction": 0},
     "workload": "micro:pf-x1", "reps": 5,
     "value": {"unit": "pages/s", "median": med, "runs": [med - 7, med - 3, med, med + 2, med + 5]}}
    for k, med in (("base", 412345), ("patched", 411987))
]
LETTER = """subject: a test

Prose before.
{{render regression}}
{{end}}

Prose between.
{{render reps settings=def}}
stale text
{{end}}
Prose after.
"""

n = 0
failed = 0


def result(ok, name):
    global n, failed
    n += 1
    failed += not ok
    print("%sok %d %s" % ("" if ok else "not ", n, name))


def put(path, text):
    with open(path, "w") as f:
        f.write(text)


def run(*args):
    with contextlib.redirect_stdout(io.StringIO()) as out, \
            contextlib.redirect_stderr(io.StringIO()) as err:
        rc = cover.main(["cover.py"] + list(args))
    return rc, out.getvalue() + err.getvalue()


print("TAP version 13")
with tempfile.TemporaryDirectory() as d:
    res, letter = os.path.join(d, "results.json"), os.path.join(d, "cover-letter.txt")
    put(res, json.dumps(RESULTS))
    put(letter, LETTER)

    rc, _ = run("check", res, letter)
    result(rc == 1, "check fails on a stale render")
    rc, _ = run("render", res, letter)
    text = open(letter).read()
    result(rc == 0 and "412345" in text and "411987" in text and "-0.09%" in text,
           "render writes the figures of the results file into the blocks")
    result("Prose before.\n{{render regression}}\n" in text and "{{end}}\nProse after.\n" in text
           and "stale text" not in text, "render keeps the prose and the markers, replaces the block")
    rc, _ = run("check", res, letter)
    result(rc == 0, "check passes on a fresh render")
    put(letter, text.replace("411987", "411988", 1))
    rc, out = run("check", res, letter)
    result(rc == 1 and "411988" in out, "check fails, with a diff, on a figure changed by hand")
    put(letter, text)
    put(res, json.dumps([dict(RESULTS[0]), dict(RESULTS[1], value=dict(RESULTS[1]["value"], median=400000))]))
    rc, _ = run("check", res, letter)
    result(rc == 1, "check fails when the results file changes under a rendered letter")

    out_letter = os.path.join(d, "0000-cover-letter.patch")
    put(out_letter, "Subject: [PATCH 0/2] *** SUBJECT HERE ***\n\n*** BLURB HERE ***\n\n"
        "A (2):\n  x\n\n-- \n2.39.5\n")
    rc, _ = run("fill", letter, out_letter, "prerequisite-patch-id: 0123abcd")
    sent = open(out_letter).read()
    result(rc == 0 and "[PATCH 0/2] subject: a test\n" in sent and "{{" not in sent
           and "412345" in sent, "fill: subject and body, figures in, marker lines out")
    result("prerequisite-patch-id: 0123abcd\n-- \n" in sent,
           "fill: the prerequisite-patch-id lines go before the signature")

    put(letter, LETTER.replace("{{render regression}}", "{{render regresion}}"))
    rc, out = run("render", res, letter)
    result(rc == 2 and "unknown table 'regresion'" in out, "an unknown block is an error")
    put(letter, LETTER.replace("stale text\n{{end}}\n", ""))
    rc, out = run("render", res, letter)
    result(rc == 2, "a block without {{end}} is an error")

    missing = os.path.join(d, "none.json")
    put(letter, LETTER)
    rc, _ = run("render", missing, letter)
    result(rc == 0 and open(letter).read().count(cover.NO_RESULTS % missing) == 2,
           "no results file: each block says so, in one line")

    rc = subprocess.run([os.path.join(TOP, "bench", "cover.py"), "bogus"],
                        capture_output=True).returncode
    result(rc == 2, "a bad command line is status 2")

print("1..%d" % n)
sys.exit(1 if failed else 0)
