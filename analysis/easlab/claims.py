"""Claims of an experiment judged on the metrics of its runs: held, failed or
inconclusive, with the interval, the runs and the drops behind each verdict (the
rules are in experiment.py's docstring, beside the file format)."""
import math
from dataclasses import dataclass

from easan import stats

from .experiment import OPS

HELD, FAILED, INCONCLUSIVE = "held", "failed", "inconclusive"


@dataclass
class Side:
    """A group's statistic: its point value, interval (nan without one) and runs."""
    value: float
    lo: float
    hi: float
    n: int


def _runs_values(runs, metric):
    """Each run's value(s) of metric, runs without one left out."""
    out = []
    for m in runs:
        v = metric.values(m)
        if v is None or (isinstance(v, list) and not v):
            continue
        out.append(v)
    return out


def _scalar(v):
    return float(sum(v) / len(v)) if isinstance(v, list) else v


def side(runs, metric, stat, point=False):
    """The group's statistic over its runs' metrics: Side, or None without values."""
    vals = _runs_values(runs, metric)
    if not vals:
        return None
    if stat in ("min", "max"):
        xs = [_scalar(v) for v in vals]
        x = min(xs) if stat == "min" else max(xs)
        return Side(x, x, x, len(xs))
    if stat == "mean":
        mean, half, n = stats.mean_ci([_scalar(v) for v in vals])
        if point:
            half = math.nan
        return Side(mean, mean - half, mean + half, n)
    pct = float(stat[1:])
    lists = [v if isinstance(v, list) else [v] for v in vals]
    pooled = [x for v in lists for x in v]
    value = stats.lower_percentile(pooled, pct)
    if point:
        return Side(value, math.nan, math.nan, len(lists))
    lo, hi = stats.interval(stats.bootstrap(lists, stats.pooled_percentile(pct)))
    return Side(value, float(lo), float(hi), len(lists))


def _bootstrap_delta(lhs_runs, rhs_runs, metric, pct, factor, offset):
    """Interval of lhs's pooled percentile minus factor x rhs's + offset, each group
    resampled on its own (independent seeds)."""

    def lists(runs):
        return [v if isinstance(v, list) else [v] for v in _runs_values(runs, metric)]
    a = stats.bootstrap(lists(lhs_runs), stats.pooled_percentile(pct))
    b = stats.bootstrap(lists(rhs_runs), stats.pooled_percentile(pct), seed=stats.SEED + 1)
    if a is None or b is None:
        return math.nan, math.nan
    lo, hi = stats.interval(a - (factor * b + offset))
    return float(lo), float(hi)


def distorted(m):
    """Why a run's metrics are not to be used ('' when they are): the fidelity check
    flagged the run."""
    f = m.get("fidelity") or {}
    if f.get("distorted"):
        return f.get("reason") or "distorted"
    return ""


def _decide(op, lo, hi):
    """held/failed/inconclusive for 'd op 0' given d's interval [lo, hi]."""
    if OPS[op](lo) and OPS[op](hi):
        return HELD
    if not OPS[op](lo) and not OPS[op](hi):
        # For "<": both ends >= 0. The whole interval contradicts the claim only if
        # no value in it satisfies it, which for a half-open op is the same test.
        return FAILED
    return INCONCLUSIVE


def evaluate(claim, metric, groups_runs, drop_distorted=True, point=False):
    """Judge a claim on {group: [run metrics]} (one profile). point: compare point
    values without intervals (a single run per group, as the guest tests have).
    Returns {'verdict', 'detail', 'lhs', 'rhs', 'delta', 'dropped'}."""
    dropped = {}
    kept = {}
    for g in {claim.lhs, claim.rhs} - {None}:
        runs = []
        for m in groups_runs.get(g, []):
            why = distorted(m) if drop_distorted else ""
            if why:
                dropped.setdefault(g, []).append(f"{m.get('run', '?')}: {why}")
            else:
                runs.append(m)
        kept[g] = runs
    out = {"claim": claim.text, "rule": claim.describe(metric), "lhs": None, "rhs": None,
           "delta": None, "dropped": dropped}

    def result(verdict, detail):
        out.update(verdict=verdict, detail=detail)
        return out

    a = side(kept[claim.lhs], metric, claim.stat, point)
    if a is None:
        return result(INCONCLUSIVE, f"no run of {claim.lhs} with a value of {metric.name}"
                      + _dropped_note(dropped))
    out["lhs"] = vars(a)
    if claim.rhs is not None:
        b = side(kept[claim.rhs], metric, claim.stat, point)
        if b is None:
            return result(INCONCLUSIVE, f"no run of {claim.rhs} with a value of {metric.name}"
                          + _dropped_note(dropped))
        out["rhs"] = vars(b)
        d = a.value - (claim.factor * b.value + claim.offset)
        if point or claim.stat in ("min", "max"):
            lo = hi = d
        elif claim.stat == "mean":
            scaled = [claim.factor * _scalar(v) + claim.offset
                      for v in _runs_values(kept[claim.rhs], metric)]
            dd, half, _ = stats.welch(scaled, [_scalar(v) for v in _runs_values(kept[claim.lhs], metric)])
            d, lo, hi = dd, dd - half, dd + half
        else:
            lo, hi = _bootstrap_delta(kept[claim.lhs], kept[claim.rhs], metric, float(claim.stat[1:]),
                                      claim.factor, claim.offset)
    else:
        d = a.value - claim.value
        lo, hi = (d, d) if point or claim.stat in ("min", "max") else (a.lo - claim.value, a.hi - claim.value)
    out["delta"] = {"value": d, "lo": lo, "hi": hi}
    note = _dropped_note(dropped)
    scale, unit = metric.scale, f" {metric.unit}" if metric.unit else ""
    text = (f"{claim.lhs} {_fmt(a.value * scale)}{unit}"
            + (f" vs {claim.rhs} {_fmt(out['rhs']['value'] * scale)}{unit}" if claim.rhs else "")
            + f"; margin {_fmt(d * scale)} [{_fmt(lo * scale)}, {_fmt(hi * scale)}]{unit}"
            + f" ({a.n} run{'s' if a.n != 1 else ''}"
            + (f" vs {out['rhs']['n']}" if claim.rhs else "") + ")")
    if math.isnan(lo) or math.isnan(hi):
        return result(INCONCLUSIVE, text + ": too few runs for an interval" + note)
    if claim.max_half_width is not None and (hi - lo) / 2 > claim.max_half_width:
        return result(INCONCLUSIVE, text + f": interval wider than +-{_fmt(claim.max_half_width * scale)}"
                      f"{unit}" + note)
    verdict = _decide(claim.op, lo, hi)
    if verdict == INCONCLUSIVE:
        text += ": the interval straddles the bound"
    return result(verdict, text + note)


def _dropped_note(dropped):
    n = sum(len(v) for v in dropped.values())
    if not n:
        return ""
    first = next(iter(next(iter(dropped.values()))))
    return f"; {n} distorted run{'s' if n != 1 else ''} dropped (e.g. {first})"


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.4g}"


def claims_for(exp, profile_name):
    """The experiment's claims that apply to a profile."""
    return [c for c in exp.claims if not c.profiles or profile_name in c.profiles]


def judge(exp, runs_by_profile_group, drop_distorted=True, point=False):
    """[{'profile', 'claim', 'verdict', ...}] for every claim and profile;
    runs_by_profile_group: {profile name: {group: [run metrics]}}."""
    out = []
    for p in exp.profiles:
        pname = exp.profile_name(p)
        for c in claims_for(exp, pname):
            r = evaluate(c, exp.metrics[c.metric], runs_by_profile_group.get(pname, {}),
                         drop_distorted, point)
            out.append({"profile": pname, **r})
    return out
