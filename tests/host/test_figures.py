#!/usr/bin/python3
"""test_figures - bench/analysis/figures.py on the repository, and proof it can fail
(tests/run -t figures).

Every figure the texts quote must be the one the committed results give.
On the repository the check must pass; on a scratch copy, each way a
figure can go wrong must fail it: a quoted figure edited by hand, a figure
typed in without a quote, a results file that changes under the texts or
goes missing, a rendered table of every run edited by hand, a quote from a
results file whose series_sha is not today's series tree (unless its
sentence names the file), a qualitative claim that rests on a
measurement ("no extra instructions") in a sentence naming no table.
KTAP output.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
import figure_defs  # noqa: E402
import figures  # noqa: E402
from ktap import Ktap  # noqa: E402
from figure_quotes import QUOTES  # noqa: E402

K = Ktap()
result = K.result


def check(root, *opts):
    p = subprocess.run([sys.executable, os.path.join(root, "bench", "analysis", "figures.py"), "check"]
                       + list(opts), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def scratch():
    d = tempfile.mkdtemp(prefix="figures.")
    for name in ("README.md", "bench", "configs", "docs", "patches"):
        src = os.path.join(TOP, name)
        dst = os.path.join(d, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)
    return d


def first_file(root, pattern):
    import glob
    hits = sorted(glob.glob(os.path.join(root, pattern)))
    return hits[0] if hits else None


def series_sha_rule():
    """A results file measured on another series tree: its quotes fail
    check (STRICT) and check --strict unless their sentence names the file
    (the scratch copy gets scripts/lib.sh and build/7.3/linux for
    applied_tree).  0003 names the case file where it quotes it, cover
    letter 3 does not."""
    name = figure_defs.SOURCES["C"][0]
    what = "a quote from %s with another series_sha" % name
    linux = os.path.join(TOP, "build", "7.3", "linux")
    if not os.path.isdir(os.path.join(linux, ".git")):
        result(True, "%s fails, naming it passes # SKIP no build/7.3/linux (make tree)" % what)
        return
    d = scratch()
    try:
        shutil.copytree(os.path.join(TOP, "scripts"), os.path.join(d, "scripts"))
        os.makedirs(os.path.join(d, "build", "7.3"))
        os.symlink(linux, os.path.join(d, "build", "7.3", "linux"))
        path = os.path.join(d, "docs", "results", name)
        rows = json.load(open(path))
        for r in rows:
            if (r.get("provenance") or {}).get("series_sha"):
                r["provenance"]["series_sha"] = "0" * 40
        with open(path, "w") as f:
            f.write(json.dumps(rows, indent=1))
        # another tree, today's code (code_sha equal): taken, and said so
        rc, out = check(d)
        result(rc == 0 and "%s: measured on an earlier series tree with today's code" % name in out,
               "%s but today's code_sha passes, with a note" % what, out)
        for r in rows:
            if (r.get("provenance") or {}).get("code_sha"):
                r["provenance"]["code_sha"] = "0" * 40
        with open(path, "w") as f:
            f.write(json.dumps(rows, indent=1))
        tail = "quote(s) from %s (series_sha 000000000000" % name
        cl3 = "patches/cover-letter-3.txt: "
        for args, how in (((), "check (STRICT)"), (("--strict",), "check --strict")):
            rc, out = check(d, *args)
            refused = [line for line in out.splitlines() if tail in line]
            result(rc == 1 and any(cl3 in line for line in refused), "%s fails %s" % (what, how), out)
            result(not any("patches/0003-" in line for line in refused),
                   "%s: 0003's sentences name the file, so its quotes pass" % how, out)
        p4 = first_file(d, "patches/0003-mm-page_alloc-add-vm.pcp_batch_scale_max-*.patch")
        text = open(p4).read()
        named = "(docs/results/2026-12-05-7.3-case.json)"
        result(named in text, "0003 names the case file in brackets", named)
        with open(p4, "w") as f:
            f.write(text.replace(named, "(a run of its own)"))
        rc, out = check(d)
        result(rc == 1 and any("patches/0003-" in line and tail in line for line in out.splitlines()),
               "with the name taken out of 0003's sentence its quotes fail too", out)
    finally:
        shutil.rmtree(d)


def main():
    rc, out = check(TOP)
    result(rc == 0, "every quoted figure is what docs/results/ gives, none typed in", out)

    vals, problems = figures.values(figures.Results(TOP))
    result(not problems, "every figure computes from the committed results", "\n".join(problems))

    # a quoted figure edited by hand: the first figure of a quote that
    # stands once on one line of its file, its first number raised by one
    d = scratch()
    try:
        target = None
        for pattern, template in QUOTES:
            path = first_file(d, pattern)
            text = open(path).read() if path else ""
            for name in re.findall(r"{(\w+)}", template):
                value = vals[name]
                # a figure that stands once, and long enough to be itself
                if "\n" not in value and re.search(r"\d", value) and len(value) >= 5 \
                        and text.count(value) == 1:
                    target = (path, text, value)
                    break
            if target:
                break
        path, text, value = target
        m = re.search(r"\d+", value)
        edited = value[:m.start()] + str(int(m.group(0)) + 1) + value[m.end():]
        open(path, "w").write(text.replace(value, edited, 1))
        rc, out = check(d)
        rel = os.path.relpath(path, d)
        result(rc == 1 and "%s: the results give" % rel in out,
               "a quoted figure edited by hand fails (%s: %s -> %s)" % (rel, value, edited), out)
    finally:
        shutil.rmtree(d)

    for typed in ("12.3 ms", "3.5 times", "250 microseconds", "12 percent", "700 pages",
                  "994 waits", "2.3 seconds", "64 MiB", "80 MB/s", "300 ops/s", "12 cycles",
                  "5 per cent", "from 291 to 994"):
        d = scratch()
        try:
            with open(os.path.join(d, "docs", "series.md"), "a") as f:
                f.write("\nAt knob 0 it came to %s.\n" % typed)
            rc, out = check(d)
            result(rc == 1 and typed in out, "a figure typed in without a quote fails (%s)" % typed,
                   out)
        finally:
            shutil.rmtree(d)

    # a qualitative claim that rests on a measurement: it fails without a
    # table named in its sentence, passes with one, and a phrase quoted
    # (someone's words discussed) is no claim
    for claim, named, ok in (("The knob costs no extra instructions.", "", False),
                             ("At knob 0 the refill is no slower than the default.", "", False),
                             ("The series costs nothing measurable in the probes.", "", False),
                             ("The knob costs no extra instructions in the table above.", "", True),
                             ("At knob 0 it is no slower", " (7.3.json).", True),
                             ("The old text said \"no slower\" without a source.", "", True)):
        d = scratch()
        try:
            with open(os.path.join(d, "docs", "series.md"), "a") as f:
                f.write("\n%s%s\n" % (claim, named))
            rc, out = check(d)
            got = "rests on a measurement" not in out
            result(got == ok and (rc == 0) == ok, "a qualitative claim %s: %s%s"
                   % ("passes" if ok else "naming no table fails", claim, named), out)
        finally:
            shutil.rmtree(d)

    d = scratch()
    try:
        path = os.path.join(d, "docs", "results", figure_defs.SOURCES["P"][0])
        rows = json.load(open(path))
        for r in rows:
            if r.get("workload") == "victim-same-cpu" and r.get("kernel") == "base":
                r["victim_runs"]["max_us"]["runs"][0] += 100.0
        json.dump(rows, open(path, "w"))
        rc, out = check(d)
        result(rc == 1 and "not in the text" in out and ".md differs" in out,
               "a results file that changes under the texts fails (the quotes and its tables)", out)
        os.unlink(path)
        rc, out = check(d)
        result(rc == 1 and "figure " in out, "a missing results file fails, naming the figures", out)
    finally:
        shutil.rmtree(d)

    d = scratch()
    try:
        md = os.path.join(d, "docs", "results", figure_defs.SOURCES["P"][0][:-5] + ".md")
        text = open(md).read()
        open(md, "w").write(text.replace("(5)", "(4)", 1))
        rc, out = check(d)
        result(rc == 1 and "differs from what bench/analysis/figures.py runs-md renders" in out,
               "a rendered table of every run edited by hand fails", out)
    finally:
        shutil.rmtree(d)

    series_sha_rule()
    rc = subprocess.run([sys.executable, os.path.join(TOP, "bench", "analysis", "figures.py"), "bogus"],
                        capture_output=True).returncode
    result(rc == 2, "a bad command line is status 2")
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
