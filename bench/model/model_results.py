"""model_results - bench/model/model.py against a bench results.json.

calibrate() (--calibrate): fit each path's fixed and per-page hold cost to
the rows' holds.  load_measured() and beside() (--measured): the tcg
exit-storm rows set beside the model at 2 CPUs, with the ratio
measured/model of the victim's wait p99 and of the per-page hold cost, and
the Spearman rank correlation across settings.  A bad input raises
UsageError (one line, exit 2, nothing written).
"""
import json
import os
import sys

from model_sim import (DEFAULT_CALIBRATION, DEFAULT_KNOB, KINDS, PATHS, SETTINGS, TOP,
                       UsageError, run_cell)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from stats import is_number, r3, spearman

# ----------------------------------------------------------- calibration

def read_json(path):
    """PATH's JSON; UsageError (one line, exit 2) when unreadable or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise UsageError("%s is not JSON: %s" % (path, e))


def load_rows(path):
    data = read_json(path)
    rows = data if isinstance(data, list) else None
    if not rows or not any(isinstance(r, dict) and isinstance(r.get("holds"), dict)
                           for r in rows):
        raise UsageError("%s has no row with 'holds' (not a bench results.json?)" % path)
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("holds"), dict)]


def pages_of(path, h):
    if path == "refill":
        by_order = h.get("max_pages_by_order") or {}
        pages = by_order.get("0", h.get("max_pages"))
    else:
        pages = h.get("max_pages_asked") or h.get("max_pages")
    return pages if isinstance(pages, (int, float)) and pages > 0 else None


def fit(points):
    """points: {pages: [calls, total_us]} -> (fixed_us, per_page_us, how)."""
    xs = sorted(points)
    means = {x: points[x][1] / points[x][0] for x in xs}
    if len(xs) >= 2:
        n = len(xs)
        mx = sum(xs) / n
        my = sum(means[x] for x in xs) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (means[x] - my) for x in xs) / sxx
        fixed = my - slope * mx
        if slope > 0 and fixed >= 0:
            return fixed, slope, "least squares over %d transfer sizes" % n
    total_pages = sum(x * points[x][0] for x in xs)
    total_us = sum(points[x][1] for x in xs)
    return 0.0, total_us / total_pages, "mean hold / pages (fixed cost folded in)"


def calibrate(path):
    rows = load_rows(path)
    points = {p: {} for p in PATHS}
    timing = sorted({str(r.get("timing")) for r in rows if r.get("timing")})
    for r in rows:
        for p in PATHS:
            h = r["holds"].get(p)
            if not isinstance(h, dict):
                continue
            calls, total = h.get("calls"), h.get("total_us")
            pages = pages_of(p, h)
            if not (isinstance(calls, (int, float)) and calls > 0 and
                    isinstance(total, (int, float)) and total > 0 and pages):
                continue
            acc = points[p].setdefault(pages, [0, 0.0])
            acc[0] += calls
            acc[1] += total
    cal = {"source": "fitted to %s" % os.path.relpath(os.path.abspath(path), TOP),
           "timing": timing}
    for p in PATHS:
        if points[p]:
            fixed, slope, how = fit(points[p])
            cal[p] = {"fixed_us": round(fixed, 4), "per_page_us": round(slope, 5),
                      "from": how, "transfer_sizes": sorted(points[p])}
    if "free" not in cal and "refill" not in cal:
        raise UsageError("%s: no row has holds.free or holds.refill with calls and "
                         "max_pages" % path)
    cal.setdefault("free", dict(cal["refill"], **{"from": "refill's (no free data)"}))
    cal.setdefault("refill", dict(cal["free"], **{"from": "free's (no refill data)"}))
    cal.setdefault("drain", dict(cal["free"], **{"from": "free's (drains run "
                                                  "free_pcppages_bulk)"}))
    cal["handover_us"] = DEFAULT_CALIBRATION["handover_us"]
    cal["handover_per_waiter_us"] = DEFAULT_CALIBRATION["handover_per_waiter_us"]
    cal["handover_from"] = "default (a results.json does not measure it)"
    if "tcg" in timing:
        cal["note"] = ("emulator (TCG) hold times: per-page costs far above "
                       "hardware; the anchors are not expected to hold")
    return cal


# ------------------------------------------------- beside a measurement

MEASURED_PHASES = ("exit", "fault_in")
MEASURED_PATHS = ("free", "refill")
BASE_KIND = {"7.3": "mainline", "6.12": "6.12"}


def is_positive(v):
    return is_number(v) and v > 0


def measured_setting(row):
    """(knob, high_fraction) a measured row ran at: the values the guest
    read back, else the label's, else the defaults."""
    label = str(row.get("setting") or "")
    got = row.get("settings") if isinstance(row.get("settings"), dict) else {}
    knob = got.get("pcp_batch_scale_max")
    if not (is_number(knob) and 0 <= knob <= 6):
        knob = None
        for part in label.split("k")[1:]:
            if part.isdigit() and int(part) <= 6:
                knob = int(part)
        if knob is None:
            knob = DEFAULT_KNOB
    hf = got.get("percpu_pagelist_high_fraction")
    hf = -1 if hf == -1 or (hf is None and label.startswith("hf-1")) else 0
    return int(knob), hf


def measured_cost(p, h):
    """What path P's holds cost per page in a measured row (holds.P: H)."""
    calls, total = h.get("calls"), h.get("total_us")
    per = h.get("per_refill") if isinstance(h.get("per_refill"), dict) else {}
    pages = pages_of(p, h)
    p99 = h.get("p99_us") if is_positive(h.get("p99_us")) else None
    c = {"calls": calls if is_number(calls) else None,
         "total_us": total if is_number(total) else None,
         "max_pages": pages, "p99_us": p99,
         "pages_total": (per.get("pages_total") if is_positive(per.get("pages_total"))
                         else None),
         "per_page_us": None, "from": None, "mean_per_page_us": None,
         "p99_per_page_us": p99 / pages if p99 and pages else None,
         "mean_per_max_page_us": None}
    if is_positive(calls) and is_positive(total):
        if c["pages_total"]:
            c["mean_per_page_us"] = total / c["pages_total"]
        if pages:
            c["mean_per_max_page_us"] = total / (calls * pages)
    if c["mean_per_page_us"] is not None:
        c.update(per_page_us=c["mean_per_page_us"], **{"from": "mean"})
    elif c["p99_per_page_us"] is not None:
        c.update(per_page_us=c["p99_per_page_us"], **{"from": "p99"})
    return c


def measured_kind(base, holds):
    """(chunked refill?, model kind or None, why none): a refill that took
    more than one hold is the chunked refill."""
    rh = holds.get("refill") if isinstance(holds.get("refill"), dict) else {}
    per = rh.get("per_refill") if isinstance(rh.get("per_refill"), dict) else {}
    chunked = bool(is_positive(rh.get("max_pages"))
                   and is_positive(per.get("max_pages_per_refill"))
                   and rh["max_pages"] < per["max_pages_per_refill"])
    kind = BASE_KIND.get(base)
    if kind is None:
        return chunked, None, "base %s: no model kind (7.3 -> mainline, 6.12 -> 6.12)" % base
    if chunked and kind != "mainline":
        return chunked, None, "chunked refill on %s: not modelled" % base
    return chunked, "mainline-ck" if chunked else kind, None


def load_measured(path):
    """The tcg exit-storm rows of a bench results.json, with what the
    beside section needs; UsageError when there is none."""
    data = read_json(path)
    rows = []
    for r in data if isinstance(data, list) else []:
        if not (isinstance(r, dict) and r.get("timing") == "tcg" and
                r.get("scenario") == "exit-storm" and r.get("workload", "exit-storm")
                == "exit-storm" and isinstance(r.get("victim_lock_wait_by_phase"), dict)):
            continue
        waits = {}
        for ph in MEASURED_PHASES:
            w = r["victim_lock_wait_by_phase"].get(ph)
            waits[ph] = w.get("p99_us") if isinstance(w, dict) and is_number(w.get("p99_us")) else None
        holds = r.get("holds") if isinstance(r.get("holds"), dict) else {}
        cost = {p: measured_cost(p, holds.get(p) if isinstance(holds.get(p), dict) else {})
                for p in MEASURED_PATHS}
        kernel, base = str(r.get("kernel")), str(r.get("base"))
        knob, hf = measured_setting(r)
        chunked, kind, note = measured_kind(base, holds)
        rows.append({"base": base, "kernel": kernel, "setting": r.get("setting"),
                     "knob": knob, "high_fraction": hf, "chunked_refill": chunked,
                     "kind": kind, "note": note, "wait_p99_us": waits, "cost": cost})
    if not rows:
        raise UsageError("%s has no tcg exit-storm row with victim_lock_wait_by_phase "
                         "(not a bench results.json?)" % path)
    return rows


def model_label(knob, hf):
    for label, k, f in SETTINGS:
        if (k, f) == (knob, hf):
            return label
    return ("hf-1k%d" if hf == -1 else "k%d") % knob


def round5(v):
    return None if v is None else round(v, 5)


def times(v):
    return "%.0fx" % v if v >= 10 else "%.1fx" % v


def ratio(a, b):
    return a / b if is_positive(a) and is_positive(b) else None


def model_beside(m, cell):
    """The model's cell beside measured row M: its waits and costs, and
    the measured/model ratios."""
    waits = {ph: cell["victim_wait_by_phase"][ph]["p99_us"] for ph in MEASURED_PHASES}
    waits["all"] = cell["victim_wait"]["p99_us"]
    cost = {}
    for p in MEASURED_PATHS:
        h, c = cell["holds"][p], m["cost"][p]
        mean = ratio(h["total_us"], h["pages_total"])
        p99 = ratio(h["p99_us"], h["max_pages"])
        per = mean if c["from"] == "mean" else p99
        cost[p] = {"per_page_us": round5(per), "mean_per_page_us": round5(mean),
                   "p99_per_page_us": round5(p99),
                   "max_pages": h["max_pages"], "hold_p99_us": h["p99_us"]}
    model = {"cpus": 2, "setting": model_label(m["knob"], m["high_fraction"]),
             "wait_p99_us": waits, "cost": cost, "lock_busy": cell["lock_busy"]}
    return model, {
        "wait_p99": {ph: r3(ratio(m["wait_p99_us"][ph], waits[ph])) for ph in MEASURED_PHASES},
        "per_page": {p: r3(ratio(m["cost"][p]["per_page_us"], cost[p]["per_page_us"]))
                     for p in MEASURED_PATHS}}


def trend(modelled):
    """Per base and kernel: the settings' rank correlation, measured against
    the model, per phase."""
    out = {}
    for base in sorted({e["base"] for e in modelled}):
        for kernel in sorted({e["kernel"] for e in modelled if e["base"] == base}):
            sel = [e for e in modelled if (e["base"], e["kernel"]) == (base, kernel)]
            out["%s %s" % (base, kernel)] = {
                "settings": len(sel),
                "spearman": {ph: r3(spearman([(e["wait_p99_us"][ph],
                                               e["model"]["wait_p99_us"][ph]) for e in sel]))
                             for ph in MEASURED_PHASES}}
    return out


def beside(rows, cal, seed, index, source):
    """Each measured row beside the model at 2 CPUs (cells from INDEX or
    run here)."""
    kinds = {k: (c, cr) for k, c, cr in KINDS}
    cache = {}
    out = []
    for m in rows:
        entry = dict(m, model=None, ratio=None)
        if m["kind"] is not None:
            label = model_label(m["knob"], m["high_fraction"])
            key = (m["kind"], 2, label)
            if key not in index and key not in cache:
                chunked, chunked_refill = kinds[m["kind"]]
                cache[key] = run_cell(cal, seed, 2, label, m["knob"], m["high_fraction"],
                                      m["kind"], chunked, chunked_refill)
            entry["model"], entry["ratio"] = model_beside(m, index.get(key) or cache[key])
        for p in MEASURED_PATHS:
            c = entry["cost"][p] = dict(m["cost"][p])
            for f in ("per_page_us", "mean_per_page_us", "p99_per_page_us",
                      "mean_per_max_page_us"):
                c[f] = round5(c[f])
        out.append(entry)
    modelled = [e for e in out if e["model"]]
    per_page = [e["ratio"]["per_page"][p] for e in modelled for p in MEASURED_PATHS
                if e["ratio"]["per_page"][p] is not None]
    default_cal = not str(cal.get("source", "")).startswith("fitted")
    return {
        "source": source, "model_cpus": 2,
        "per_page_estimator": (
            "'mean': total_us / holds.refill.per_refill.pages_total (the pages the "
            "refill path moved; newer results, refill only) where the row has it; else 'p99': holds.PATH.p99_us / max_pages "
            "(the p99 hold is one of the largest transfers; a log2 bucket's upper bound, "
            "up to 2x, with any vCPU preemption of the holder in it); the model's the "
            "same way from its own holds. model.json also has mean_per_max_page_us, "
            "total_us / (calls x max_pages), a lower bound that is far too low where "
            "most holds are small (refills in the exit storm)"),
        "per_page_ratio_range": [r3(min(per_page)), r3(max(per_page))] if per_page else None,
        "note": (
            ("The measurement is emulated (TCG, 2 vCPUs sharing the host's cores): its "
             "per-page hold costs are tens of times the model's real-hardware costs or "
             "more (%s here), and its waits include vCPU preemption, so the comparison is "
             "of the trend across settings, not of absolute values." % (
                 "%s to %s" % (times(min(per_page)), times(max(per_page)))
                 if per_page else "no ratio")
             ) if default_cal else
            ("The model's per-page costs are fitted to %s; the emulated per-page costs are "
             "tens of times a real machine's, so the comparison is of the trend across "
             "settings, not of absolute values." % cal["source"][len("fitted to "):])),
        "trend": trend(modelled), "rows": out}
