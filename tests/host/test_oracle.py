"""The oracle's placement rules, on hand-computed cases (platform e:2:600,p:1:1024)."""

import pytest

from easan import energy, platform, power_model

PLAT = platform.parse("e:2:600,p:1:1024")


def test_power_model_points():
    # 1100 x 600/1024 x 0.6 x 0.84^2 and 2000 x 0.4 x 0.76^2
    assert power_model.opp_power("e", 600, 0.6) == pytest.approx(272.86875)
    assert power_model.opp_power("p", 1024, 0.4) == pytest.approx(462.08)
    # 300 units on an E-core: the 360 point, busy 5/6 of the time.
    assert power_model.cpu_power("e", 600, 300) == (pytest.approx(227.390625), False)
    # Overcommitted: full speed for 1024/600 of the time.
    assert power_model.cpu_power("e", 600, 1024) == (pytest.approx(1100.0), True)


def test_small_task_goes_to_an_e_core():
    assert energy.oracle_power(PLAT, [300]) == pytest.approx(227.390625)


def test_affinity_is_respected():
    # Allowed on the P-core only: 300 / 409.6 busy at 462.08 mW.
    assert energy.oracle_power(PLAT, [300], [frozenset({2})]) == pytest.approx(338.4375)


def test_two_small_tasks_spread_over_e_cores():
    # Together (600) they would need the E-core's top point; apart each uses 360.
    assert energy.oracle_power(PLAT, [300, 300]) == pytest.approx(2 * 227.390625)


def test_nothing_fits_overcommits_least():
    # Three hogs, one P-core: one on the P-core, one on each E-core (least excess),
    # not all three on the cheap E-cores.
    assert energy.oracle_power(PLAT, [1024, 1024, 1024]) == pytest.approx(2000 + 2 * 1100)


def test_clamped_power_points():
    # A capped CPU-bound thread, 1024 units of work at util_max 100: the lowest point
    # covers 100 on either type. P-core: 1024/409.6 x 462.08; E-core: 1024/240 x P_E(0.4).
    assert power_model.cpu_power("p", 1024, 1024, (0, 100)) == (pytest.approx(1155.2), False)
    assert power_model.cpu_power("e", 600, 1024, (0, 100)) == (pytest.approx(635.36), False)
    # util_min 500 lifts 300 units to the E-core's top point: 300/600 x 644.53125.
    assert power_model.cpu_power("e", 600, 300, (500, 1024)) == (pytest.approx(322.265625), False)
    # util_min wins over a util_max below it, as in uclamp_rq_util_with().
    assert [power_model.request(d, c) for d, c in ((50, (300, 200)), (1000, (0, 1024)),
                                                   (50, (0, 100)), (700, (0, 100)))] == \
        [300, 1000, 50, 100]


def test_oracle_prices_clamps():
    # The capped thread alone on an E-core (with the uncapped one its clamp would go and
    # the CPU overcommit), the other on the second E-core: 635.36 + 227.390625.
    assert energy.oracle_power(PLAT, [1024, 300], clamps=[(0, 100), (0, 1024)]) == \
        pytest.approx(862.750625)
    # Two capped threads: their work costs the same at the E-cores' lowest point, together
    # or apart.
    assert energy.oracle_power(PLAT, [1024, 1024], clamps=[(0, 100)] * 2) == \
        pytest.approx(2 * 635.36)
