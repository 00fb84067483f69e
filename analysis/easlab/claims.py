"""Claims of an experiment judged on the metrics of its runs: held, failed or
inconclusive, with the interval, the runs and the drops behind each verdict.

The rules (their grammar is in experiment.py's docstring, beside the file format):

- Two views of every claim. It is judged on all the runs of each group and on the
  runs that pass the fidelity check; it is held only when it holds in both, failed
  only when it fails in both, inconclusive otherwise. Dropping runs can then never
  make a claim hold that all the runs do not support, whatever the drops favour.
- Verdicts need runs: each group needs MIN_RUNS runs with a value in a view (an
  experiment file may ask for more, never fewer), else the view is inconclusive.
- mean: Student's t interval for one group, Welch's for a difference. pNN: the
  percentile of the runs' values pooled, by an interpolating, about median-unbiased
  estimator (stats.UNBIASED), with a two-level bootstrap interval. min/max: a rule
  about every run, no interval ("in every run", with MIN_RUNS runs at least).
- An interval of zero width (runs that do not vary) is inconclusive: it says nothing
  about the next run.
- Held needs the whole 95 % interval to satisfy the claim and, across all the claims
  of one experiment file (each profile a claim of its own), Holm's step-down
  correction of their one-sided p-values at ALPHA, so that twenty-odd claims do not
  give a held by chance. min/max rules have no p-value and are not in the family.
  Failed needs the whole interval to contradict the claim.
"""
import math
from dataclasses import dataclass

from easan import stats

from .experiment import MIN_RUNS, OPS

HELD, FAILED, INCONCLUSIVE = "held", "failed", "inconclusive"
# The one-sided level that matches the two-sided 95 % intervals.
ALPHA = (1 - stats.CONFIDENCE) / 2
ALL, PASSING = "all runs", "fidelity-passing runs"


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


def _lists(vals):
    return [v if isinstance(v, list) else [v] for v in vals]


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
    lists = _lists(vals)
    value = stats.percentile([x for v in lists for x in v], pct)
    if point:
        return Side(value, math.nan, math.nan, len(lists))
    lo, hi = stats.interval(stats.bootstrap(lists, stats.pooled_percentile(pct, stats.UNBIASED)))
    return Side(value, float(lo), float(hi), len(lists))


def _bootstrap_delta(lhs_runs, rhs_runs, metric, pct, factor, offset):
    """The bootstrap distribution of lhs's pooled percentile minus factor x rhs's +
    offset, each group resampled on its own (independent seeds); None without values."""
    statistic = stats.pooled_percentile(pct, stats.UNBIASED)
    a = stats.bootstrap(_lists(_runs_values(lhs_runs, metric)), statistic)
    b = stats.bootstrap(_lists(_runs_values(rhs_runs, metric)), statistic, seed=stats.SEED + 1)
    if a is None or b is None:
        return None
    return a - (factor * b + offset)


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


def _wants_negative(op):
    return op in ("<", "<=")


def _t_p(op, d, half, df):
    """One-sided p-value of 'd op 0' from a t interval's half-width and its degrees of
    freedom; None when there is no spread to test with."""
    if not half > 0 or not df > 0:
        return None
    se = half / stats.t_quantile(df)
    return stats.t_tail(d / se, df, upper=not _wants_negative(op))


def _bootstrap_p(op, dist):
    """One-sided p-value of 'd op 0' from a bootstrap distribution of d: the share of
    resamples on the wrong side, (k + 1) / (B + 1) so that it is never 0."""
    wrong = (dist >= 0) if _wants_negative(op) else (dist <= 0)
    return (int(wrong.sum()) + 1) / (len(dist) + 1)


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.4g}"


def _view(claim, metric, kept, point, min_runs):
    """The claim judged on one set of runs {group: [run metrics]}: {'verdict', 'detail',
    'lhs', 'rhs', 'delta', 'p'}; p is the one-sided p-value of the claim that Holm's
    correction reads (None where nothing was tested: min/max rules, point comparisons,
    too few runs, no interval)."""
    out = {"lhs": None, "rhs": None, "delta": None, "p": None}

    def result(verdict, detail):
        out.update(verdict=verdict, detail=detail)
        return out

    stat = claim.stat
    a = side(kept[claim.lhs], metric, stat, point)
    if a is None:
        return result(INCONCLUSIVE, f"no run of {claim.lhs} with a value of {metric.name}")
    out["lhs"] = vars(a)
    b = None
    if claim.rhs is not None:
        b = side(kept[claim.rhs], metric, stat, point)
        if b is None:
            return result(INCONCLUSIVE, f"no run of {claim.rhs} with a value of {metric.name}")
        out["rhs"] = vars(b)
    p = None
    if claim.rhs is not None:
        d = a.value - (claim.factor * b.value + claim.offset)
        if point or stat in ("min", "max"):
            lo = hi = d
        elif stat == "mean":
            scaled = [claim.factor * _scalar(v) + claim.offset
                      for v in _runs_values(kept[claim.rhs], metric)]
            d, half, df = stats.welch(scaled, [_scalar(v) for v in _runs_values(kept[claim.lhs], metric)])
            lo, hi = d - half, d + half
            p = _t_p(claim.op, d, half, df)
        else:
            dist = _bootstrap_delta(kept[claim.lhs], kept[claim.rhs], metric, float(stat[1:]),
                                    claim.factor, claim.offset)
            lo, hi = stats.interval(dist)
            lo, hi = float(lo), float(hi)
            p = _bootstrap_p(claim.op, dist) if dist is not None else None
    else:
        d = a.value - claim.value
        if point or stat in ("min", "max"):
            lo = hi = d
        else:
            lo, hi = a.lo - claim.value, a.hi - claim.value
            if stat == "mean":
                p = _t_p(claim.op, d, (a.hi - a.lo) / 2, a.n - 1)
            else:
                lists = _lists(_runs_values(kept[claim.lhs], metric))
                dist = stats.bootstrap(lists, stats.pooled_percentile(float(stat[1:]), stats.UNBIASED))
                p = _bootstrap_p(claim.op, dist - claim.value) if dist is not None else None
    out["delta"] = {"value": d, "lo": lo, "hi": hi}
    if math.isnan(d):
        return result(INCONCLUSIVE, f"{claim.lhs}: no number to compare (NaN)")
    scale, unit = metric.scale, f" {metric.unit}" if metric.unit else ""
    n_b = out["rhs"]["n"] if claim.rhs else None
    text = (f"{claim.lhs} {_fmt(a.value * scale)}{unit}"
            + (f" vs {claim.rhs} {_fmt(b.value * scale)}{unit}" if claim.rhs else "")
            + f"; margin {_fmt(d * scale)} [{_fmt(lo * scale)}, {_fmt(hi * scale)}]{unit}"
            + f" ({a.n} run{'s' if a.n != 1 else ''}" + (f" vs {n_b}" if claim.rhs else "") + ")")
    if not point and min(a.n, n_b if n_b is not None else a.n) < min_runs:
        return result(INCONCLUSIVE, text + f": fewer than {min_runs} runs in a group")
    if point or stat in ("min", "max"):
        verdict = _decide(claim.op, lo, hi)
        if stat in ("min", "max") and not point:
            text += " (a rule about every run)"
        return result(verdict, text)
    if math.isnan(lo) or math.isnan(hi):
        return result(INCONCLUSIVE, text + ": too few runs for an interval")
    if hi == lo:
        return result(INCONCLUSIVE, text + ": an interval of zero width (the runs do not vary)")
    if claim.max_half_width is not None and (hi - lo) / 2 > claim.max_half_width:
        return result(INCONCLUSIVE, text + f": interval wider than +-{_fmt(claim.max_half_width * scale)}"
                      f"{unit}")
    verdict = _decide(claim.op, lo, hi)
    out["p"] = p
    if verdict == INCONCLUSIVE:
        text += ": the interval straddles the bound"
    if verdict == HELD and p is not None:
        text += f" (one-sided p {_fmt(p)})"
    return result(verdict, text)


def _dropped_note(dropped):
    n = sum(len(v) for v in dropped.values())
    if not n:
        return ""
    first = next(iter(next(iter(dropped.values()))))
    return f"{n} distorted run{'s' if n != 1 else ''} dropped (e.g. {first})"


def _combine(out):
    """The verdict of a claim from its two views (after Holm's correction)."""
    a, k = out["views"][ALL], out["views"][PASSING]
    if a["verdict"] == k["verdict"]:
        verdict = a["verdict"]
    else:
        verdict = INCONCLUSIVE
    note = _dropped_note(out["dropped"])
    if a is k or not note:
        detail = k["detail"]
    else:
        detail = f"{ALL}: {a['verdict']}, {a['detail']}; {PASSING}: {k['verdict']}, {k['detail']}; {note}"
    out.update(verdict=verdict, detail=detail, lhs=k["lhs"], rhs=k["rhs"], delta=k["delta"])
    return out


def evaluate(claim, metric, groups_runs, drop_distorted=True, point=False, min_runs=MIN_RUNS):
    """Judge a claim on {group: [run metrics]} (one profile), on all the runs and,
    with drop_distorted, on those that pass the fidelity check. point: compare point
    values without intervals or a run count (a single run per group, as the guest
    tests have), on the runs that pass only.
    Returns {'claim', 'rule', 'verdict', 'detail', 'lhs', 'rhs', 'delta', 'dropped',
    'views': {ALL: view, PASSING: view}} (the views before Holm's correction, which
    judge() applies)."""
    dropped, kept = {}, {}
    everything = {}
    for g in {claim.lhs, claim.rhs} - {None}:
        runs = groups_runs.get(g, [])
        everything[g] = list(runs)
        kept[g] = []
        for m in runs:
            why = distorted(m) if drop_distorted else ""
            if why:
                dropped.setdefault(g, []).append(f"{m.get('run', '?')}: {why}")
            else:
                kept[g].append(m)
    passing = _view(claim, metric, kept, point, min_runs)
    every = passing if point or not dropped else _view(claim, metric, everything, point, min_runs)
    out = {"claim": claim.text, "rule": claim.describe(metric), "dropped": dropped,
           "views": {ALL: every, PASSING: passing}}
    return _combine(out)


def holm(judgments, alpha=ALPHA):
    """Holm's step-down over the tested views of one experiment file (every claim and
    profile with a p-value), view by view: a held view whose p-value Holm does not
    reject becomes inconclusive. judgments: evaluate()'s dicts, changed in place and
    recombined."""
    for view in (ALL, PASSING):
        family = sorted({id(j["views"][view]): j["views"][view] for j in judgments
                         if j["views"][view]["p"] is not None}.values(), key=lambda v: v["p"])
        m = len(family)
        rejecting = True
        for i, v in enumerate(family):
            threshold = alpha / (m - i)
            rejecting = rejecting and v["p"] <= threshold
            if not rejecting and v["verdict"] == HELD:
                v["verdict"] = INCONCLUSIVE
                v["detail"] += (f": not held after Holm's correction over {m} claims "
                                f"(p {_fmt(v['p'])} > {_fmt(threshold)})")
    for j in judgments:
        _combine(j)
    return judgments


def claims_for(exp, profile_name):
    """The experiment's claims that apply to a profile."""
    return [c for c in exp.claims if not c.profiles or profile_name in c.profiles]


def judge(exp, runs_by_profile_group, drop_distorted=True, point=False):
    """[{'profile', 'claim', 'verdict', ...}] for every claim and profile, Holm's
    correction applied across them; runs_by_profile_group: {profile name: {group:
    [run metrics]}}."""
    out = []
    for p in exp.profiles:
        pname = exp.profile_name(p)
        for c in claims_for(exp, pname):
            r = evaluate(c, exp.metrics[c.metric], runs_by_profile_group.get(pname, {}),
                         drop_distorted, point, exp.min_runs)
            out.append({"profile": pname, **r})
    return out if point else holm(out)
