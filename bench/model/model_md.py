"""model_md - model.md: the anchors, the victim's wait per kind, CPU count
and setting, the 2-vCPU comparison (--measured), every cell, the
calibration and the assumptions."""
from model_results import MEASURED_PATHS, MEASURED_PHASES
from model_sim import KIND_TEXT, KIND_TITLE, KINDS, PATHS, SETTINGS, STORM_PAGES

def us(v, unit=""):
    """A time in us for a table: 3 significant digits, ms from 10 ms on;
    UNIT " us" labels the us values too."""
    if v is None:
        return "-"
    if v >= 10000:
        return "%.1f ms" % (v / 1000.0)
    if v >= 100:
        return "%.0f%s" % (v, unit)
    if v >= 10:
        return "%.1f%s" % (v, unit)
    return "%.2f%s" % (v, unit)


def markdown(result):
    out = ["# zone->lock with many CPUs: the model", "",
           "`bench/model/model.py` (a discrete-event model; the assumptions at the end). "
           "Times in us unless marked ms.  Calibration: %s." % result["calibration"]["source"],
           "", "## Anchors", "",
           "| anchor | source | anchor | model | model/anchor |", "|---|---|---|---|---|"]
    for a in result["anchors"]:
        out.append("| %s | %s | %s | %s | %s%s |" % (
            a["name"], a["source"], us(a["anchor_us"]), us(a["model_us"]),
            "%.2f" % a["ratio"] if a["ratio"] is not None else "-",
            "" if a["within_2x"] else " **outside 2x**"))
    cpus = result["cpu_counts"]
    for kind, _, _ in KINDS:
        out += ["", "## %s: victim's zone->lock wait, p99 (mean)" % KIND_TITLE[kind], "",
                "Kind `%s`: %s." % (kind, KIND_TEXT[kind]), "",
                "| setting | " + " | ".join("%d CPUs" % n for n in cpus) + " |",
                "|---|" + "---|" * len(cpus)]
        for label, _, _ in SETTINGS:
            cells = []
            for n in cpus:
                c = result["index"][(kind, n, label)]
                v = c["victim_wait"]
                cells.append("%s (%s)" % (us(v["p99_us"]), us(v["mean_us"])))
            out.append("| %s | %s |" % (label, " | ".join(cells)))
    if any(n < 4 for n in cpus):
        out += ["", "Below 4 CPUs CPU 0 is the victim and CPU 1 the storm, faulting in "
                "%d pages and then exiting them, over and over (CPU 2 allocates lightly "
                "at 3 CPUs); the victim's wait p99 by the storm's phase:" % STORM_PAGES, "",
                "| kind | CPUs | setting | fault_in p99 | exit p99 |", "|---|---|---|---|---|"]
        for c in result["cells"]:
            if "victim_wait_by_phase" in c:
                ph = c["victim_wait_by_phase"]
                out.append("| %s | %d | %s | %s | %s |" % (
                    c["kind"], c["cpus"], c["setting"], us(ph["fault_in"]["p99_us"]),
                    us(ph["exit"]["p99_us"])))
    if result.get("measured"):
        out += markdown_measured(result["measured"])
    out += ["", "## Every cell", "",
            "victim wait: mean, p50, p99, p99.9, max; holds: the longest of each "
            "path (pages per hold); busy: fraction of time zone->lock is held.", "",
            "| kind | CPUs | setting | mean | p50 | p99 | p99.9 | max | free hold max "
            "| refill hold max | drain hold max | busy |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in result["cells"]:
        v, h = c["victim_wait"], c["holds"]
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
            c["kind"], c["cpus"], c["setting"], us(v["mean_us"]), us(v["p50_us"]),
            us(v["p99_us"]), us(v["p999_us"]), us(v["max_us"]),
            *("%s (%s)" % (us(h[p]["max_us"]), h[p]["max_pages"] or "-") for p in PATHS),
            c["lock_busy"]))
    out += calibration_md(result["calibration"])
    out += ["", "## Assumptions", ""] + ["- " + a for a in result["assumptions"]]
    return "\n".join(out) + "\n"


def calibration_md(cal):
    out = ["", "## Calibration", "", "| path | fixed | per page | from |", "|---|---|---|---|"]
    for p in PATHS:
        out.append("| %s | %s | %s | %s |" % (p, us(cal[p]["fixed_us"]),
                                           "%.4f" % cal[p]["per_page_us"],
                                           cal[p].get("from", "default")))
    out.append("")
    out.append("Hand-over: %.3f us + %.4f us per waiter." % (
        cal["handover_us"], cal["handover_per_waiter_us"]))
    if cal.get("note"):
        out += ["", "Note: " + cal["note"] + "."]
    return out


def ratio_text(v):
    return "-" if v is None else ("%.0f" % v if v >= 100 else "%.2g" % v if v < 10
                                  else "%.1f" % v)


def per_page_text(v):
    return "-" if v is None else "%.3g" % v


def markdown_measured(meas):
    out = ["", "## Beside the 2-vCPU measurement", "",
           "%s Measured: the tcg exit-storm rows of `%s` (2 vCPUs, emulated); model: "
           "2 CPUs, the same kind (7.3 -> mainline, or mainline-ck where its refills "
           "took several holds: docs/experiments/chunked-refill.patch; 6.12 -> 6.12) and knob."
           % (meas["note"], meas["source"]), "",
           "Victim's zone->lock wait p99 (us), by phase of the storm; the model's phase "
           "is that of its storm CPU:", "",
           "| base | kernel | setting | model | exit: measured | model | measured/model "
           "| fault_in: measured | model | measured/model |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for e in meas["rows"]:
        m = e["model"]
        if m is None:
            out.append("| %s | %s | %s | %s | %s | - | - | %s | - | - |" % (
                e["base"], e["kernel"], e["setting"], e["note"],
                us(e["wait_p99_us"]["exit"]), us(e["wait_p99_us"]["fault_in"])))
            continue
        cols = []
        for ph in MEASURED_PHASES:
            cols += [us(e["wait_p99_us"][ph]), us(m["wait_p99_us"][ph]),
                     ratio_text(e["ratio"]["wait_p99"][ph])]
        out.append("| %s | %s | %s | %s %s | %s |" % (
            e["base"], e["kernel"], e["setting"], e["kind"], m["setting"], " | ".join(cols)))
    trend = meas["trend"]
    if trend:
        out += ["", "Trend: Spearman rank correlation across settings of the measured and "
                "the model's wait p99 (1: same order, 0: none; - below 3 settings): " +
                "; ".join("%s (%d setting(s)): exit %s, fault_in %s" % (
                    k, t["settings"], "-" if t["spearman"]["exit"] is None
                    else "%.2f" % t["spearman"]["exit"],
                    "-" if t["spearman"]["fault_in"] is None
                    else "%.2f" % t["spearman"]["fault_in"])
                    for k, t in trend.items()) + "."]
    out += ["", "Per-page hold cost (us per page), free and refill paths, 'from': %s." %
            meas["per_page_estimator"].split(" model.json also")[0].rstrip("."), "",
            "| base | kernel | setting | free: measured | from | model | "
            "measured/model | refill: measured | from | model | measured/model |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in meas["rows"]:
        cols = []
        for p in MEASURED_PATHS:
            c = e["cost"][p]
            mp = e["model"]["cost"][p]["per_page_us"] if e["model"] else None
            cols += [per_page_text(c["per_page_us"]), c["from"] or "-", per_page_text(mp),
                     ratio_text(e["ratio"]["per_page"][p] if e["ratio"] else None)]
        out.append("| %s | %s | %s | %s |" % (e["base"], e["kernel"], e["setting"],
                                              " | ".join(cols)))
    return out
