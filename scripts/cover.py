#!/usr/bin/python3
"""cover - a stored cover letter into its outgoing copy.

Usage: scripts/cover.py fill COVER OUTGOING [TRAILER...]

A stored cover letter (patches/cover-letter-N.txt, see patches/postings) is
the text mailed as it stands: its first line the subject, the rest the
body.  Its figures are plain text, checked against the committed results
by bench/analysis/figures.py (make check).  fill writes COVER into OUTGOING, a
cover letter of git format-patch --cover-letter (*** SUBJECT HERE *** /
*** BLURB HERE ***), and puts each TRAILER line (prerequisite-patch-id:
...) after the shortlog, before the signature, where format-patch --base
puts them.  Each @HARNESS_URL@ of COVER becomes the harness's public
address, the environment's HARNESS_URL (scripts/series sets it); without
one it reads "<the harness's address: set HARNESS_URL>", and make series
writes a dry run only.

Exit status: 0 done, 1 OUTGOING is no format-patch cover letter, 2 usage.
"""
import os
import sys


def fill(cover_path, outgoing, trailers, prog="cover"):
    with open(cover_path) as f:
        subject, _, body = f.read().partition("\n")
    with open(outgoing) as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        print("%s: %s is not a format-patch cover letter" % (prog, outgoing), file=sys.stderr)
        return 1
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    url = os.environ.get("HARNESS_URL") or "<the harness's address: set HARNESS_URL>"
    body = body.replace("@HARNESS_URL@", url)
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
    if len(argv) >= 4 and argv[1] == "fill":
        return fill(argv[2], argv[3], argv[4:], prog)
    print("usage: cover.py fill COVER OUTGOING [TRAILER...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
