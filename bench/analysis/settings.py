"""settings - configs/settings, the one list of settings, for the analysis.

Every column between `label` and `kernels` is a sysctl (its /proc/sys/vm
name); the columns after it are named by the header line.  The file's
header comment says what each column means.  SETTINGS_FILE in the
environment names another file (the tests' scratch copies).
"""
import os

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "configs", "settings")
_cache = []


def _read():
    with open(PATH) as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    head = [c.strip() for c in lines[0].split("|")]
    names = head[1:head.index("kernels")]
    out = []
    for line in lines[1:]:
        cells = dict(zip(head, (c.strip() for c in line.split("|"))))
        out.append(dict(cells, sysctls={n: cells[n] for n in names},
                        kernels=[] if cells["kernels"] == "-" else cells["kernels"].split(","),
                        alone=cells["alone"] == "yes",
                        views=[] if cells["views"] == "-" else cells["views"].split(",")))
    return names, out


def _file():
    if not _cache:
        _cache.append(_read())
    return _cache[0]


def sysctl_names():
    """The sysctl columns, in file order."""
    return _file()[0]


def rows():
    """Every setting's line as a dict (label, sysctls, kernels, group,
    alone, views, colour, name, prose, legend), in file order."""
    return _file()[1]


def labels():
    return [s["label"] for s in rows()]


def setting(label):
    """LABEL's line; None for a label the file does not know."""
    return next((s for s in rows() if s["label"] == label), None)


def in_view(view):
    """The labels VIEW names, in file order."""
    return [s["label"] for s in rows() if view in s["views"]]


def rank(label):
    """LABEL's place in file order; after every line when unknown."""
    known = labels()
    return known.index(label) if label in known else len(known)


def name(label):
    """Its short name in tables; the label itself when unknown."""
    return (setting(label) or {}).get("name", label)


def prose(label):
    return (setting(label) or {}).get("prose", label)


def colour(label):
    return (setting(label) or {}).get("colour")


def kernels(label):
    return (setting(label) or {}).get("kernels", [])


def sysctls(label):
    """{sysctl: value as written in the file ('=': left at boot value)}."""
    return (setting(label) or {}).get("sysctls", {})


def legend():
    """report.md's legend: the settings some kernel runs with a victim."""
    return ["%-7s %s" % (s["label"], s["legend"]) for s in rows()
            if s["kernels"] and not s["alone"]]


def _own_sysctl(group):
    """The sysctl a group varies: the one its lines most often set apart
    from the reference's."""
    ref = next(s for s in rows() if s["group"] == "reference")["sysctls"]
    members = [s["sysctls"] for s in rows() if s["group"] == group]
    return max(sysctl_names(), key=lambda n: sum(m[n] != ref[n] for m in members))


def _value(v):
    return int(v) if v.lstrip("-").isdigit() else float("-inf")


def by_bound(view):
    """VIEW's labels: the reference, then each group (in file order) from
    the largest value of its own sysctl down."""
    shown = [s for s in rows() if view in s["views"]]
    out = [s["label"] for s in shown if s["group"] == "reference"]
    for group in dict.fromkeys(s["group"] for s in shown if s["group"] != "reference"):
        own = _own_sysctl(group)
        members = [s for s in shown if s["group"] == group]
        out += [s["label"] for s in sorted(members, key=lambda s: -_value(s["sysctls"][own]))]
    return out


def alone(label):
    """Whether LABEL's exit storm runs alone (no victim); for a label the
    file does not know (old results), its -a suffix says so."""
    s = setting(label)
    return s["alone"] if s else label.endswith("-a")
