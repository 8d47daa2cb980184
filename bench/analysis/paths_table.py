"""paths_table - zone->lock bulk paths on 7.3 and what each setting costs
under contention (issue 39, items 2a and 4).

rows(DIR, res) reads DIR/raw/patched/ (tcg): bench/guest/paths-tp.bt's
per-hold events and free_one_page() calls (the traced phase) and
bench/guest/waits.bt's per-run maps (the waits instrument), and gives
bench/analysis/report.py's results.json rows:

- workload "zone-lock-paths", one per setting (def, k1, k0) and path: the
  bound per hold the 7.3 code with the series honors ("bound", and
  "bound_pages" for the run's batch and knob), "holds", "pages_per_hold"
  {p50, p99, max, total, exact}, "hold_us" {avg_us, p99_us, max_us,
  total_us, timed}, "at_bound" (holds of bound_pages or more),
  "ge_1000_pages", "pages_by_batches" (holds per size class in batches),
  pooled over the setting's runs and phases (both scenarios).
- workload "zone-lock-cost", one per setting and scenario: "holds_per_mib"
  {all, refill, free} (the window's bulk holds over the MiB they moved,
  pooled over the runs), and the window's zone->lock waits per run
  (waits.bt, any waiter): "wait_p99_us" and "wait_max_us" {median, min,
  max, runs, n} over the runs that waited, "wait_count" {median, min, max,
  runs, n} over all of the waits phase's runs ("wait_runs"; a run without
  a wait counts 0), "waits" (pooled count and total_us).

Pages per hold are exact from 8 pages up (paths-tp.bt's @*_n_pages),
below that the upper bound of their log2 bucket; hold percentiles are the
upper bound of their log2 bucket, capped at the exact maximum.  Raw output
written before these maps existed gives null where a figure needs them.
section(rows) is report.md's text.
"""
import os
import statistics

from results import bpf_maps, jsonl, split_key
from stats import hist_merge, hist_upper

SETTINGS = ("def", "k1", "k0")
# the cost under contention also of the fraction (INT_MAX): its waits per run
COST_SETTINGS = SETTINGS + ("hfmax",)
SCEN = (("exit-storm", "E", ""), ("refill", "R", ".r"))
# path, function(s), the bound per hold on 7.3 with the series, where read
PATHS = (
    ("refill", "rmqueue_bulk() order 0",
     "batch << alloc_factor, alloc_factor <= knob: batch << knob (nr_pcp_alloc())"),
    ("refill-hi", "rmqueue_bulk() order 1-3, THP",
     "max(batch >> order, 2) pages of 2^order, ~batch: no scale (nr_pcp_alloc())"),
    ("free", "free_frozen_page_commit() (free_frozen_pages, free_unref_folios)",
     "batch per hold, a call <= batch << knob (nr_pcp_free()); +2^order-1 past it"),
    ("drain", "drain_pages_zone()", "batch << knob per hold (drain_pages_zone())"),
    ("decay", "decay_pcp_high()",
     "batch per hold; the call drains count - high, knob caps only high's step"),
    ("numa-drain", "drain_zone_pages()",
     "batch per hold (CONFIG_NUMA only: not in the guest kernel)"),
    ("high-order", "free_one_page() (__free_pages_ok, pcp busy)",
     "one page of 2^order <= 1024 pages + FPI_NOLOCK leftovers: no scale"),
)
CTX = {"free": "0", "drain": "1", "decay": "2"}


def batch_of(d):
    """pcp->batch of the guest's zones (env.txt's zoneinfo lines): the
    largest, None without."""
    try:
        with open(os.path.join(d, "env.txt")) as f:
            vals = [int(x.split(":")[1]) for x in f if x.strip().startswith("batch:")]
    except (OSError, ValueError):
        return None
    return max(vals) if vals else None


def knob_of(res, label):
    for r in res:
        if (r.get("kernel"), r.get("setting"), r.get("timing")) == ("patched", label, "tcg") \
                and (r.get("settings") or {}).get("pcp_batch_scale_max") is not None:
            return r["settings"]["pcp_batch_scale_max"]
    return None


def keyed(maps, name, label, letters=None):
    """(rest, value) of map NAME's entries of LABEL's runs (LABEL, LABEL.r),
    every phase or those of LETTERS."""
    for key, v in maps.get(name, {}).items():
        sk = split_key(key)
        if sk and sk[1] in (label, label + ".r") and \
                (letters is None or key[0] in letters):
            yield sk[2], v


def want(path, rest):
    """Whether a key's rest (order or ctx) belongs to PATH."""
    if path == "refill":
        return rest[:1] == ["0"]
    if path == "refill-hi":
        return rest[:1] != ["0"]
    return rest[:1] == [CTX.get(path)]


def dist(maps, stem, path, label, letters=None):
    """Pages per hold as [(pages, holds)]: exact from 8 pages up, below it
    the log2 bucket's upper bound; exact: whether @STEM_n_pages was there."""
    hist = hist_merge(v for r, v in keyed(maps, "@%s_pages" % stem, label, letters)
                      if want(path, r))
    exact = {}
    for r, n in keyed(maps, "@%s_n_pages" % stem, label, letters):
        if want(path, r) and len(r) == 2:
            exact[int(r[1])] = exact.get(int(r[1]), 0) + n
    if "@%s_n_pages" % stem not in maps:
        # older raw output: the log2 buckets' upper bounds, capped at the
        # exact largest (@STEM_max_pages)
        mx = [v for r, v in keyed(maps, "@%s_max_pages" % stem, label, letters)
              if want(path, r)]
        return [(min(b.get("max", 0) + 1 if b.get("max") else b.get("min", 0),
                     max(mx) if mx else 1 << 62), b["count"]) for b in hist if b["count"]], False
    small = [(min(b.get("max", 0), 7), b["count"]) for b in hist
             if b["count"] and b.get("max", 0) < 8]
    return sorted(small + list(exact.items())), True


def nearest(d, q):
    total = sum(n for _, n in d)
    seen = 0
    for v, n in d:
        seen += n
        if seen >= q * total:
            return v
    return None


def by_batches(d, batch):
    """Holds per size class: below 1 batch, [1, 2), [2, 4) .. [16, 32)
    batches, 32 batches or more."""
    if not batch:
        return None
    edges = [0] + [batch << k for k in range(6)]
    out = []
    for i, lo in enumerate(edges):
        hi = edges[i + 1] if i + 1 < len(edges) else None
        out.append({"min": lo, "max": hi, "count": sum(n for v, n in d if v >= lo and
                                                       (hi is None or v < hi))})
    return out


def hi_dist(maps, label):
    """free_one_page(): [(pages, calls)] from the orders, and the call-time
    items."""
    d, hs, sums, mx = {}, [], [], []
    for r, h in keyed(maps, "@hifree_call_ns", label):
        pages = 1 << int(r[0])
        d[pages] = d.get(pages, 0) + sum(b["count"] for b in h)
        hs.append(h)
    sums = [v for _, v in keyed(maps, "@hifree_sum_ns", label)]
    mx = [v for _, v in keyed(maps, "@hifree_max_ns", label)]
    return sorted(d.items()), hs, sums, mx


def path_row(maps, path, label, batch, knob):
    if path == "high-order":
        d, hs, sums, mx = hi_dist(maps, label)
        exact, timed = "@hifree_call_ns" in maps, "call (entry to return: includes any wait)"
        if not exact:
            return {"holds": None, "bound_pages": 1024, "pages_per_hold": None,
                    "hold_us": None, "at_bound": None, "ge_1000_pages": None,
                    "pages_by_batches": None}
    else:
        stem = "refill" if path.startswith("refill") else "free"
        d, exact = dist(maps, stem, path, label)
        hs = [v for r, v in keyed(maps, "@%s_tp_hold_ns" % stem, label) if want(path, r)]
        sums = [v for r, v in keyed(maps, "@%s_sum_ns" % stem, label) if want(path, r)]
        mx = [v for r, v in keyed(maps, "@%s_max_ns" % stem, label) if want(path, r)]
        timed = "hold (the event's hold_ns)"
    holds = sum(n for _, n in d)
    h = hist_merge(hs)
    maxns = max(mx) if mx else None
    bound = None
    if batch is not None and knob is not None:
        bound = {"refill": batch << knob, "drain": batch << knob, "free": batch,
                 "decay": batch, "numa-drain": batch, "high-order": 1024}.get(path)
    pages = {"p50": nearest(d, .5), "p99": nearest(d, .99), "max": d[-1][0] if d else None,
             "total": sum(v * n for v, n in d) if exact else None, "exact": exact}
    at = sum(n for v, n in d if v >= bound) if exact and bound else None
    if path == "refill-hi" and exact and batch:
        # per order: max(batch >> order, 2) pages of 2^order
        at = 0
        for r, n in keyed(maps, "@refill_n_pages", label):
            if r[0] != "0" and len(r) == 2 and \
                    int(r[1]) >= max(batch >> int(r[0]), 2) << int(r[0]):
                at += n
    return {"holds": holds, "bound_pages": bound, "pages_per_hold": pages,
            "hold_us": {"avg_us": sum(sums) / holds / 1e3 if sums and holds else None,
                        "p99_us": hist_upper(h, .99, maxns) / 1e3 if holds and h else None,
                        "max_us": maxns / 1e3 if maxns is not None else None,
                        "total_us": sum(sums) / 1e3 if sums else None, "timed": timed},
            "at_bound": at,
            "ge_1000_pages": sum(n for v, n in d if v >= 1000) if exact else None,
            "pages_by_batches": by_batches(d, batch) if exact else None}


def spread(xs):
    xs = [x for x in xs if x is not None]
    return {"median": statistics.median(xs) if xs else None, "min": min(xs) if xs else None,
            "max": max(xs) if xs else None, "runs": xs, "n": len(xs)}


def per_run_waits(wmaps, label, suffix, letter):
    """waits.bt's per-run maps of the window: [(p99_us, max_us, count)] per
    run that waited."""
    names = wmaps.get("@phase_name", {})
    runs = {}
    for name in ("@wait_run_max_ns", "@wait_run_fine_us", "@wait_run_coarse_us"):
        for key, v in wmaps.get(name, {}).items():
            pid, _, run = key.partition(",")
            # a later round of the same phase gets a phase id of its own,
            # its runs counted from 1 again: a run is (phase id, run)
            if names.get(pid) == "%s:%s%s" % (letter, label, suffix):
                runs.setdefault((int(pid), int(run)), {})[name] = v
    out = []
    for run in sorted(runs):
        m = runs[run]
        mx = m.get("@wait_run_max_ns")
        b = [x for x in m.get("@wait_run_fine_us", []) + m.get("@wait_run_coarse_us", [])
             if x["count"]]
        p99 = hist_upper(b, .99)
        out.append((None if p99 is None else min(p99, mx / 1e3 if mx else p99),
                    mx / 1e3 if mx is not None else None, sum(x["count"] for x in b)))
    return out


def cost_row(d, maps, wmaps, label, scenario, letter, suffix):
    run = label + suffix
    stem = "storm" if scenario == "exit-storm" else "refill"
    reps = sum(1 for r in jsonl(os.path.join(d, stem + "-waits.jsonl")) if r.get("label") == run)
    holds, mib = {}, {}
    for kind, stem in (("refill", "refill"), ("free", "free")):
        n = sum(b["count"] for k, h in maps.get("@%s_pages" % stem, {}).items()
                if (sk := split_key(k)) and sk[1] == run and k[0] == letter for b in h)
        pages = [v for k, v in maps.get("@%s_sum_pages" % stem, {}).items()
                 if (sk := split_key(k)) and sk[1] == run and k[0] == letter]
        holds[kind] = n
        mib[kind] = sum(pages) * 4096 / 2 ** 20 if pages else None
    per = {k: holds[k] / mib[k] if mib[k] else None for k in holds}
    tot = mib["refill"] + mib["free"] if None not in mib.values() else None
    per["all"] = (holds["refill"] + holds["free"]) / tot if tot else None
    pr = per_run_waits(wmaps, label, suffix, letter)
    n = sum(b["count"] for k, h in wmaps.get("@wait_ns", {}).items()
            if k.split(",")[0] == "%s:%s" % (letter, run) for b in h)
    tot_ns = sum(v for k, v in wmaps.get("@wait_sum_ns", {}).items()
                 if k.split(",")[0] == "%s:%s" % (letter, run))
    return {"holds_per_mib": per, "holds": holds, "mib": mib,
            "wait_p99_us": spread([p for p, _, _ in pr]),
            "wait_max_us": spread([m for _, m, _ in pr]),
            # every run of the phase, those without a wait as 0
            "wait_count": spread([c for _, _, c in pr] + [0] * max(0, reps - len(pr))),
            "waits": {"count": n, "total_us": tot_ns / 1e3}, "wait_runs": reps}


def rows(dirname, res):
    d = os.path.join(dirname, "raw", "patched")
    maps = bpf_maps(os.path.join(d, "paths-tp.json"))
    wmaps = bpf_maps(os.path.join(d, "waits.json"))
    if not maps and not wmaps:
        return []
    batch, out = batch_of(d), []
    labels = [s for s in SETTINGS if knob_of(res, s) is not None]
    head = {"timing": "tcg", "kernel": "patched"}
    for label in labels if maps else ():
        knob = knob_of(res, label)
        for path, fn, bound in PATHS:
            r = dict(head, workload="zone-lock-paths", setting=label, path=path, function=fn,
                     bound=bound, batch=batch, knob=knob)
            r.update(path_row(maps, path, label, batch, knob))
            out.append(r)
    for label in [s for s in COST_SETTINGS if knob_of(res, s) is not None]:
        for scenario, letter, suffix in SCEN:
            r = dict(head, workload="zone-lock-cost", setting=label, scenario=scenario,
                     knob=knob_of(res, label))
            r.update(cost_row(d, maps, wmaps, label, scenario, letter, suffix))
            out.append(r)
    for r in out:
        r["base"] = next((x.get("base") for x in res if x.get("kernel") == "patched"), None)
    return out


def f(v, fmt="%.0f"):
    return "-" if v is None else fmt % v


def paths_text(rs):
    fmt = "%-10s %-4s %6s %5s %5s %5s %8s %8s %8s %6s %6s %5s"
    lines = [fmt % ("path", "set", "holds", "p50", "p99", "max", "avg us", "p99 us", "max us",
                    "bound", "at", ">=1000"),
             fmt % tuple("-" * w for w in (10, 4, 6, 5, 5, 5, 8, 8, 8, 6, 6, 5))]
    for r in rs:
        p, h = r["pages_per_hold"] or {}, r["hold_us"] or {}
        lines.append(fmt % (r["path"], r["setting"], f(r["holds"]), f(p.get("p50")),
                            f(p.get("p99")), f(p.get("max")), f(h.get("avg_us"), "%.1f"),
                            f(h.get("p99_us"), "%.1f"), f(h.get("max_us"), "%.1f"), f(r["bound_pages"]), f(r["at_bound"]),
                            f(r["ge_1000_pages"])))
    return "\n".join(lines) + "\n"


def hist_text(rs):
    """Holds per size class (batches), a row per path and setting."""
    out = []
    for r in rs:
        b = r["pages_by_batches"]
        if not b or not r["holds"]:
            continue
        if not out:
            out.append("%-10s %-4s " % ("path", "set") + " ".join(
                "%7s" % ("<1" if not x["min"] else (">=%d" % (x["min"] // b[1]["min"])
                                                      if x["max"] is None else
                                                      "%d-%d" % (x["min"] // b[1]["min"],
                                                                 x["max"] // b[1]["min"])))
                for x in b) + "   (batches)")
        top = max(x["count"] for x in b)
        out.append("%-10s %-4s " % (r["path"], r["setting"]) +
                   " ".join("%7d" % x["count"] for x in b) + "  |" +
                   "".join("@" if x["count"] * 8 >= top else ("." if x["count"] else " ")
                           for x in b) + "|")
    return "\n".join(out) + "\n" if out else ""


def sp(s, reps, fmt="%.0f"):
    if not s or s["median"] is None:
        return "-"
    return "%s [%s-%s] n=%d/%d" % (fmt % s["median"], fmt % s["min"], fmt % s["max"], s["n"],
                                   reps)


def cnt(s, pooled):
    """A run's waits as median [min-max]; a row of a file without the
    per-run counts gives its pooled count, marked."""
    if not s or s["median"] is None:
        return "%s pooled" % pooled
    return "%s [%s-%s]" % (f(s["median"]), f(s["min"]), f(s["max"]))


def cost_text(rs):
    fmt = "%-4s %-10s %7s %7s %7s %16s %28s %28s"
    lines = [fmt % ("set", "scenario", "h/MiB", "refill", "free", "waits/run", "wait p99 us",
                    "wait max us"),
             fmt % tuple("-" * w for w in (4, 10, 7, 7, 7, 16, 28, 28))]
    for r in rs:
        h = r["holds_per_mib"]
        lines.append(fmt % (r["setting"], r["scenario"], f(h["all"], "%.2f"),
                            f(h["refill"], "%.2f"), f(h["free"], "%.2f"),
                            cnt(r.get("wait_count"), r["waits"]["count"]),
                            sp(r["wait_p99_us"], r["wait_runs"]),
                            sp(r["wait_max_us"], r["wait_runs"])))
    return "\n".join(lines) + "\n"


def section(rows_):
    """report.md's two tables (nothing without rows)."""
    ps = [r for r in rows_ if r.get("workload") == "zone-lock-paths"]
    cs = [r for r in rows_ if r.get("workload") == "zone-lock-cost"]
    if not ps and not cs:
        return ""
    md = []
    if ps:
        md += ["## zone->lock bulk paths on 7.3 (timing: tcg)\n",
               "One row per path that holds zone->lock for many pages, at def, knob 1 and "
               "knob 0: holds, pages per hold (p50, p99, max), hold time (avg, p99, max, us), "
               "the bound per hold for this run's batch (%s) and knob, how many holds reached "
               "it (`at`) and how many moved 1000 pages or more.  Patched kernel, traced "
               "phase (bench/guest/paths-tp.bt: the series' per-hold events; high-order: "
               "free_one_page() calls, timed entry to return, so with any wait), pooled over "
               "the runs and both scenarios.  drain: only when something drains the pcp "
               "lists during the traced phase; numa-drain: not built (CONFIG_NUMA off).  "
               "Bounds, read from mm/page_alloc.c of 7.3 with the series:\n"
               % (ps[0]["batch"],),
               "```\n" + "\n".join("%-10s %s: %s" % (p, fn, b) for p, fn, b in PATHS) +
               "\n```\n", "```\n" + paths_text(ps) + "```\n"]
        ht = hist_text(ps)
        if ht:
            md += ["Holds by size, in batches (@: at least 1/8 of the row's largest class):\n",
                   "```\n" + ht + "```\n"]
    if cs:
        md += ["## Cost under contention, as far as 2 vCPUs show it (timing: tcg)\n",
               "With 2 vCPUs a spinlock has at most one waiter, so contention on many CPUs "
               "cannot be shown here: only how often each setting takes zone->lock per MiB "
               "it moves and what the one waiter waits.  h/MiB: bulk holds (refills and "
               "bulk frees) in the scenario's window per MiB they moved (traced phase, "
               "paths-tp.bt, pooled over the runs).  waits: zone->lock waits of any task in "
               "the window (bench/guest/waits.bt, the waits instrument), the p99 and the "
               "maximum of each run as median [min-max] n=runs with a wait/runs, and the waits "
               "per run as median [min-max] over all runs: totals can fall while the "
               "maximum rises, so both.\n",
               "```\n" + cost_text(cs) + "```\n"]
    return "\n".join(md)
