#!/usr/bin/python3
"""figures - one path from the committed results to every figure a reader gets.

Usage: bench/analysis/figures.py check [--strict] [--root DIR]
       bench/analysis/figures.py show [NAME...]
       bench/analysis/figures.py runs-md [--check] [--root DIR]

The texts (README.md, docs/, the changelogs and cover letters in patches/)
quote measured figures as plain text.  Each quote is listed in QUOTES
(bench/analysis/figure_quotes.py): the file, and the sentence with {NAME} where a
figure goes; each NAME is computed in bench/analysis/figure_defs.py from a
committed results file (docs/results/*.json), ranges over ALL its runs.

check fails (status 1, one line per problem) when
  - a quote, filled in from the results, is not in its file (a figure
    edited by hand, a stale text after a new run, a reworded sentence);
  - a number with a unit of measure (ns, us, ms, s, %, per cent, x, times,
    pages, pages/s, MiB, MB/s, ops/s, cycles, ...), or a "from N to N", in
    a scanned file is covered by no quote and by no CONSTS entry (a figure
    typed in);
  - a results file or a field a figure needs is missing;
  - docs/results/NAME.md differs from what runs-md renders from NAME.json;
  - a qualitative claim resting on a measurement (QUALITATIVE of
    bench/analysis/figure_quotes.py: "no extra instructions", "no slower",
    "nothing measurable", ...) in a sentence that names no table (a
    results file NAME.json or NAME.md, or the word "table");
  - with --strict (or STRICT of bench/analysis/figure_provenance.py): a
    quote from a results file whose series_sha is not today's series tree,
    in a sentence that does not name the file (without --strict, each such
    quote is listed, "stale quote", and does not fail).
Nothing is skipped silently: every scanned file is checked, and EXEMPT names
each file left out with its reason.  What the scan cannot see: a number
written without a unit outside "from N to N" ("the waits rose to 994"), or
spelled out ("twice"): keep figures in sentences with their unit, or in a
quote.

show prints every figure with its value (what to paste into a text).
runs-md writes docs/results/NAME.md, every run of NAME.json as tables
(bench/analysis/runs_md.py); --check compares instead of writing.

Exit status: 0 clean, 1 a problem found, 2 usage, 66 no --root folder.
"""
import fnmatch
import glob
import json
import os
import re
import sys

import runs_md
from figure_provenance import STRICT, Rule
from figure_defs import FIGS, HERE, Missing, Results
from figure_quotes import CONSTS, EXEMPT, NAMES_TABLE, QUALITATIVE, QUOTES, SCANNED

UNIT = re.compile(r"(?<![\w.+-])[-+]?\d[\d,.]*(?:\s*(?:-|to|and|,|/)\s*[-+]?\d[\d,.]*)*\s*"
                  r"(?:ns|us|µs|μs|ms|s|secs?|nsecs?|seconds?|[mu]secs?|microseconds?|milliseconds?|"
                  r"min|minutes?|hours?|%|percent|x|×|times|pages/s|/s|[KMG]iB/s|instructions|"
                  r"pages|waits|calls|holds|runs|reps|repetitions|per cent|[KMGTP]i?B|MB/s|"
                  r"ops/s|cycles)(?![\w])"
                  r"|\bfrom\s+[-+]?\d[\d,.]*\s+to\s+[-+]?\d[\d,.]*")


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


def message(path, text):
    """The part of a file a reader gets as prose: a patch's commit message."""
    if path.endswith(".patch"):
        return text.split("\n---\n", 1)[0]
    return text


def scanned_files(root):
    files = set()
    for pattern in SCANNED:
        files.update(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pattern)))
    return sorted(f for f in files if f not in EXEMPT)


def values(R):
    vals, problems = {}, []
    for name, fn in FIGS.items():
        try:
            vals[name] = fn(R)
        except Missing as e:
            problems.append("figure %s: %s" % (name, e))
    return vals, problems


def sentence(text, start, end):
    """The sentence of text around [start, end): from the end of the one
    before (". ", "; " do not end it) to the end of its own."""
    a = max(text.rfind(". ", 0, start), text.rfind(".) ", 0, start))
    b = text.find(". ", end)
    return text[a + 2 if a >= 0 else 0:b + 1 if b >= 0 else len(text)]


def unsupported_claims(path, text):
    """Problems: each qualitative claim whose sentence names no table."""
    problems = []
    for pat in QUALITATIVE:
        for m in re.finditer(pat, text, re.I):
            if text[m.start() - 1:m.start()] in "\"“":
                continue  # a phrase quoted, not claimed
            s = sentence(text, m.start(), m.end())
            if not re.search(NAMES_TABLE, s, re.I):
                problems.append("%s: \"%s\" rests on a measurement: name the table it rests on "
                                "(a results file NAME.json or NAME.md, or \"the table above\") in "
                                "its sentence \"%s\"" % (path, m.group(0), s[:160]))
    return problems


def check(root, strict=STRICT):
    """(problems, the files checked, notes): notes are the stale quotes when
    not strict, and the bases the series_sha rule skipped."""
    R = Results(root)
    vals, problems = values(R)
    files = scanned_files(root)
    used = set()
    rule, stale = Rule(root), {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = norm(message(path, f.read()))
        covered = [False] * len(text)
        for pattern, template in QUOTES:
            if not fnmatch.fnmatch(path, pattern):
                continue
            names = re.findall(r"{(\w+)}", template)
            if any(n not in vals for n in names):
                continue  # reported above
            used.update(names)
            quote = norm(template.format(**vals))
            start, found = 0, False
            while True:
                i = text.find(quote, start)
                if i < 0:
                    break
                found = True
                covered[i:i + len(quote)] = [True] * len(quote)
                for name, why in rule.refusals(text, i, i + len(quote), names):
                    stale.setdefault((path, name, why), []).append(quote)
                start = i + 1
            if not found:
                problems.append("%s: the results give \"%s\", not in the text" % (path, quote))
        for pattern, literal, _why in CONSTS:
            if fnmatch.fnmatch(path, pattern):
                lit = norm(literal)
                for m in re.finditer(re.escape(lit), text):
                    covered[m.start():m.end()] = [True] * (m.end() - m.start())
        problems += unsupported_claims(path, text)
        for m in UNIT.finditer(text):
            if not all(covered[m.start():m.end()]):
                ctx = text[max(0, m.start() - 40):m.end() + 20]
                problems.append("%s: \"%s\" is no figure computed from docs/results "
                                "(in \"...%s...\"): quote it through bench/analysis/figure_quotes.py "
                                "or drop it" % (path, m.group(0), ctx))
    for name in FIGS:
        if name not in used and name in vals:
            problems.append("figure %s is quoted nowhere: remove it" % name)
    problems += runs_md_check(root)
    for (path, name, why), quotes in sorted(stale.items()):
        (problems if strict else rule.notes).append(
            "%s: %d quote(s) from %s (%s) in sentences that do not name it, e.g. \"%s\""
            % (path, len(quotes), name, why, quotes[0][:60]) if strict else
            "stale quote: %s: %d quote(s) from %s (%s), the file not named in the sentence"
            % (path, len(quotes), name, why))
    for name in sorted(rule.same_code):
        rule.notes.append("%s: measured on an earlier series tree with today's code (code_sha "
                          "equal: only Documentation/ or tools/testing/selftests/ differ)" % name)
    return problems, files, rule.notes


def runs_md_files(root):
    """(json path, md path, title) of every committed results file."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "docs", "results", "*.json"))):
        title = os.path.basename(path)[:-5]
        out.append((path, path[:-5] + ".md", title))
    return out


def runs_md_render(path, title):
    with open(path) as f:
        return runs_md.render(json.load(f), title) + "\n"


def runs_md_check(root):
    problems = []
    for path, md, title in runs_md_files(root):
        want = runs_md_render(path, title)
        try:
            with open(md, encoding="utf-8") as f:
                have = f.read()
        except OSError:
            have = None
        if have != want:
            problems.append("%s differs from what bench/analysis/figures.py runs-md renders from %s"
                            % (os.path.relpath(md, root), os.path.basename(path)))
    return problems


def main(argv):
    root = os.path.dirname(os.path.dirname(HERE))
    args = argv[1:]
    if "--root" in args:
        i = args.index("--root")
        if i + 1 >= len(args):
            print("figures.py: --root needs a DIR", file=sys.stderr)
            return 2
        root = args[i + 1]
        del args[i:i + 2]
        if not os.path.isdir(root):
            print("figures.py: no such folder %s" % root, file=sys.stderr)
            return 66
    if not args or args[0] not in ("check", "show", "runs-md"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if args[0] == "show":
        vals, problems = values(Results(root))
        for name in args[1:] or sorted(vals):
            if name not in FIGS:
                print("figures.py: no figure %s" % name, file=sys.stderr)
                return 2
            print("%s:\n%s\n" % (name, vals.get(name, "(missing)")))
        for p in problems:
            print("figures.py: " + p, file=sys.stderr)
        return 1 if problems else 0
    if args[0] == "runs-md":
        if args[1:] == ["--check"]:
            problems = runs_md_check(root)
            for p in problems:
                print("figures.py: " + p, file=sys.stderr)
            return 1 if problems else 0
        if args[1:]:
            print("figures.py: runs-md takes only --check", file=sys.stderr)
            return 2
        for path, md, title in runs_md_files(root):
            with open(md, "w", encoding="utf-8") as f:
                f.write(runs_md_render(path, title))
        return 0
    if args[1:] not in ([], ["--strict"]):
        print("figures.py: check takes only --strict and --root DIR", file=sys.stderr)
        return 2
    problems, files, notes = check(root, STRICT or args[1:] == ["--strict"])
    for p in notes:
        print("figures.py: " + p)
    for p in problems:
        print("figures.py: " + p, file=sys.stderr)
    print("figures.py: %d files checked, %d quotes, %d problems" % (len(files), len(QUOTES), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
