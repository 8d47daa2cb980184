#!/usr/bin/python3
"""reconstruct_provenance - the provenance the committed docs/results/*.json
can truly have, written once into each row (issue 38, item 2); kept for the
record.

Usage: bench/analysis/reconstruct_provenance.py [FILE.json...]
       bench/analysis/reconstruct_provenance.py --code-sha [FILE.json...]
       (default: every docs/results/*.json)

--code-sha adds, to every row (live or reconstructed) with a series_sha and
no code_sha, the code_sha of that tree (scripts/lib.sh code_tree: the tree
without Documentation/), with code_sha_from saying so; the tree is made
again, where build/BASE/linux lacks it, by git am of patches/ at the row's
commit, and used only when it is the series_sha recorded.  A row whose tree
cannot be made keeps no code_sha.

These files were written before bench/run recorded provenance.json in each
boot folder.  Each row gets a "provenance" object with the fields of a live
run (bench/analysis/report.py) plus "reconstructed": true; what no record
holds (tree_dirty, patch_ids, config_sha256, qemu, host_cpu, uname) is
null, never guessed:

  commit        the repository commit that committed the file's rows:
                git log --diff-filter=A --format=%h -1 -- FILE, except
                where docs/results.md says otherwise (COMMIT below)
  date          from the file name, else that commit's date (date_from)
  timing, variant  the row's timing and kernel
  base_version  BASE_VERSION of configs/base-BASE.pin at that commit
                (BASE: the row's base)
  series_sha    patched and tracers rows: the tree object git am of
                patches/ (6.12: patches/6.12/) as of that commit gives
                on the pinned base (scripts/lib.sh applied_tree, on
                build/BASE/linux; null where this machine has no such
                tree), with series_sha_from "patches/ at COMMIT"; null
                for base rows (the unpatched kernel is built from the
                pristine source, no tree: as a live run records it) and
                for kernels that were not patches/ at any commit
                (EXPERIMENT below), with the reason in series_sha_from.

A file whose rows already carry a live provenance (no "reconstructed") is
left alone.  The rows are rewritten as report.py writes them (indent 1).
"""
import glob
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# docs/results.md: the commit that committed these rows is not the one that
# added the file name
COMMIT = {
    # re-measured at db749af ("7.3.json re-measured"; 71e1d7e re-rendered the
    # same raw folder); d865eb0 added the drain-patch run that
    # 2026-12-02-full-drain-patch.json now holds
    "7.3.json": "db749af",
    # committed as 7.3.json at d865eb0; fc1a242 only gave it this name
    "2026-12-02-full-drain-patch.json": "d865eb0",
}
# docs/results.md: the series was patches/ of another commit
SERIES_AT = {
    # "the series as of d771860, whose 0003 was chunked-refill.patch"
    "2026-12-02-tcg-quiet-chunked-refill.json": "d771860",
}
# docs/results.md: kernels that were not patches/ at any commit
EXPERIMENT = {
    ("2026-12-02-icount-short.json", "patched"): "docs/experiments/refill-under-pcp-lock-switch.patch on "
    "the series before the review fixes (docs/results.md): not patches/ at any commit",
    ("2026-12-02-tcg-short.json", "patched"): "docs/experiments/refill-under-pcp-lock-switch.patch on "
    "the series before the review fixes (docs/results.md): not patches/ at any commit",
    ("2026-12-02-icount-short-first-design.json", "patched"): "docs/experiments/"
    "refill-under-pcp-lock-switch.patch (switch 0) on the series before the review fixes "
    "(docs/results.md): not patches/ at any commit",
    ("2026-12-02-tcg-waits-light-probe.json", "chunked"): "build/7.3/kernel-exp: docs/experiments/"
    "refill-under-pcp-lock-switch.patch (docs/results.md): not patches/ at any commit",
}
SERIES_VARIANTS = ("patched", "tracers")


def git(*args, strip=True):
    out = subprocess.run(["git", "-C", TOP] + list(args), check=True, capture_output=True,
                         text=True).stdout
    return out.strip() if strip else out


def pin(commit, base):
    text = git("show", "%s:configs/base-%s.pin" % (commit, base))
    return dict(re.findall(r"^(BASE_VERSION|BASE_COMMIT)=(\S+)", text, re.M))


def series_tree(commit, base, _memo={}):
    """applied_tree of patches/ (6.12: patches/6.12/) as of COMMIT on the
    pinned base, or (None, why)."""
    if (commit, base) in _memo:
        return _memo[commit, base]
    pdir = "patches" if base == "7.3" else "patches/" + base
    repo = os.path.join(TOP, "build", base, "linux")
    names = [n for n in git("ls-tree", "--name-only", commit, pdir + "/").splitlines()
             if re.match(r"\d{4}-.*\.patch$", os.path.basename(n))]
    bc = pin(commit, base).get("BASE_COMMIT")
    got = (None, "no %s on this machine" % os.path.relpath(repo, TOP))
    if os.path.isdir(os.path.join(repo, ".git")) and bc and subprocess.run(
            ["git", "-C", repo, "cat-file", "-e", bc + "^{commit}"], capture_output=True).returncode == 0:
        tmp = subprocess.run(["mktemp", "-d"], capture_output=True, text=True).stdout.strip()
        files = []
        for n in sorted(names):
            path = os.path.join(tmp, os.path.basename(n))
            with open(path, "w") as f:
                f.write(git("show", "%s:%s" % (commit, n), strip=False))
            files.append(path)
        p = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh"; shift; applied_tree "$@"', "_",
                            TOP, repo, bc] + files, capture_output=True, text=True)
        subprocess.run(["rm", "-rf", tmp])
        got = (p.stdout.strip(), None) if p.returncode == 0 else \
            (None, "%s/ at %s: %s (scripts/lib.sh applied_tree; make tree's git am -3 may "
             "have applied it)" % (pdir, commit, (p.stderr.strip().splitlines() or ["?"])[-1]))
    _memo[commit, base] = got
    return got


def provenance(name, row, commit, date, date_from):
    base, kernel = row.get("base"), row.get("kernel")
    p = {"base_version": pin(commit, base).get("BASE_VERSION") if base else None,
         "series_sha": None, "series_sha_from": None, "tree_dirty": None, "patch_ids": None,
         "config_sha256": None, "variant": kernel, "commit": commit, "qemu": None,
         "timing": row.get("timing"), "host_cpu": None, "date": date, "date_from": date_from,
         "uname": None, "reconstructed": True}
    if (name, kernel) in EXPERIMENT:
        p["series_sha_from"] = EXPERIMENT[name, kernel]
    elif kernel == "base":
        p["series_sha_from"] = "the unpatched kernel: no series"
    elif kernel in SERIES_VARIANTS and base:
        at = SERIES_AT.get(name, commit)
        sha, why = series_tree(at, base)
        pdir = "patches/" if base == "7.3" else "patches/%s/" % base
        p["series_sha"] = sha
        p["series_sha_from"] = "%s at %s" % (pdir, at) if sha else why
    return p


def reconstruct(path):
    name = os.path.basename(path)
    with open(path) as f:
        rows = json.load(f)
    if any("provenance" in r and not r["provenance"].get("reconstructed") for r in rows):
        print("%s: has a live provenance, left alone" % path)
        return
    commit = COMMIT.get(name) or git("log", "--diff-filter=A", "--format=%h", "-1", "--",
                                                     "docs/results/" + name)
    m = re.match(r"(\d{4}-\d\d-\d\d)-", name)
    if m:
        date, date_from = m.group(1), "file name"
    else:
        date, date_from = git("show", "-s", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ",
                              commit), "commit %s" % commit
    for r in rows:
        r["provenance"] = provenance(name, r, commit, date, date_from)
    with open(path, "w") as f:
        f.write(json.dumps(rows, indent=1))
    shas = sorted({str(r["provenance"]["series_sha"]) for r in rows})
    print("%s: commit %s, series_sha %s" % (name, commit, " ".join(shas)))


def code_sha(path):
    name = os.path.basename(path)
    with open(path) as f:
        rows = json.load(f)
    done = {}
    for r in rows:
        p, base = r.get("provenance") or {}, r.get("base")
        sha = p.get("series_sha")
        if not sha or not base:
            continue
        if (sha, base) not in done:
            repo = os.path.join(TOP, "build", base, "linux")
            have = os.path.isdir(repo) and subprocess.run(
                ["git", "-C", repo, "cat-file", "-e", sha + "^{tree}"],
                capture_output=True).returncode == 0
            at = SERIES_AT.get(name) or (p.get("commit") or "").removesuffix("-dirty")
            if not have and at and series_tree(at, base)[0] == sha:
                have = True
            code = None
            if have:
                q = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh"; shift; code_tree "$@"',
                                    "_", TOP, repo, sha], capture_output=True, text=True)
                code = q.stdout.strip() if q.returncode == 0 else None
            done[sha, base] = code
        if done[sha, base]:
            p["code_sha"] = done[sha, base]
            p["code_sha_from"] = ("scripts/lib.sh code_tree of series_sha, recomputed 2026-12-06 "
                                  "(without Documentation/ and tools/testing/selftests/)")
    with open(path, "w") as f:
        f.write(json.dumps(rows, indent=1))
    print("%s: code_sha %s" % (name, " ".join(sorted({str(v) for v in done.values()})) or "-"))


def main(argv):
    todo = code_sha if argv[1:2] == ["--code-sha"] else reconstruct
    args = argv[2:] if todo is code_sha else argv[1:]
    files = args or sorted(glob.glob(os.path.join(TOP, "docs", "results", "*.json")))
    for path in files:
        todo(path)
    return 0


if __name__ == "__main__":
    os.environ["TZ"] = "UTC"
    sys.exit(main(sys.argv))
