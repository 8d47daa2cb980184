#!/usr/bin/python3
"""test_provenance - every row of results.json names the kernel and run it
measured (tests/run -t provenance-host).

A made-up bench output (tests/host/fake_raw.py) where bench/run's
provenance.json and the guest's uname.txt are written into some boot
folders and not others: bench/analysis/report.py must copy into each row
the provenance of the folder of its own kernel and timing (the icount
page-fault sweep: icount/raw/sweep/), with "uname" from uname.txt, and
null fields where a file is absent.  KTAP output.
"""
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_raw  # noqa: E402
from ktap import Ktap  # noqa: E402

# (folder under DIR, timing): each folder's own series_sha and uname
GIVEN = {("raw/patched", "tcg"): "a1" * 20, ("icount/raw/patched", "icount"): "b2" * 20,
         ("icount/raw/sweep", "icount"): "c3" * 20, ("icount/raw/base", "icount"): "d4" * 20}


def given(out):
    for (folder, timing), sha in GIVEN.items():
        d = os.path.join(out, folder)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "provenance.json"), "w") as f:
            json.dump({"base_version": "7.3.4-1", "series_sha": sha, "tree_dirty": False,
                       "patch_ids": ["p" + sha[:6]], "config_sha256": "e" * 64,
                       "variant": folder.rsplit("/", 1)[1].replace("sweep", "patched"),
                       "commit": "0123456789ab", "qemu": "7.2.15", "timing": timing,
                       "host_cpu": "fake CPU", "date": "2026-12-04T17:00:00Z"}, f)
        if folder != "icount/raw/base":
            with open(os.path.join(d, "uname.txt"), "w") as f:
                f.write("7.3.4-%s #1 SMP %s\n" % (sha[:2], timing))


def main():
    k = Ktap()
    with tempfile.TemporaryDirectory() as out:
        fake_raw.write(out, {"base": ["def", "hfmax"], "patched": ["def", "k0", "hfmax"]})
        given(out)
        p = subprocess.run([sys.executable, os.path.join(TOP, "bench", "analysis", "report.py"),
                            out], capture_output=True, text=True)
        k.result(p.returncode == 0, "report.py analyses the made-up run", p.stderr)
        if p.returncode:
            return k.finish()
        with open(os.path.join(out, "results.json")) as f:
            rows = json.load(f)
    k.result(rows and all("provenance" in r for r in rows), "every row has a provenance object",
             [r.get("workload") for r in rows if "provenance" not in r])

    def want(r):
        if r["timing"] == "tcg":
            return "raw/" + r["kernel"]
        if r["workload"] == "micro-sweep:pf":
            return "icount/raw/sweep"
        return "icount/raw/" + r["kernel"]
    bad = []
    for r in rows:
        folder = want(r)
        sha = GIVEN.get((folder, r["timing"]))
        pv = r["provenance"]
        if sha is None:
            ok = all(v is None for v in pv.values()) and "series_sha" in pv and "uname" in pv
        else:
            uname = None if folder == "icount/raw/base" else "7.3.4-%s #1 SMP %s" % (sha[:2], r["timing"])
            ok = (pv["series_sha"] == sha and pv["timing"] == r["timing"] and pv["uname"] == uname
                  and pv["patch_ids"] == ["p" + sha[:6]] and pv["base_version"] == "7.3.4-1")
        if not ok:
            bad.append("%s %s %s: %r" % (r["kernel"], r["timing"], r["workload"], pv))
    k.result(not bad, "each row carries the provenance and uname of its own kernel and timing",
             "\n".join(bad))
    timings = {r["provenance"]["series_sha"] for r in rows if r["kernel"] == "patched"}
    k.result(len(timings) == 3, "tcg, icount and the sweep of one kernel keep their own folders",
             repr(timings))
    none = [r for r in rows if r["kernel"] == "base" and r["timing"] == "tcg"]
    k.result(none and all(r["provenance"]["uname"] is None and r["provenance"]["series_sha"] is None
                          for r in none), "no provenance.json, no uname.txt: null fields",
             repr(none[:1]))
    half = [r for r in rows if r["kernel"] == "base" and r["timing"] == "icount"]
    k.result(half and all(r["provenance"]["uname"] is None
                          and r["provenance"]["series_sha"] == GIVEN[("icount/raw/base", "icount")]
                          for r in half), "provenance.json without uname.txt: uname null",
             repr(half[:1]))
    code_tree(k)
    return k.finish()


def code_tree(k):
    """scripts/lib.sh code_tree: blind to Documentation/ and the selftests only."""
    with tempfile.TemporaryDirectory() as repo:
        def sh(*cmd):
            return subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout

        def code():
            sh("git", "add", "-A")
            tree = sh("git", "write-tree").strip()
            return subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh"; code_tree "$2" "$3"', "_",
                                   TOP, repo, tree], capture_output=True, text=True).stdout.strip()

        def edit(path):
            os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
            with open(os.path.join(repo, path), "a") as f:
                f.write("x\n")
        sh("git", "init", "-q")
        for path in ("mm/page_alloc.c", "Documentation/vm.rst", "tools/perf/p.c",
                     "tools/testing/selftests/mm/t.c", "tools/testing/kunit/k.py"):
            edit(path)
        first = code()
        for path, same in (("Documentation/vm.rst", True), ("tools/testing/selftests/mm/t.c", True),
                           ("tools/testing/kunit/k.py", False), ("tools/perf/p.c", False),
                           ("mm/page_alloc.c", False)):
            edit(path)
            now = code()
            k.result(len(now) == 40 and (now == first) == same,
                     "code_tree %s when %s changes" % ("stays" if same else "moves", path),
                     "%s -> %s" % (first, now))
            first = now


if __name__ == "__main__":
    sys.exit(main())
