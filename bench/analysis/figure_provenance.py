"""figure_provenance - a text quotes a results file measured on today's
series, or names the file it quotes (issue 38; read by bench/analysis/figures.py).

Each row of a results file carries "provenance" (bench/analysis/report.py;
for the files written before that, bench/analysis/reconstruct_provenance.py)
with the series_sha of the kernel it measured: the tree object of
build/BASE/linux.  The current series tree of a base is what git am of
today's patches/ (6.12: patches/6.12/) gives on the pinned base
(scripts/lib.sh applied_tree), computed once per check.  A results file is
current when every series_sha its rows carry (the unpatched kernel's is
null) is that tree, or when every row with a series_sha also carries a
code_sha equal to that tree's without Documentation/ (scripts/lib.sh
code_tree: the same code built and tested, only the documentation's text
changed since; check says which files it takes so).  A quote of a figure read from a file that is not
current passes only when its sentence (from the end of the sentence before
it to the end of its own; for a table, the caption line before it) names
the file: NAME.json, or NAME.md, its tables.

Where this machine cannot compute a base's current tree (no
build/BASE/linux holding the pinned base commit, e.g. a fresh clone before
make tree), the rule is skipped for that base and check says so in one
line.
"""
import glob
import json
import os
import re
import subprocess

from figure_defs import FIGS, SOURCES, Missing, Results

# Whether check fails on a stale quote by default (else it lists them; check
# --strict fails).  Every text now names the file of each quote measured on
# an earlier tree (7.3.json and the 2026-12-03 files: the same code, an
# earlier vm.rst), so a new stale quote fails make check.
STRICT = True


class Tracking(Results):
    """Results that remember which files a figure read."""
    def __init__(self, root):
        super().__init__(root)
        self.read = set()

    def rows(self, src, **kw):
        self.read.update(SOURCES[src])
        return super().rows(src, **kw)


def figure_files(root):
    """{figure name: the results files (names under docs/results/) it reads}."""
    out = {}
    for name, fn in FIGS.items():
        R = Tracking(root)
        try:
            fn(R)
        except Missing:
            pass
        out[name] = R.read
    return out


def _pin(root, base):
    try:
        with open(os.path.join(root, "configs", "base-%s.pin" % base)) as f:
            return dict(re.findall(r"^(BASE_\w+)=(\S+)", f.read(), re.M))
    except OSError:
        return {}


def current_tree(root, base):
    """(tree, None), or (None, why it cannot be computed here)."""
    repo = os.path.join(root, "build", base, "linux")
    bc = _pin(root, base).get("BASE_COMMIT")
    if not bc or not os.path.isdir(os.path.join(repo, ".git")) or subprocess.run(
            ["git", "-C", repo, "cat-file", "-e", bc + "^{commit}"], capture_output=True).returncode:
        return None, "no build/%s/linux holding the pinned base commit on this machine (make tree)" % base
    pdir = os.path.join(root, "patches", *(() if base == "7.3" else (base,)))
    files = sorted(glob.glob(os.path.join(pdir, "[0-9][0-9][0-9][0-9]-*.patch")))
    p = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh"; shift; applied_tree "$@"', "_", root,
                        repo, bc] + files, capture_output=True, text=True)
    if p.returncode:
        return None, "today's %s does not apply on the pinned base: %s" % (
            os.path.relpath(pdir, root), (p.stderr.strip().splitlines() or ["?"])[-1])
    return p.stdout.strip(), None


def current_code(root, base, tree):
    """scripts/lib.sh code_tree of TREE: today's series without Documentation/."""
    repo = os.path.join(root, "build", base, "linux")
    p = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh"; shift; code_tree "$@"', "_", root,
                        repo, tree], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


class Rule:
    def __init__(self, root):
        self.root = root
        self.files = figure_files(root)
        self.trees = {}
        self.notes = []
        self.stale = {}
        self.same_code = set()

    def _stale(self, name):
        """Why results file NAME is not current, or None when it is (or when
        the rule is skipped for its base)."""
        if name not in self.stale:
            try:
                with open(os.path.join(self.root, "docs", "results", name)) as f:
                    rows = json.load(f)
            except (OSError, ValueError):
                rows = []  # reported by the figures that read it
            why = None
            for base in sorted({r.get("base") for r in rows if r.get("base")}):
                if base not in self.trees:
                    self.trees[base] = current_tree(self.root, base)
                    if self.trees[base][0] is None:
                        self.notes.append("the series_sha rule is skipped for %s: %s"
                                          % (base, self.trees[base][1]))
                tree = self.trees[base][0]
                if tree is None:
                    continue
                shas = {(r.get("provenance") or {}).get("series_sha") for r in rows
                        if r.get("base") == base} - {None}
                if shas == {tree}:
                    continue
                # the same code, only the documentation's text changed since
                codes = {(r.get("provenance") or {}).get("code_sha") for r in rows
                         if r.get("base") == base and (r.get("provenance") or {}).get("series_sha")}
                if None not in codes and codes == {current_code(self.root, base, tree)}:
                    self.same_code.add(name)
                    continue
                why = "series_sha %s, not today's series tree %s" % (
                    " ".join(sorted(s[:12] for s in shas)) or "unknown", tree[:12])
            self.stale[name] = why
        return self.stale[name]

    def refusals(self, text, start, end, names):
        """The problems of a quote at text[start:end] of figures NAMES: one
        per file it quotes that is not current and that its sentence does
        not name."""
        files = set().union(*(self.files.get(n, set()) for n in names)) if names else set()
        before = [m.end() for m in re.finditer(r"[.!?]\s", text[:start])]
        after = re.search(r"[.!?](\s|$)", text[end:])
        sentence = text[before[-1] if before else 0:end + (after.end() if after else 0)]
        out = []
        for name in sorted(files):
            why = self._stale(name)
            if why and name not in sentence and name[:-5] + ".md" not in sentence:
                out.append((name, why))
        return out
