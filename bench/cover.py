#!/usr/bin/python3
"""cover - fill the git format-patch cover letter from a results.json.

Usage: bench/cover.py RESULTS_JSON TEMPLATE COVER_LETTER
       (also: bench/report.py --cover RESULTS_JSON TEMPLATE COVER_LETTER)

TEMPLATE is the series' cover-letter.txt: its first line is the subject,
the rest the blurb, with placeholders @TABLE@ (the exit storm rows of the
comparison), @MICRO@ (the regression table), @TRADEOFF@ (the page-fault
sweep and the trade-off table), @LEGEND@ (configs/settings), @REPS@ and
@CHUNKED@ (refills by hold: unpatched, def, k0).  COVER_LETTER, written by
git format-patch --cover-letter, gets them in place of *** SUBJECT HERE ***
and *** BLURB HERE ***.  scripts/series calls it.  Exit status: 0 done, 1
COVER_LETTER is not a format-patch cover letter, 2 usage.
"""
import json
import sys

from tables import (chunked_verdict, legend, regression_table, sweep_table, table,
                    tradeoff_table)


def cover(results_path, template_path, cover_path, prog="cover"):
    with open(results_path) as f:
        res = json.load(f)
    storms = [c for c in res if c["workload"].startswith("exit-storm")]
    with open(template_path) as f:
        subject, _, body = f.read().partition("\n")
    body = body.lstrip("\n")
    body = body.replace("@TABLE@", table(res, "cover"))
    body = body.replace("@LEGEND@", legend())
    body = body.replace("@MICRO@", regression_table(res))
    body = body.replace("@TRADEOFF@", sweep_table(res) + "\n" + tradeoff_table(res))
    body = body.replace("@CHUNKED@", chunked_verdict(res))
    body = body.replace("@REPS@", str(storms[0]["reps"] if storms else 0))
    with open(cover_path) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        print("%s: %s is not a format-patch cover letter" % (prog, cover_path), file=sys.stderr)
        return 1
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    text = text.replace("*** BLURB HERE ***", body.rstrip("\n"))
    with open(cover_path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: cover.py RESULTS_JSON TEMPLATE COVER_LETTER", file=sys.stderr)
        sys.exit(2)
    sys.exit(cover(*sys.argv[1:]))
