#!/usr/bin/python3
"""cover - the figures of the stored cover letters, and their outgoing copies.

Usage: bench/cover.py render RESULTS_JSON COVER...
       bench/cover.py check RESULTS_JSON COVER...
       bench/cover.py fill COVER OUTGOING [TRAILER...]

A stored cover letter (patches/cover-letter-N.txt, see patches/postings) is
the text mailed as it stands: its first line the subject, the rest the
body.  Its tables sit between two marker lines,

    {{render NAME [settings=LABEL,LABEL...]}}
    ...the table, rendered...
    {{end}}

and come from the committed results of the base (docs/results/BASE.json,
a copy of a bench run's results.json that bench/run refreshes).  NAME is one
of BLOCKS below; settings= keeps the rows of those configs/settings labels
(and the rows that have no setting, such as the regression probes).

render rewrites every block of each COVER in place from RESULTS_JSON; when
RESULTS_JSON does not exist, each block says so in one line (NO_RESULTS),
and check and scripts/series treat the letter as not sendable.
check renders into memory and compares: status 1 and a diff when a block
differs from what RESULTS_JSON gives (a figure edited by hand, a stale
render), or when a block is unterminated or unknown.
fill writes COVER, the marker lines dropped, into OUTGOING, a cover letter
of git format-patch --cover-letter (*** SUBJECT HERE *** / *** BLURB HERE
***), and puts each TRAILER line (prerequisite-patch-id: ...) after the
shortlog, before the signature, where format-patch --base puts them.

Exit status: 0 done, 1 a check failed or OUTGOING is no format-patch cover
letter, 2 usage or a malformed COVER.
"""
import difflib
import json
import os
import re
import sys

from tables import (chunked_verdict, cost_table, legend, regression_table, sweep_table,
                    table, tradeoff_table)


def _reps(res):
    storms = [c for c in res if c.get("workload", "").startswith("exit-storm")]
    reps = sorted({c.get("reps") for c in storms if c.get("reps")})
    if not reps:
        return "(no exit-storm runs in results.json)\n"
    return "Repetitions per setting: %s, interleaved.\n" % ", ".join(str(r) for r in reps)


BLOCKS = {
    "comparison": lambda res: table(res, "cover"),
    "legend": lambda res: legend(),
    "regression": regression_table,
    "sweep": sweep_table,
    "tradeoff": tradeoff_table,
    "costs": cost_table,
    "chunked": lambda res: chunked_verdict(res) + "\n",
    "reps": _reps,
}
NO_RESULTS = "(no measurements committed for this base: %s)\n"
BEGIN = re.compile(r"^\{\{render ([a-z]+)((?: [a-z]+=[^ }]*)*)\}\}$")
END = "{{end}}"


class Malformed(Exception):
    pass


def _load(results_path):
    if not os.path.exists(results_path):
        return None
    with open(results_path) as f:
        return json.load(f)


def render_block(res, results_path, name, opts):
    if name not in BLOCKS:
        raise Malformed("unknown table '%s' (known: %s)" % (name, ", ".join(sorted(BLOCKS))))
    if res is None:
        return NO_RESULTS % results_path
    keep = None
    for opt in opts.split():
        key, _, val = opt.partition("=")
        if key != "settings":
            raise Malformed("unknown option '%s' of table '%s'" % (key, name))
        keep = set(val.split(","))
    if keep is not None:
        res = [c for c in res if "setting" not in c or c["setting"] in keep]
    text = BLOCKS[name](res)
    return text if text.endswith("\n") else text + "\n"


def render_text(text, res, results_path, where):
    """TEXT with every block rendered again."""
    out, lines, i = [], text.splitlines(keepends=True), 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = BEGIN.match(line.rstrip("\n"))
        if not m:
            if line.startswith("{{"):
                raise Malformed("%s:%d: not a marker line: %s" % (where, i, line.strip()))
            continue
        start = i
        while i < len(lines) and lines[i].rstrip("\n") != END:
            if lines[i].startswith("{{"):
                raise Malformed("%s:%d: a marker inside the block opened at line %d"
                                % (where, i + 1, start))
            i += 1
        if i == len(lines):
            raise Malformed("%s:%d: the block has no %s line" % (where, start, END))
        try:
            out.append(render_block(res, results_path, m.group(1), m.group(2)))
        except Malformed as e:
            raise Malformed("%s:%d: %s" % (where, start, e))
        out.append(lines[i])
        i += 1
    return "".join(out)


def strip_markers(text):
    return "".join(l for l in text.splitlines(keepends=True)
                   if not BEGIN.match(l.rstrip("\n")) and l.rstrip("\n") != END)


def render(results_path, covers, check=False, prog="cover"):
    res = _load(results_path)
    status = 0
    for path in covers:
        with open(path) as f:
            text = f.read()
        new = render_text(text, res, results_path, path)
        if check:
            if new != text:
                sys.stdout.writelines(difflib.unified_diff(
                    text.splitlines(keepends=True), new.splitlines(keepends=True),
                    path + " (stored)", path + " (rendered from %s)" % results_path))
                status = 1
            if res is None and NO_RESULTS % results_path in new:
                print("%s: %s: no %s, its tables say so" % (prog, path, results_path))
        elif new != text:
            with open(path, "w") as f:
                f.write(new)
            print("%s: rendered %s from %s" % (prog, path, results_path))
    return status


def fill(cover_path, outgoing, trailers, prog="cover"):
    with open(cover_path) as f:
        subject, _, body = strip_markers(f.read()).partition("\n")
    with open(outgoing) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        print("%s: %s is not a format-patch cover letter" % (prog, outgoing), file=sys.stderr)
        return 1
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    text = text.replace("*** BLURB HERE ***", body.strip("\n"))
    if trailers:
        head, sep, sig = text.rpartition("\n-- \n")
        if not sep:
            head, sig = text.rstrip("\n"), ""
        text = head.rstrip("\n") + "\n\n" + "\n".join(trailers) + "\n" + sep[1:] + sig
    with open(outgoing, "w") as f:
        f.write(text)
    return 0


def main(argv):
    prog = os.path.basename(argv[0])
    cmd = argv[1] if len(argv) > 1 else ""
    try:
        if cmd in ("render", "check") and len(argv) >= 4:
            return render(argv[2], argv[3:], cmd == "check", prog)
        if cmd == "fill" and len(argv) >= 4:
            return fill(argv[2], argv[3], argv[4:], prog)
    except Malformed as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    print("usage: cover.py render|check RESULTS_JSON COVER... | fill COVER OUTGOING [TRAILER...]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
