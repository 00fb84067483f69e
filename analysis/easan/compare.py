"""A/B: two groups of runs side by side, with deltas and 95 % intervals (stats.py).

Each metric declares its rows (Metric.ab), of three kinds:

- Mean: a number per run. The group's mean with Student's t interval over its runs;
  the delta B - A with Welch's interval.
- Counts: a dict of event counts by name per run, one Mean row "label: name" for each
  name a run of either group counted and, where `enum` names an enum field
  ("event.field"), for each name the runs' kernels give its values (metrics' "enums",
  from the trace's formats) that `keep` accepts, whenever a run traced the event; in
  the order of `order` (default: the enum's), others after them sorted. A name missing
  from a run's dict counted 0 there; a dict that is None (an event the kernel lacks)
  counted nothing, as does a value None. Also for a dict of shares by name (unit,
  scale as Mean's).
- Percentiles: values per run (samples(result), None when the run did not measure
  them), a row per percentile with bootstrap intervals (stats.bootstrap: runs and the
  values inside them resampled). pooled: the percentile over the values of all the
  group's runs together (a run has few of them: misfit reactions), n counting values;
  else the mean over the runs of each run's own percentile (wakeup latency), n
  counting runs. The delta's interval is that of the difference of independent
  resamples of the two groups.

A row: {name, unit, a, b, delta, n_a, n_b, interval ("t" or "bootstrap"), a_ci, b_ci,
delta_ci (half-widths of t intervals, nan for bootstrap ones), a_interval, b_interval,
delta_interval ([low, high] either way)}.
"""
import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import stats


@dataclass(frozen=True)
class Mean:
    name: str
    path: tuple
    unit: str = ""
    scale: float = 1


@dataclass(frozen=True)
class Counts:
    label: str
    path: tuple
    enum: str = ""
    keep: Optional[Callable] = None
    order: Optional[tuple] = None
    unit: str = ""
    scale: float = 1

    def names(self, results):
        """The enum's names in the results' kernels, in value order, those of the
        first kernel first."""
        out = {}
        for r in results:
            for name in (r.metrics.get("enums") or {}).get(self.enum, ()):
                if self.keep is None or self.keep(name):
                    out.setdefault(name, None)
        return tuple(out)


@dataclass(frozen=True)
class Percentiles:
    name: str                   # with {p} for the percentile
    samples: Callable           # result -> values, or None when not measured
    pcts: tuple
    pooled: bool
    unit: str = ""
    scale: float = 1


def _get(m, path):
    for key in path:
        m = m.get(key) if isinstance(m, dict) else None
    return m


def _scaled(v, scale):
    return None if v is None else v * scale


def _row(name, unit, how, a, b, delta, n_a, n_b):
    """a, b, delta: (estimate, low, high, t half-width or nan)."""
    def iv(x):
        return [x[1], x[2]]
    return {"name": name, "unit": unit, "a": a[0], "b": b[0], "delta": delta[0],
            "n_a": n_a, "n_b": n_b, "interval": how,
            "a_ci": a[3], "b_ci": b[3], "delta_ci": delta[3],
            "a_interval": iv(a), "b_interval": iv(b), "delta_interval": iv(delta)}


def _t(mean, half):
    return mean, mean - half, mean + half, half


def mean_row(name, unit, va, vb):
    """The row of one number per run of each group (None: not measured there)."""
    ma, ha, na = stats.mean_ci(va)
    mb, hb, nb = stats.mean_ci(vb)
    delta, hd, _ = stats.welch(va, vb)
    return _row(name, unit, "t", _t(ma, ha), _t(mb, hb), _t(delta, hd), na, nb)


def _count_rows(spec, a, b):
    dicts = [d for d in (_get(r.metrics, spec.path) for r in a + b) if d is not None]
    names = spec.names(a + b) if spec.enum else ()
    order = list(spec.order or names)
    seen = {n for d in dicts for n in d} | (set(names) if dicts else set())
    out = []
    for name in [n for n in order if n in seen] + sorted(seen - set(order)):
        def value(r, name=name):
            counts = _get(r.metrics, spec.path)
            return None if counts is None else _scaled(counts.get(name, 0), spec.scale)
        out.append(mean_row(f"{spec.label}: {name}", spec.unit, [value(r) for r in a],
                            [value(r) for r in b]))
    return out


def _samples(spec, group):
    """[values of each run that measured them], scaled."""
    out = []
    for r in group:
        v = spec.samples(r)
        if v is not None:
            out.append(np.asarray([x for x in v if x is not None], dtype=float) * spec.scale)
    return out


def _percentile_group(spec, runs, seed):
    """(n, [estimate per percentile], bootstrap distribution [resamples, pcts] or None)
    of one group's runs' values."""
    if spec.pooled:
        values = np.concatenate(runs) if runs else np.zeros(0)
        est = [stats.lower_percentile(values, p) for p in spec.pcts]
        dist = stats.bootstrap(runs, lambda rs: [stats.lower_percentile(np.concatenate(rs), p)
                                                 for p in spec.pcts], seed=seed)
        return len(values), est, dist
    runs = [r for r in runs if len(r)]
    est = [float(np.mean([stats.lower_percentile(r, p) for r in runs])) if runs else None
           for p in spec.pcts]
    return len(runs), est, stats.bootstrap_percentiles(runs, spec.pcts, seed=seed)


def _percentile_rows(spec, a, b):
    # Different seeds: two identical groups must not draw identical resamples.
    (n_a, est_a, dist_a), (n_b, est_b, dist_b) = (
        _percentile_group(spec, _samples(spec, group), stats.SEED + i)
        for i, group in enumerate((a, b)))
    both = dist_a is not None and dist_b is not None
    low_hi = [stats.interval(d) for d in (dist_a, dist_b, dist_b - dist_a if both else None)]
    out = []
    for j, p in enumerate(spec.pcts):
        def part(estimate, interval):
            lo, hi = interval
            return (math.nan if estimate is None else estimate,
                    lo if _nan(lo) else lo[j], hi if _nan(hi) else hi[j], math.nan)
        a_, b_ = part(est_a[j], low_hi[0]), part(est_b[j], low_hi[1])
        d = part(b_[0] - a_[0], low_hi[2])
        out.append(_row(spec.name.format(p=p), spec.unit, "bootstrap", a_, b_, d, n_a, n_b))
    return out


def rows_of(spec, a, b):
    """The rows of one spec for groups a and b (lists of pipeline.Result)."""
    if isinstance(spec, Mean):
        return [mean_row(spec.name, spec.unit, [_scaled(_get(r.metrics, spec.path), spec.scale)
                                                for r in a],
                         [_scaled(_get(r.metrics, spec.path), spec.scale) for r in b])]
    if isinstance(spec, Counts):
        return _count_rows(spec, a, b)
    return _percentile_rows(spec, a, b)


def table(a, b, specs):
    """The A/B rows for groups a and b (lists of pipeline.Result), in the order of specs
    (catalog.AB_SPECS: every metric's rows, in report order); none for a metric that no
    run of either group measured (a profile without capped tasks, say)."""
    out = [row for spec in specs for row in rows_of(spec, list(a), list(b))]
    return [r for r in out if r["n_a"] or r["n_b"]]


def _nan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(value, ci=math.nan, interval=None):
    """'12.3 ± 0.45' (t half-width), '12.3 [11.9, 13.1]' (an interval), '12.3', or '-'."""
    if _nan(value):
        return "-"

    def num(x):
        return f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"
    if not _nan(ci):
        return num(value) + f" ± {ci:.2g}"
    if interval is not None and not any(_nan(x) for x in interval):
        return f"{num(value)} [{num(interval[0])}, {num(interval[1])}]"
    return num(value)


def cells(row):
    """The row's A, B and B - A as text."""
    return tuple(fmt(row[k], row[f"{k}_ci"], row[f"{k}_interval"]) for k in ("a", "b", "delta"))


def text(rows, label_a, label_b):
    """The table as aligned text, for the terminal."""
    head = ("metric", f"A: {label_a}", f"B: {label_b}", "B - A")
    body = [(r["name"] + (f" ({r['unit']})" if r["unit"] else ""), *cells(r)) for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(4)]
    lines = ["  ".join(x[i].ljust(widths[i]) for i in range(4)) for x in [head] + body]
    return "\n".join(lines)


def label(results):
    """A group's name: its runs' labels (runfolder.Run.label)."""
    return " / ".join(sorted({r.metrics["label"] for r in results}))
