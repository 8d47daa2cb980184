#!/usr/bin/python3
"""test_bloat - scripts/bloat on two made-up builds, and the figures 0002
quotes read back from its output (tests/run -t bloat-host).  KTAP output.

Two tiny objects with free_pcppages_bulk() and __rmqueue_pcplist() of known
sizes stand in for mm/page_alloc.o and vmlinux of an old and a new build:
scripts/bloat must print both sections with bloat-o-meter's deltas (the
sizes nm gives) and size -A's .text, and figure_defs_cost._bloat() must read
the same numbers back; without a section it must say so (Missing); bad
arguments exit 2, a missing build 66, each with one line.
"""
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "analysis"))
from figure_defs import Missing  # noqa: E402  (first: it registers figure_defs_cost)
import figure_defs_cost  # noqa: E402
from ktap import Ktap  # noqa: E402

K = Ktap()
check = K.result
BLOAT = os.path.join(TOP, "scripts", "bloat")
SRC = {"old": "int free_pcppages_bulk(int x) { return x + 1; }\n"
              "int __rmqueue_pcplist(int x) { return x * 3; }\n",
       "new": "int free_pcppages_bulk(int x) { int i, s = 0; for (i = 0; i < x; i++) "
              "s += i * x ^ (s >> 1); return s; }\n"
              "int __rmqueue_pcplist(int x) { return x * 3 + (x >> 2); }\n"}


def sizes(obj):
    """{symbol: size} of OBJ's functions, and its .text size (nm, size -A)."""
    out = {}
    for line in subprocess.run(["nm", "-S", obj], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 4:
            out[f[3]] = int(f[1], 16)
    text = [int(line.split()[1]) for line in subprocess.run(
        ["size", "-A", obj], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.startswith(".text ")]
    return out, text[0]


def main():
    print("TAP version 13")
    with tempfile.TemporaryDirectory() as tmp:
        objs = {}
        for name, src in SRC.items():
            d = os.path.join(tmp, name)
            os.makedirs(os.path.join(d, "mm"))
            with open(os.path.join(tmp, name + ".c"), "w") as f:
                f.write(src)
            obj = os.path.join(d, "mm", "page_alloc.o")
            subprocess.run(["gcc", "-O2", "-c", os.path.join(tmp, name + ".c"), "-o", obj], check=True)
            subprocess.run(["cp", obj, os.path.join(d, "vmlinux")], check=True)
            objs[name] = sizes(obj)
        p = subprocess.run([BLOAT, "JUMP_LABEL=y", os.path.join(tmp, "old"), os.path.join(tmp, "new")],
                           capture_output=True, text=True)
        check(p.returncode == 0 and "## JUMP_LABEL=y: mm/page_alloc.o" in p.stdout
              and "## JUMP_LABEL=y: vmlinux" in p.stdout,
              "scripts/bloat prints both sections", "exit %d, stderr %r" % (p.returncode, p.stderr))
        path = os.path.join(tmp, "bloat.txt")
        with open(path, "w") as f:
            f.write("# header\n\n" + p.stdout)
        figure_defs_cost.BLOAT = path  # os.path.join keeps an absolute last part
        (fo, to), (fn, tn) = objs["old"], objs["new"]
        try:
            b = figure_defs_cost._bloat("JUMP_LABEL=y")
        except Missing as e:
            b = {"error": str(e)}
        want = {"free_pcppages_bulk": (str(fo["free_pcppages_bulk"]), str(fn["free_pcppages_bulk"]),
                                       fn["free_pcppages_bulk"] - fo["free_pcppages_bulk"]),
                "__rmqueue_pcplist": (str(fo["__rmqueue_pcplist"]), str(fn["__rmqueue_pcplist"]),
                                      fn["__rmqueue_pcplist"] - fo["__rmqueue_pcplist"])}
        total = sum(fn.values()) - sum(fo.values())
        check(b.get("fn") == want and b.get("text") == (to, tn) and b.get("vmlinux") == total,
              "the figures read back nm's sizes, size -A's .text and the vmlinux total",
              "read %r, want fn %r text %r vmlinux %r" % (b, want, (to, tn), total))
        try:
            figure_defs_cost._bloat("JUMP_LABEL not set")
            missing = False
        except Missing:
            missing = True
        check(missing, "a section the file lacks is Missing, not zeros", "")
        for args, code in (([], 2), (["x", "y"], 2),
                           (["L", os.path.join(tmp, "old"), os.path.join(tmp, "none")], 66)):
            p = subprocess.run([BLOAT] + args, capture_output=True, text=True)
            check(p.returncode == code and len(p.stderr.splitlines()) == 1 and not p.stdout,
                  "scripts/bloat %s: one line, exit %d" % (" ".join(args) or "(no arguments)", code),
                  "exit %d, stderr %r" % (p.returncode, p.stderr))
    return K.finish()


if __name__ == "__main__":
    sys.exit(main())
