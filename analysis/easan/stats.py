"""Intervals for the A/B tables and the benchmarks: Student's t and Welch's from scipy,
bootstrap intervals for percentiles.

- mean_ci(): a mean over repetitions and the half-width of its t interval.
- welch(): the difference of two groups' means with Welch's interval: each group's
  own variance, degrees of freedom by Welch-Satterthwaite (scipy's t quantile at
  that fractional value). Two groups of runs of different kernels need not
  scatter alike.
- bootstrap(): the distribution of a statistic (a percentile, say) over resamples
  of a group of runs, two levels deep: the runs are drawn with replacement, then
  each drawn run's values. A tail percentile over a few runs is not normal, and
  the spread between boots on a shared host (tens of percent) is larger than the
  sampling error inside one run, so both are resampled; with one run it is the
  plain bootstrap of its values. interval() reads the percentile interval off it.
  scipy.stats.bootstrap resamples each sample on its own, one level only, so the
  two-level draw is done here (tests/host/test_stats.py checks the one-run case
  against scipy's). A fixed seed makes a report reproducible.

scipy is imported when an interval is first computed: it takes a second to load,
which a one-run report does not need.
"""
import math

import numpy as np

CONFIDENCE = 0.95
SEED = 20261205
N_RESAMPLES = 2000


def t_quantile(df, confidence=CONFIDENCE):
    """The two-sided Student t quantile for df (fractional allowed) degrees of freedom;
    nan for df <= 0 or nan."""
    if not df > 0:
        return math.nan
    from scipy import stats  # pylint: disable=import-outside-toplevel
    return float(stats.t.ppf(0.5 + confidence / 2, df))


def _values(values):
    return np.array([x for x in values if x is not None], dtype=float)


def mean_ci(values, confidence=CONFIDENCE):
    """(mean, half-width of its t interval or nan, n) over the values (None skipped)."""
    v = _values(values)
    if not len(v):
        return math.nan, math.nan, 0
    if len(v) == 1:
        return float(v[0]), math.nan, 1
    sd = float(v.std(ddof=1))
    half = 0.0 if sd == 0 else t_quantile(len(v) - 1, confidence) * sd / math.sqrt(len(v))
    return float(v.mean()), half, len(v)


def welch(a, b, confidence=CONFIDENCE):
    """(mean(b) - mean(a), half-width of Welch's interval, degrees of freedom); the
    half-width and df are nan unless each group has two values, the half-width 0 when
    neither group varies. None values are skipped."""
    va, vb = _values(a), _values(b)
    if not len(va) or not len(vb):
        return math.nan, math.nan, math.nan
    delta = float(vb.mean() - va.mean())
    if len(va) < 2 or len(vb) < 2:
        return delta, math.nan, math.nan
    qa, qb = va.var(ddof=1) / len(va), vb.var(ddof=1) / len(vb)
    if qa + qb == 0:
        return delta, 0.0, math.nan
    df = (qa + qb) ** 2 / (qa ** 2 / (len(va) - 1) + qb ** 2 / (len(vb) - 1))
    return delta, t_quantile(df, confidence) * math.sqrt(qa + qb), float(df)


def lower_percentile(values, pct):
    """The pct-th percentile that is an observed value (numpy's "lower" method); None
    for no values."""
    return percentile(values, pct, "lower")


# Hyndman and Fan's type 8: interpolates between order statistics and is about
# median-unbiased whatever the distribution, where "lower" sits a rank low on few
# values (the "p95" of three values would be their median).
UNBIASED = "median_unbiased"


def percentile(values, pct, method=UNBIASED):
    """The pct-th percentile of the values by numpy's method; None for no values."""
    v = np.asarray(values, dtype=float)
    return float(np.percentile(v, pct, method=method)) if len(v) else None


def t_tail(t, df, upper):
    """P(T >= t) (upper) or P(T <= t) for Student's T with df degrees of freedom: a
    one-sided p-value."""
    from scipy import stats  # pylint: disable=import-outside-toplevel
    return float(stats.t.sf(t, df) if upper else stats.t.cdf(t, df))


def _draw_runs(runs, n_resamples, seed):
    """(the runs with values as arrays, rng, [n_resamples, runs] indices drawn)."""
    runs = [np.asarray(r, dtype=float) for r in runs]
    runs = [r for r in runs if len(r)]
    rng = np.random.default_rng(seed)
    return runs, rng, rng.integers(len(runs), size=(n_resamples, len(runs))) if runs else None


def bootstrap(runs, statistic, n_resamples=N_RESAMPLES, seed=SEED):
    """Array [n_resamples, ...] of statistic(resample), a resample being a list of
    arrays: len(runs) runs drawn with replacement, each drawn run's values drawn with
    replacement (as many as it has). None when no run has values (empty runs are left
    out)."""
    runs, rng, drawn = _draw_runs(runs, n_resamples, seed)
    if not runs:
        return None
    return np.asarray([statistic([runs[k][rng.integers(len(runs[k]), size=len(runs[k]))]
                                  for k in row]) for row in drawn], dtype=float)


def bootstrap_percentiles(runs, pcts, n_resamples=N_RESAMPLES, seed=SEED):
    """Array [n_resamples, len(pcts)]: bootstrap() of the mean over the runs of each
    run's lower percentiles pcts, without drawing the values.

    The lower pct-th percentile of n values is their k-th smallest, k = floor(pct/100
    x (n - 1)) + 1. Drawing n indices uniformly among n sorted values and taking the
    k-th smallest index is drawing U, the k-th smallest of n uniform numbers on [0, 1),
    and taking floor(U x n); U follows Beta(k, n + 1 - k). So one Beta draw per
    percentile stands for a resampled run of any length. (Each percentile's draws are
    independent of the others': a row's interval needs only its own.)"""
    runs, rng, drawn = _draw_runs(runs, n_resamples, seed)
    if not runs:
        return None
    out = np.empty((n_resamples, len(runs), len(pcts)))
    for k, values in enumerate(runs):
        v, n = np.sort(values), len(values)
        slots = drawn == k
        for j, pct in enumerate(pcts):
            rank = int(np.floor(pct / 100 * (n - 1))) + 1
            u = rng.beta(rank, n + 1 - rank, size=int(slots.sum()))
            out[slots, j] = v[np.minimum((u * n).astype(np.int64), n - 1)]
    return out.mean(axis=1)


def interval(dist, confidence=CONFIDENCE):
    """(low, high) percentile interval of a bootstrap distribution along its first axis;
    (nan, nan) for None."""
    if dist is None:
        return math.nan, math.nan
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(dist, [tail, 100 - tail], axis=0)
    return lo, hi


def pooled_percentile(pct, method="lower"):
    """A statistic for bootstrap(): the pct-th percentile (numpy's method) of the drawn
    runs' values together."""
    def statistic(runs):
        return percentile(np.concatenate(runs), pct, method)
    return statistic
