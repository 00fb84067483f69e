"""easan.stats and the A/B rows built on it: known answers, and the bootstrap's draws."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from easan import compare, stats
from easlab import kernel_lists


def test_t_quantiles():
    # Printed tables: t(0.975; 4) = 2.776, t(0.975; 30) = 2.042; the normal's 1.960.
    assert stats.t_quantile(4) == pytest.approx(2.776445, abs=1e-6)
    assert stats.t_quantile(30) == pytest.approx(2.042272, abs=1e-6)
    assert stats.t_quantile(1e9) == pytest.approx(1.959964, abs=1e-6)
    assert math.isnan(stats.t_quantile(0))


def test_mean_interval():
    # [1, 2, 3]: sd 1, half-width t(2) / sqrt(3) = 4.302653 / 1.732051.
    assert stats.mean_ci([1, None, 2, 3]) == pytest.approx((2.0, 2.484138, 3), abs=1e-6)
    assert stats.mean_ci([5, 5, 5]) == (5.0, 0.0, 3)
    mean, half, n = stats.mean_ci([7])
    assert (mean, n) == (7.0, 1) and math.isnan(half)


def test_welch_equal_groups_by_hand():
    # Variances 1 and 1 over 3 values each: se^2 = 1/3 + 1/3, and Welch-Satterthwaite
    # gives (2/3)^2 / (2 x (1/3)^2 / 2) = 4 degrees of freedom: half-width
    # t(4) x sqrt(2/3) = 2.776445 x 0.816497.
    delta, half, df = stats.welch([1, 2, 3], [4, 5, 6])
    assert (delta, half, df) == pytest.approx((3.0, 2.266958, 4.0), abs=1e-6)


def test_welch_unequal_groups():
    # A: 1..10 (variance 55/6), B: 5, 6, 7 (variance 1). se^2 = 55/60 + 1/3 = 1.25,
    # df = 1.5625 / ((55/60)^2 / 9 + (1/3)^2 / 2) = 10.4922. The old rule, t at the
    # smaller group's 2 degrees of freedom, gave a half-width of 4.303 x 1.118 = 4.81.
    a, b = list(range(1, 11)), [5, 6, 7]
    delta, half, df = stats.welch(a, b)
    assert delta == 0.5 and df == pytest.approx(1.5625 / ((55 / 60) ** 2 / 9 + 1 / 18), rel=1e-9)
    assert half == pytest.approx(stats.t_quantile(df) * math.sqrt(1.25), rel=1e-9)
    assert 2.4 < half < 2.6
    # A bound of the interval is the difference Welch's test (scipy's own, another
    # code path) rejects at exactly 5 %.
    from scipy.stats import ttest_ind  # pylint: disable=import-outside-toplevel
    for bound in (delta - half, delta + half):
        p = ttest_ind(np.array(b) - bound, a, equal_var=False).pvalue
        assert p == pytest.approx(0.05, abs=1e-9)


def test_welch_degenerate_groups():
    assert stats.welch([2, 2], [3, 3])[:2] == (1.0, 0.0)
    delta, half, df = stats.welch([1], [2, 3])
    assert delta == 1.5 and math.isnan(half) and math.isnan(df)
    assert all(math.isnan(x) for x in stats.welch([], [1, 2]))


def test_bootstrap_is_deterministic_with_a_seed():
    rng = np.random.default_rng(3)
    runs = [rng.exponential(100, 200), rng.exponential(120, 150)]
    one = stats.bootstrap_percentiles(runs, (50, 99), seed=7)
    assert np.array_equal(one, stats.bootstrap_percentiles(runs, (50, 99), seed=7))
    assert not np.array_equal(one, stats.bootstrap_percentiles(runs, (50, 99), seed=8))
    pooled = stats.bootstrap(runs, stats.pooled_percentile(95), seed=7)
    assert np.array_equal(pooled, stats.bootstrap(runs, stats.pooled_percentile(95), seed=7))
    assert stats.bootstrap([[], []], stats.pooled_percentile(95)) is None


def test_bootstrap_resamples_the_runs():
    # Two runs of constant values 0 and 10: only the draw of the runs varies. The mean
    # of the drawn runs' medians is 0, 5 or 10 with probabilities 1/4, 1/2, 1/4, so the
    # 95 % interval is [0, 10]; drawing values inside fixed runs would give 5 always.
    dist = stats.bootstrap_percentiles([[0.0] * 50, [10.0] * 80], (50,), n_resamples=4000)
    shares = [np.mean(dist[:, 0] == v) for v in (0, 5, 10)]
    assert shares == pytest.approx([0.25, 0.5, 0.25], abs=0.03)
    assert [float(x[0]) for x in stats.interval(dist)] == [0.0, 10.0]


def test_percentile_draws_match_resampling():
    # bootstrap_percentiles draws each resampled run's percentile from its order
    # statistic's law instead of drawing the values: the same distribution as
    # resampling them (bootstrap() with the same statistic), to Monte Carlo error.
    rng = np.random.default_rng(11)
    runs = [rng.lognormal(4, 1, 300), rng.lognormal(4.3, 1, 500)]
    fast = stats.bootstrap_percentiles(runs, (50, 95, 99), n_resamples=4000, seed=1)
    slow = stats.bootstrap(runs, lambda rs: np.mean(
        [np.percentile(r, (50, 95, 99), method="lower") for r in rs], axis=0),
        n_resamples=4000, seed=2)
    for f, s in zip(np.array(stats.interval(fast)).T, np.array(stats.interval(slow)).T):
        assert f == pytest.approx(s, abs=0.1 * (s[1] - s[0]))


def test_one_run_bootstrap_matches_scipy():
    # With one run there is no run to draw: the plain percentile bootstrap of its
    # values, which scipy.stats.bootstrap computes too.
    from scipy.stats import bootstrap  # pylint: disable=import-outside-toplevel
    values = np.random.default_rng(5).gamma(2, 50, 400)
    ours = stats.interval(stats.bootstrap([values], stats.pooled_percentile(95), n_resamples=4000))
    theirs = bootstrap((values,), lambda v, axis: np.percentile(v, 95, axis=axis, method="lower"),
                       n_resamples=4000, method="percentile", random_state=9).confidence_interval
    width = theirs.high - theirs.low
    assert ours == pytest.approx((theirs.low, theirs.high), abs=0.1 * width)


def result(metrics=None, latency=()):
    """A stand-in for pipeline.Result with the parts the A/B rows read."""
    return SimpleNamespace(metrics=metrics or {}, data={"latency": {"latency": latency}})


def test_mean_rows_use_welch():
    a = [result({"x": v}) for v in (1, 2, 3)]
    b = [result({"x": v}) for v in (4, 5, 6)]
    [row] = compare.rows_of(compare.Mean("x", ("x",)), a, b)
    assert (row["a"], row["b"], row["delta"], row["interval"]) == (2.0, 5.0, 3.0, "t")
    assert (row["a_ci"], row["delta_ci"]) == pytest.approx((2.484138, 2.266958), abs=1e-6)
    assert row["delta_interval"] == pytest.approx([3 - 2.266958, 3 + 2.266958], abs=1e-6)
    assert compare.fmt(row["delta"], row["delta_ci"]) == "3 ± 2.3"


def test_percentile_rows_have_bootstrap_intervals():
    # Each run's p50 is its middle value: A's runs 2 and 4 (mean 3), B's 12 and 14.
    a = [result(latency=[1, 2, 3]), result(latency=[3, 4, 5])]
    b = [result(latency=[11, 12, 13]), result(latency=[13, 14, 15])]
    spec = compare.Percentiles("p{p}", lambda r: r.data["latency"]["latency"], (50,),
                               pooled=False)
    [row] = compare.rows_of(spec, a, b)
    assert (row["a"], row["b"], row["delta"], row["n_a"], row["interval"]) == \
        (3.0, 13.0, 10.0, 2, "bootstrap")
    assert math.isnan(row["a_ci"])
    lo, hi = row["a_interval"]
    assert 1 <= lo <= 3 <= hi <= 5
    dlo, dhi = row["delta_interval"]
    assert 6 <= dlo <= 10 <= dhi <= 14
    assert compare.fmt(row["a"], row["a_ci"], row["a_interval"]) == f"3 [{lo:.3g}, {hi:.3g}]"
    # A group that measured nothing has no value and no interval.
    [row] = compare.rows_of(spec, a, [result(latency=[])])
    assert row["n_b"] == 0 and math.isnan(row["b"]) and math.isnan(row["delta_interval"][0])


def test_series_lists(tmp_path):
    # A list defined, then appended to in a later patch whose hunk shows its #define,
    # and a long list appended to in a hunk that does not show it.
    (tmp_path / "0001-a.patch").write_text(
        "+#define SCHED_PUSH_TRIGGERS(item, last)\t\\\n"
        "+\tlast(SCHED_PUSH_PUTBACK,\t\"putback\")\n"
        "+\n"
        "+#define SCHED_PUSH_WHYS(item, last)\t\\\n"
        "+\titem(SCHED_PUSH_NONE,\t\"none\")\t\\\n"
        "+\tlast(SCHED_PUSH_STUCK,\t\"stuck\")\n"
        "+#define SCHED_MIGRATE_REASONS(item, last)\t\\\n"
        "+\titem(SCHED_MIG_UNKNOWN,\t\"unknown\")\t\\\n"
        "+\tlast(SCHED_MIG_WAKEUP,\t\"wakeup\")\n")
    (tmp_path / "0002-b.patch").write_text(
        "@@ -1,4 +1,5 @@\n"
        " #define SCHED_PUSH_TRIGGERS(item, last)\t\\\n"
        "-\tlast(SCHED_PUSH_PUTBACK,\t\"putback\")\n"
        "+\titem(SCHED_PUSH_PUTBACK,\t\"putback\")\t\\\n"
        "+\tlast(SCHED_PUSH_TICK,\t\"tick\")\n"
        " \n"
        "@@ -20,3 +21,4 @@\n"
        "-\tlast(SCHED_MIG_WAKEUP,\t\"wakeup\")\n"
        "+\titem(SCHED_MIG_WAKEUP,\t\"wakeup\")\t\\\n"
        "+\tlast(SCHED_MIG_FAIR_PUSH,\t\"fair_push\")\n")
    names = {m: kernel_lists.names(m, str(tmp_path)) for m in
             ("SCHED_PUSH_TRIGGERS", "SCHED_PUSH_WHYS", "SCHED_MIGRATE_REASONS", "NONE")}
    assert names == {"SCHED_PUSH_TRIGGERS": ("putback", "tick"),
                     "SCHED_PUSH_WHYS": ("none", "stuck"),
                     "SCHED_MIGRATE_REASONS": ("unknown", "wakeup", "fair_push"), "NONE": ()}
