"""Pooling replays' ratios: hand-computed cases for the delta method and the random-effects pool.

Student's t quantiles are scipy's (stats.t_quantile): t(1) = 12.7062047, t(2) = 4.3026527
(the three-digit table the pool used before gave 12.706 and 4.303)."""
import math

import pytest

from easan.pooling import pooled, ratio_of_means


def test_ratio_of_means_and_its_error():
    # 2 / 2; relative variance 2 / (2 x 2^2) = 0.25 from the numerator, 0 from the denominator.
    assert ratio_of_means([1, 3], [2, 2, 2, 2]) == pytest.approx((1.0, 0.5))


def test_ratio_needs_two_values_a_side():
    with pytest.raises(ValueError, match="two values"):
        ratio_of_means([1], [2, 2])


def test_quiet_replay_weighs_more():
    # Weights 100 and 25: (100 x 1.0 + 25 x 1.1) / 125 = 1.02. Q = 0.04 + 0.16 = 0.2 < 1,
    # so no spread between replays; half-width t(1) / sqrt(125) = 12.7062047 / 11.180340.
    mean, ci, tau = pooled([(1.0, 0.1), (1.1, 0.2)])
    assert (mean, ci, tau) == pytest.approx((1.02, 1.136478, 0.0), abs=1e-6)


def test_replays_that_disagree_widen_the_interval():
    # Fixed mean 1.1, Q = 2 on 1 df, sum w - sum w^2 / sum w = 100: tau^2 = 0.01.
    # Weights 1 / (0.01 + 0.01) = 50 each: half-width 12.7062047 / 10.
    mean, ci, tau = pooled([(1.0, 0.1), (1.2, 0.1)])
    assert (mean, ci, tau) == pytest.approx((1.1, 1.270620, 0.1), abs=1e-6)


def test_agreeing_replays_keep_their_precision():
    # Weights 100, 100, 25: half-width t(2) / sqrt(225) = 4.3026527 / 15.
    mean, ci, tau = pooled([(1.0, 0.1), (1.0, 0.1), (1.0, 0.2)])
    assert (mean, ci, tau) == pytest.approx((1.0, 0.286844, 0.0), abs=1e-6)


def test_nothing_to_pool():
    assert all(math.isnan(x) for x in pooled([]))
    assert math.isnan(pooled([(1.0, 0.1)])[1])
