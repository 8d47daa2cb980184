#!/usr/bin/python3
"""test_golden - the analysis keeps its figures (tests/run -t golden).

tests/golden/NAME/ holds the raw output of one real bench/run (raw/ and
icount/raw/, as bench/guest/guest-run wrote it) and what the analysis of
that day wrote from it (expected/results.json, expected/report.md, by the
code of the commit named in tests/golden/README.md).  Each is copied to a
scratch folder and analysed again with bench/analysis/report.py, the one
writer of results.json; then:

  - results.json has the same rows in the same order, and every field an
    expected row has is equal in the new one (fields added since are
    allowed: provenance, the comparison's reference);
  - report.md is the same line for line, except inside "## Side by side",
    whose change column was computed against the wrong unpatched row
    before (issue 37, item 2): there the lines may differ, but not their
    number, metric, kernel, setting, value or spread.

KTAP output.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Ktap  # noqa: E402

K = Ktap()
SIDE = "## Side by side"


def first_difference(old, new, path="row"):
    """Where NEW differs from OLD on OLD's own fields, or None."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return "%s: %r became %r" % (path, old, new)
        for k, v in old.items():
            if k not in new:
                return "%s.%s: missing" % (path, k)
            d = first_difference(v, new[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(old, list):
        if not isinstance(new, list) or len(old) != len(new):
            return "%s: a list of %d became %r" % (path, len(old), type(new).__name__)
        for i, (a, b) in enumerate(zip(old, new)):
            d = first_difference(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if old == new else "%s: %r became %r" % (path, old, new)


def drop_sources(d):
    """The model names its measured input by a path relative to the run's
    folder: every "source" key goes before comparing."""
    if isinstance(d, dict):
        d.pop("source", None)
        for v in d.values():
            drop_sources(v)
    elif isinstance(d, list):
        for v in d:
            drop_sources(v)


def compare_md(old, new):
    """The first line where NEW differs from OLD, or None; in Side by side a
    line may differ from where the old header's "change" column starts.
    The model's note names the results file by a path relative to where
    the run was: not compared."""
    rel = re.compile(r"rows of `[^`]*results\.json`")
    old, new = (rel.sub("rows of `results.json`", x).split("\n") for x in (old, new))
    if len(old) != len(new):
        return "%d lines became %d" % (len(old), len(new))
    side, cut = False, None
    for i, (a, b) in enumerate(zip(old, new)):
        if a.startswith("## "):
            side, cut = a.startswith(SIDE), None
        if side and cut is None and a.startswith("---"):
            # the columns by their rules: metric, kernel, setting, value,
            # spread, then change
            starts = [m.start() for m in re.finditer(r"-+", a)]
            cut = starts[5] if len(starts) > 5 else None
            if a[:cut] == b[:cut]:
                continue
        if a == b or (side and cut is not None and a[:cut] == b[:cut]):
            continue
        if side and a.startswith("metric ") and a.split()[:5] == b.split()[:5]:
            continue
        return "line %d: %r became %r" % (i + 1, a, b)
    return None


def golden_dirs():
    """The committed goldens, and those kept under build/golden/ on the
    machine that ran them (too large to commit: the short run's raw
    output is over 100 MiB)."""
    found = []
    for top in (os.path.join(TOP, "tests", "golden"), os.path.join(TOP, "build", "golden")):
        found += sorted(d for d in glob.glob(os.path.join(top, "*"))
                        if os.path.isdir(os.path.join(d, "expected")))
    return found


def check(src):
    name = os.path.relpath(src, TOP)
    exp = os.path.join(src, "expected")
    model = os.path.exists(os.path.join(exp, "model.json"))
    work = tempfile.mkdtemp(prefix="golden.")
    try:
        for part in ("raw", "icount"):
            if os.path.isdir(os.path.join(src, part)):
                shutil.copytree(os.path.join(src, part), os.path.join(work, part))
        p = subprocess.run(["/usr/bin/python3", os.path.join(TOP, "bench", "analysis", "report.py")] +
                           (["--model"] if model else []) + [work], capture_output=True, text=True)
        K.result(p.returncode == 0, "%s: report.py%s analyses the golden raw output"
                 % (name, " --model" if model else ""), p.stdout[-2000:] + p.stderr[-2000:])
        if p.returncode:
            return
        files = ["results.json"] + (["model.json"] if model else [])
        for f in files:
            with open(os.path.join(exp, f)) as fh:
                old = json.load(fh)
            with open(os.path.join(work, f)) as fh:
                new = json.load(fh)
            if f == "model.json":
                for d in (old, new):
                    drop_sources(d)
            if isinstance(old, list):
                diff = ("%d rows became %d" % (len(old), len(new)) if len(old) != len(new) else
                        next((d for d in (first_difference(a, b, "row %d" % i)
                                          for i, (a, b) in enumerate(zip(old, new))) if d), None))
            else:
                diff = first_difference(old, new, f)
            K.result(diff is None, "%s: %s keeps every row and field" % (name, f), diff)
        with open(os.path.join(exp, "report.md")) as fh:
            old_md = fh.read().replace("{RAW}", os.path.join(work, "raw")).replace("{DIR}", work)
        with open(os.path.join(work, "report.md")) as fh:
            new_md = fh.read()
        diff = compare_md(old_md, new_md)
        K.result(diff is None, "%s: report.md is the same but for the change column of %s"
                 % (name, SIDE[3:]), diff)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    dirs = golden_dirs()
    if not dirs:
        K.result(False, "golden inputs in tests/golden/", "none found")
        return K.finish()
    for src in dirs:
        check(src)
    if not any(d.startswith(os.path.join(TOP, "build")) for d in dirs):
        print("ok %d build/golden/short: the --short run's golden # SKIP kept only on the machine "
              "that ran it (build/golden/, over 100 MiB; tests/golden/README.md)" % (K.n + 1))
        K.n += 1
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
