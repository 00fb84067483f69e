"""One ratio from several replays, each measured with its own precision.

A replay's ratio of mean run times (say E-core over P-core) has a sampling
error that depends on how quiet the host was: a replay under host load has
run times that scatter by tens of percent, a quiet one by a few. Averaging
the replays' ratios with equal weights lets the noisy ones set the interval.
The random-effects pool (DerSimonian and Laird) weights each replay by its
precision and widens the interval by however much the replays disagree
beyond their own errors (tau), so a host-dependent bias between replays is
not mistaken for precision.
"""
import math

import numpy as np

from .stats import t_quantile


def ratio_of_means(num, den):
    """(mean(num) / mean(den), its standard error by the delta method)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"need two values on each side, got {len(a)} and {len(b)}")
    r = a.mean() / b.mean()
    rel = a.var(ddof=1) / (len(a) * a.mean() ** 2) + b.var(ddof=1) / (len(b) * b.mean() ** 2)
    return float(r), float(r * math.sqrt(rel))


def pooled(estimates):
    """(mean, half-width of its 95 % CI, tau) over [(value, standard error)].

    tau is the spread between replays that their own errors do not explain.
    The half-width uses Student's t with k - 1 degrees of freedom (nan for one
    estimate). A zero standard error is taken as the smallest non-zero one
    (as 1 when all are zero, which leaves the interval meaningless).
    """
    est = [(v, se) for v, se in estimates if v is not None and se is not None]
    if not est:
        return math.nan, math.nan, math.nan
    floor = min((se for _, se in est if se > 0), default=1.0)
    v = np.array([x for x, _ in est], dtype=float)
    var = np.array([max(se, floor) ** 2 for _, se in est], dtype=float)
    w = 1 / var
    fixed = float((w * v).sum() / w.sum())
    q = float((w * (v - fixed) ** 2).sum())
    spread = w.sum() - (w ** 2).sum() / w.sum()
    tau2 = max(0.0, (q - (len(v) - 1)) / spread) if spread > 0 else 0.0
    w = 1 / (var + tau2)
    mean = float((w * v).sum() / w.sum())
    return mean, t_quantile(len(v) - 1) / math.sqrt(w.sum()), math.sqrt(tau2)
