"""A/B: two groups of runs side by side, with deltas and 95 % confidence intervals
(stats.py: Student's t for a group's mean, Welch's for the delta)."""
import math

from . import latency, push, stats
from .causes import ORDER
from .metrics import PLACEMENT_REASONS

# (name, path into metrics.json, unit, scale)
ROWS = [
    ("migrations", ("migrations", "total"), "", 1),
    ("same-type", ("migrations", "same"), "", 1),
    ("up (to bigger)", ("migrations", "up"), "", 1),
    ("down (to smaller)", ("migrations", "down"), "", 1),
    ("run time on P-cores", ("residency_share", "p"), "%", 100),
    ("run time on E-cores", ("residency_share", "e"), "%", 100),
    ("wakeup latency p50", ("wakeup_latency_ns", "p50"), "us", 1e-3),
    ("wakeup latency p95", ("wakeup_latency_ns", "p95"), "us", 1e-3),
    ("wakeup latency p99", ("wakeup_latency_ns", "p99"), "us", 1e-3),
    ("energy (reference model)", ("energy", "estimated_mj"), "mJ", 1),
    ("energy / oracle", ("energy", "ratio"), "", 1),
    ("delayed-dequeue wakeups", ("delayed_wakeups",), "", 1),
    ("push decisions", ("push", "decisions"), "", 1),
    ("capped tasks: run time on P-cores", ("capped", "p_share"), "%", 100),
    ("capped tasks: run time on P-cores after settling", ("capped", "p_share_settled"), "%", 100),
    ("capped tasks: piled on one CPU beside a free sibling", ("capped", "stacked_ns"), "ms", 1e-6),
    ("capped tasks: piled, after settling", ("capped", "stacked_settled_ns"), "ms", 1e-6),
    ("tasks outside the profile", ("outside", "share"), "%", 100),
]

# Rows generated from dicts of event counts by name, (label, path, names): a row
# "label: name" for every name a run of either group counted, and for each of
# `names` (the kernel's own list) whenever a run's kernel traced the event, in the
# order of `names`, others after them sorted. A name missing from a run's dict
# counted 0 there; a dict that is None (an event the kernel lacks) counted nothing.
COUNT_ROWS = [
    ("migrations", ("migrations", "by_cause"), ()),
    ("placement decisions", ("placement_decisions",), PLACEMENT_REASONS),
    ("push decisions", ("push", "by_outcome"), push.OUTCOMES),
    ("push decisions by trigger", ("push", "by_trigger"), push.TRIGGERS),
    ("push decisions by why", ("push", "by_why"), push.WHYS),
]
# The order of the migrations' causes: theirs.
_ORDERS = {("migrations", "by_cause"): ORDER}

# Percentiles over the values of every run of a group together, not means of the
# runs' own (a run has few episodes): (name, path to a list of dicts, key,
# percentile, unit, scale).
POOLED_ROWS = [
    ("misfit reaction from fit crossing p50", ("reaction", "list"), "from_crossing_ns", 50, "ms", 1e-6),
    ("misfit reaction from fit crossing p95", ("reaction", "list"), "from_crossing_ns", 95, "ms", 1e-6),
    ("misfit reaction from phase start p50", ("reaction", "list"), "from_phase_start_ns", 50, "ms", 1e-6),
    ("misfit reaction from phase start p95", ("reaction", "list"), "from_phase_start_ns", 95, "ms", 1e-6),
]


_COUNTS = {path for _, path, _ in COUNT_ROWS}


def _get(m, path):
    for key in path:
        m = m.get(key) if isinstance(m, dict) else None
    return m


def _value(m, path, scale):
    if tuple(path[:-1]) in _COUNTS:
        counts = _get(m, path[:-1])
        return None if counts is None else counts.get(path[-1], 0) * scale
    v = _get(m, path)
    return None if v is None else v * scale


def _count_rows(runs):
    rows = []
    for label, path, names in COUNT_ROWS:
        dicts = [d for d in (_get(m, path) for m in runs) if d is not None]
        order = list(_ORDERS.get(path, names))
        seen = {n for d in dicts for n in d} | (set(names) if dicts else set())
        for name in [n for n in order if n in seen] + sorted(seen - set(order)):
            rows.append((f"{label}: {name}", path + (name,), "", 1))
    return rows


def _pooled(runs, path, key, pct, scale):
    """(the percentile over every run's values, n values)."""
    values = [e[key] for m in runs for e in (_get(m, path) or []) if e.get(key) is not None]
    v = latency.summary(values)[f"p{pct}"]
    return (math.nan if v is None else v * scale), len(values)


def table(a, b):
    """Rows {name, unit, a, a_ci, b, b_ci, delta, delta_ci, n_a, n_b} for groups a and b;
    none for a metric that no run of either measured (a profile without capped tasks,
    say)."""
    out = []
    for name, path, unit, scale in ROWS + _count_rows(a + b):
        va = [_value(m, path, scale) for m in a]
        vb = [_value(m, path, scale) for m in b]
        ma, ca, na = stats.mean_ci(va)
        mb, cb, nb = stats.mean_ci(vb)
        _, dci, _ = stats.welch(va, vb)
        out.append({"name": name, "unit": unit, "a": ma, "a_ci": ca, "b": mb, "b_ci": cb,
                    "delta": mb - ma, "delta_ci": dci, "n_a": na, "n_b": nb})
    for name, path, key, pct, unit, scale in POOLED_ROWS:
        (ma, na), (mb, nb) = (_pooled(g, path, key, pct, scale) for g in (a, b))
        out.append({"name": name, "unit": unit, "a": ma, "a_ci": math.nan, "b": mb,
                    "b_ci": math.nan, "delta": mb - ma, "delta_ci": math.nan, "n_a": na, "n_b": nb})
    return [r for r in out if r["n_a"] or r["n_b"]]


def fmt(value, ci=math.nan):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    s = f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return s + (f" ± {ci:.2g}" if not math.isnan(ci) else "")


def text(rows, label_a, label_b):
    """The table as aligned text, for the terminal."""
    head = ("metric", f"A: {label_a}", f"B: {label_b}", "B - A")
    body = [(r["name"] + (f" ({r['unit']})" if r["unit"] else ""), fmt(r["a"], r["a_ci"]),
             fmt(r["b"], r["b_ci"]), fmt(r["delta"], r["delta_ci"])) for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(4)]
    lines = ["  ".join(x[i].ljust(widths[i]) for i in range(4)) for x in [head] + body]
    return "\n".join(lines)
