"""stats - the small statistics shared by bench/analysis/report.py and bench/model.py.

bpftrace log2 histograms (lists of {min, max, count}): hist_merge,
hist_upper (conservative: the upper bound of the bucket a percentile falls
in, capped at the exact maximum), hist_percentile (interpolated in its
bucket), hold_stats (pooled holds or waits, in us).  Sorted samples:
lat_stats (index n*q, in us, as the report has always computed them) and
percentile/summary (nearest rank, the model's).  Repetitions: spread_pct,
and exceeds(), the one rule for a change that counts.
Ranks: spearman.
"""
import math
import statistics


def is_number(v):
    """An int or float that is not a bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ------------------------------------------------ bpftrace log2 histograms

def hist_merge(hists):
    """The sum of bpftrace log2 histograms (lists of {min, max, count})."""
    acc = {}
    for h in hists:
        for b in h:
            k = (b.get("min", 0), b.get("max", 0))
            acc[k] = acc.get(k, 0) + b["count"]
    return [{"min": lo, "max": hi, "count": n} for (lo, hi), n in sorted(acc.items())]


def hist_upper(buckets, q, cap=None):
    """The q-th percentile of a histogram (log2, or linear buckets in any
    order), conservatively: the upper bound of the bucket it falls in (at
    most 2x the true value in log2), capped at the exact maximum CAP where
    known."""
    total = sum(b["count"] for b in buckets)
    if not total:
        return None
    rank, seen = q * total, 0
    for b in sorted(buckets, key=lambda b: b.get("min", 0)):
        seen += b["count"]
        if b["count"] and seen >= rank:
            hi = b.get("max", b.get("min", 0)) + 1
            return hi if cap is None else min(hi, cap)
    return cap


def hold_stats(items, count_key="calls"):
    """Pooled statistics of (hist, max_ns, sum_ns) triples, in us."""
    h = hist_merge(i[0] for i in items)
    maxes = [i[1] for i in items if i[1] is not None]
    sums = [i[2] for i in items if i[2] is not None]
    mx = max(maxes) if maxes else None

    def us(x):
        return None if x is None else x / 1e3
    return {count_key: sum(b["count"] for b in h),
            "total_us": us(sum(sums)) if sums else (0.0 if not h else None),
            "p50_us": us(hist_upper(h, 0.50, mx)), "p99_us": us(hist_upper(h, 0.99, mx)),
            "max_us": us(mx)}, h


def hist_percentile(buckets, q):
    """Percentile of a bpftrace log2 histogram, interpolated in its bucket."""
    total = sum(b["count"] for b in buckets)
    if not total:
        return None
    rank = q * total
    seen = 0
    for b in buckets:
        if b["count"] and seen + b["count"] >= rank:
            lo = b.get("min", 0)
            hi = b.get("max", lo) + 1
            return lo + (hi - lo) * (rank - seen) / b["count"]
        seen += b["count"]
    return buckets[-1].get("max", 0)


# ------------------------------------------------------------- samples

def lat_stats(v):
    """Percentiles of sorted samples in ns, in us."""
    if not v:
        return {"samples": 0}
    n = len(v)
    return {"samples": n, "p50_us": v[n // 2] / 1e3, "p99_us": v[n * 99 // 100] / 1e3,
            "p999_us": v[n * 999 // 1000] / 1e3, "max_us": v[-1] / 1e3}


def spread_pct(runs):
    """Half the range over the median, in %; None without repetitions."""
    if len(runs) < 2:
        return None
    med = statistics.median(runs)
    return (max(runs) - min(runs)) / 2 / med * 100 if med else None


def exceeds(delta, *spreads):
    """Whether a change (%) exceeds the spread: the larger of SPREADS (%,
    None where a side has no repetitions); never without a spread."""
    known = [x for x in spreads if x is not None]
    return bool(known) and delta is not None and abs(delta) > max(known)


def percentile(sorted_values, q):
    """Nearest-rank percentile of a sorted list; None when empty."""
    if not sorted_values:
        return None
    rank = max(1, int(math.ceil(q * len(sorted_values))))
    return sorted_values[rank - 1]


def r3(v):
    return None if v is None else round(v, 3)


def summary(values):
    v = sorted(values)
    if not v:
        return {"samples": 0, "mean_us": None, "p50_us": None, "p99_us": None,
                "p999_us": None, "max_us": None}
    return {"samples": len(v), "mean_us": r3(sum(v) / len(v)),
            "p50_us": r3(percentile(v, 0.50)), "p99_us": r3(percentile(v, 0.99)),
            "p999_us": r3(percentile(v, 0.999)), "max_us": r3(v[-1])}


# --------------------------------------------------------------- ranks

def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def spearman(pairs):
    """Rank correlation of (measured, model) pairs; None below 3 pairs or
    with no spread."""
    pairs = [(a, b) for a, b in pairs if is_number(a) and is_number(b)]
    if len(pairs) < 3:
        return None
    ra, rb = ranks([a for a, _ in pairs]), ranks([b for _, b in pairs])
    n = len(pairs)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else None
