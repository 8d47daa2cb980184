#!/usr/bin/python3
"""test_new_setting - adding a setting is one line of configs/settings, and
a sysctl one column (tests/run -t new-setting-host).

In a scratch copy of the repository, configs/settings gets a line k5 (knob
5, patched kernel, views tradeoff and text) and a third sysctl column,
watermark_scale_factor ('=' on every line); nothing else changes.
bench/analysis/report.py, fed a made-up run holding k5
(tests/host/fake_raw.py), must put k5 in the legend and in every table in
file order (after k4), its rows must carry the new sysctl, and the texts'
knob-against-fraction order must take it (from the largest knob down).
(bench/run --plan showing it: tests/host/harness.sh.)  KTAP output.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_raw  # noqa: E402
from ktap import Ktap  # noqa: E402

K5 = "k5     | 5 | 0 | patched | knob | no | tradeoff,text | tab:olive | knob 5 | knob 5 | knob 5: up to batch << 5"


def scratch(d):
    for name in ("configs", "bench", "docs", "patches", "README.md"):
        src, dst = os.path.join(TOP, name), os.path.join(d, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)
    path = os.path.join(d, "configs", "settings")
    with open(path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            out.append(line)
            continue
        cells = line.split("|")
        cells.insert(3, " watermark_scale_factor " if cells[0].strip() == "label" else " = ")
        out.append("|".join(cells))
        if cells[0].strip() == "k4":
            k5 = K5.split("|")
            k5.insert(3, " = ")
            out.append("|".join(k5))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def order(text, labels, kernel=None):
    """LABELS in the order of their first line in TEXT (of KERNEL's lines)."""
    first = {}
    for n, line in enumerate(text.splitlines()):
        if kernel and kernel not in line.split():
            continue
        for w in line.split():
            if w in labels:
                first.setdefault(w, n)
    return sorted(first, key=first.get)


def main():
    k = Ktap()
    with tempfile.TemporaryDirectory() as d:
        scratch(d)
        out = os.path.join(d, "run")
        fake_raw.write(out, {"base": ["def", "hfmax"],
                             "patched": ["def", "k0", "k4", "k5", "hfmax"]})
        p = subprocess.run([sys.executable, os.path.join(d, "bench", "analysis", "report.py"), out],
                           capture_output=True, text=True)
        k.result(p.returncode == 0, "report.py reads the new file and the new setting", p.stderr)
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        legend = md.split("## Settings\n")[1].split("```")[1]
        k.result("k5      knob 5: up to batch << 5" in legend and
                 order(legend, ("k4", "k5", "hf-1")) == ["k4", "k5", "hf-1"],
                 "the legend gives k5 after k4", legend)
        for title in ("## Side by side", "## The knob's trade-off"):
            part = md.split(title)[1].split("\n## ")[0]
            for table in part.split("```")[1::2]:
                if " k5 " not in table:
                    continue
                kernel = "patched" if "patched" in table.split() else None
                got = order(table, ("def", "k0", "k4", "k5", "hfmax"), kernel)
                k.result(got == ["def", "k0", "k4", "k5", "hfmax"],
                         "%s: the patched kernel's k5 between k4 and hfmax, file order"
                         % table.split("\n")[1].split()[0],
                         "%r\n%s" % (got, table))
        with open(os.path.join(out, "results.json")) as f:
            rows = [r for r in json.load(f) if r.get("setting") == "k5"]
        k.result(rows and all("watermark_scale_factor" in r["settings"] for r in rows
                              if r.get("workload") == "exit-storm"),
                 "k5's rows carry the third sysctl", json.dumps(rows[:1])[:500])
        p = subprocess.run([sys.executable, "-c", "import figure_defs; print(figure_defs.KVF)"],
                           cwd=os.path.join(d, "bench", "analysis"), capture_output=True, text=True)
        k.result(p.stdout.strip() == str(["def", "k5", "k4", "k3", "k2", "k1", "k0", "hfmax", "hf-1"]),
                 "the texts' order takes k5 first among the knobs", p.stdout + p.stderr)
    return k.finish()


if __name__ == "__main__":
    sys.exit(main())
