"""faithful_stats copies, splitting make bench-speed's logs by CPU block and option state,
and the speed diagnostic (rt-app's perf/run, never a verdict: the fidelity check is the
host's steal, tests/host/test_host_steal.py) with and without capacity-faithful speed."""

import pytest

from easan.fidelity import (alternating_blocks, option_state, read_faithful_stats, read_flips,
                            summary, work)


# /sys/kernel/debug/hybrid_sim/faithful_stats with the option on: E-cores 0-3 (CPU 3
# idle since boot), P-cores 4-5 listed with nothing given and no timer.
SIX = ("0 100000 41400 97 600 running\n3 2500 1000 4 600 idle\n"
       "4 0 0 0 1024 full\n5 0 0 0 1024 full\n")


def test_reads_each_cpu_line(tmp_path):
    path = tmp_path / "faithful_stats.txt"
    path.write_text(SIX, encoding="ascii")
    stats = read_faithful_stats(path)
    assert stats == {0: (100000, 41400, 97, 600, "running"), 3: (2500, 1000, 4, 600, "idle"),
                     4: (0, 0, 0, 1024, "full"), 5: (0, 0, 0, 1024, "full")}
    assert stats[0].given_us == 41400 and stats[0].ticks == 97
    assert stats[5].timer == "full" and stats[5].capacity == 1024


def test_reads_a_cpu_waiting_for_high_resolution_mode(tmp_path):
    # A CPU whose timer could not start yet (at boot before the clocksource is
    # verified, or just after onlining) is retried and listed as waiting.
    path = tmp_path / "faithful_stats.txt"
    path.write_text("0 100000 41400 97 600 running\n2 0 0 0 600 waiting\n", encoding="ascii")
    assert read_faithful_stats(path)[2] == (0, 0, 0, 600, "waiting")


def test_reads_the_older_four_columns(tmp_path):
    # Run folders from before the file moved to debugfs: totals only.
    path = tmp_path / "faithful_stats.txt"
    path.write_text("0 100000 41400 97\n3 2500 1000 4\n", encoding="ascii")
    stats = read_faithful_stats(path)
    assert stats == {0: (100000, 41400, 97, None, None), 3: (2500, 1000, 4, None, None)}
    assert stats[0][:3] == (100000, 41400, 97)


@pytest.mark.parametrize("first, text", [
    ("0 1 1 1\n", "0 100000 41400\n"),
    ("0 1 1 1\n", "1 100000 -5 3\n"),
    ("0 1 1 1\n", "cpu0 1 2 3\n"),
    ("0 1 1 1 600 idle\n", "1 2 3 4 600 parked\n"),     # unknown timer state
    ("0 1 1 1 600 idle\n", "1 2 3 4 -1 idle\n"),
    ("0 1 1 1 600 idle\n", "1 2 3 4 600\n"),
    ("0 1 1 1 600 idle\n", "1 2 3 4 600 idle extra\n"),
    ("0 1 1 1 600 idle\n", "1 2 3 4\n"),                # formats mixed in one file
    ("0 1 1 1\n", "1 2 3 4 600 idle\n"),
])
def test_malformed_line_names_the_file_and_line(tmp_path, first, text):
    path = tmp_path / "faithful_stats.txt"
    path.write_text(first + text, encoding="ascii")
    with pytest.raises(ValueError) as e:
        read_faithful_stats(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}:2: not 'CPU BUSY_US GIVEN_US TICKS CAPACITY TIMER' "
                          "(or the older 'CPU BUSY_US GIVEN_US TICKS'): "), msg
    assert "\n" not in msg


@pytest.mark.parametrize("four", [False, True])
def test_bench_speed_reads_the_given_share_from_either_format(tmp_path, four):
    """make bench-speed's E-core (CPU 1) share given away between two copies."""
    from easlab import bench_speed  # pylint: disable=import-outside-toplevel

    before, after = "1 1000 400 1 600 running\n", "1 101000 41800 101 600 idle\n"
    if four:
        before, after = "1 1000 400 1\n", "1 101000 41800 101\n"
    (tmp_path / "faithful-stats-before.txt").write_text(before + "5 0 0 0 1024 full\n" * (not four))
    (tmp_path / "faithful-stats-after.txt").write_text(after + "5 0 0 0 1024 full\n" * (not four))
    given, per_ms = bench_speed.given_share(str(tmp_path))
    assert given == pytest.approx(0.414)
    assert per_ms == pytest.approx(1.0)


def test_alternating_blocks_splits_and_skips_each_move():
    # Blocks of 3: A A A B B B A A; the first run of each block dropped.
    values = [100, 11, 12, 200, 21, 22, 300, 13]
    assert alternating_blocks(values, 3) == ([11, 12, 13], [21, 22])
    assert alternating_blocks(values, 3, skip=0) == ([100, 11, 12, 300, 13], [200, 21, 22])


@pytest.mark.parametrize("block, skip", [(0, 0), (3, 3), (2, -1)])
def test_alternating_blocks_rejects_a_bad_split(block, skip):
    with pytest.raises(ValueError, match="need block >= 1"):
        alternating_blocks([1, 2, 3], block, skip)


def test_flips_are_read_in_microseconds(tmp_path):
    path = tmp_path / "flips.txt"
    path.write_text("2.19 2.23 1\n2.74 2.74 0\n", encoding="ascii")
    assert read_flips(path) == [(2190000, 2230000, 1), (2740000, 2740000, 0)]


@pytest.mark.parametrize("line", ["2.19 2.23\n", "2.19 2.23 2\n", "2.30 2.20 1\n", "x 2.2 1\n"])
def test_malformed_flip_names_the_file_and_line(tmp_path, line):
    path = tmp_path / "flips.txt"
    path.write_text("1.00 1.01 1\n" + line, encoding="ascii")
    with pytest.raises(ValueError, match=r"flips.txt:2: not 'UPTIME_BEFORE"):
        read_flips(path)


# On at 1.00-1.02 s, off at 1.50-1.51 s; the guard is 30 ms.
FLIPS = [(1000000, 1020000, 1), (1500000, 1510000, 0)]


@pytest.mark.parametrize("start, end, want", [
    (1100000, 1102000, 1),     # well inside the on window
    (1049000, 1051000, None),  # starts 29 ms after the switch ended: inside the guard
    (1050000, 1052000, 1),     # 30 ms after: clear
    (1468000, 1471000, None),  # ends 29 ms before the off switch began
    (1600000, 1602000, 0),     # after the off switch
    (900000, 902000, None),    # before the first switch: unknown
])
def test_option_state_of_a_run(start, end, want):
    assert option_state(FLIPS, start, end) == want


# Rows (cpu, start, loops/us): E-cores 0-1 at 600/1024 of P-core 2's 2 loops/us.
FAITHFUL = {0: 600 / 1024, 1: 600 / 1024, 2: 1.0}
SLOW_E = [(c, 0, 1.171875 if c < 2 else 2.0) for c in (0, 1, 2) for _ in range(3)]


def test_slow_e_cores_are_what_faithful_speed_expects():
    assert summary(SLOW_E, 3, FAITHFUL)["uneven"] is False
    # Without the option the same speeds are uneven (a diagnostic, not a verdict).
    f = summary(SLOW_E, 3)
    assert f["uneven"] is True and "distorted" not in f
    assert f["note"] == "CPU 0 ran at 59% of the fastest; CPU 1 ran at 59% of the fastest"


def test_e_cores_as_fast_as_p_cores_fail_faithful_speed():
    rows = [(c, 0, 2.0) for c in (0, 1, 2) for _ in range(3)]
    f = summary(rows, 3, FAITHFUL)
    # The P-core delivered 2 of the 2 / 0.586 its capacity promises next to them.
    assert f["note"] == "CPU 2 ran at 59% of the fastest, for its capacity"
    assert summary(rows, 3)["uneven"] is False


def test_a_cpu_seen_twice_is_not_judged():
    rows = [(c, 0, 2.0) for c in (0, 1) for _ in range(10)] + [(2, 0, 0.5)] * 2
    f = summary(rows, 3)
    assert f["uneven"] is False
    assert f["per_cpu"] == {0: 2.0, 1: 2.0, 2: 0.5}


# Rows (cpu, start, loops/us, c_duration / run) for the work diagnostic.
def test_work_is_the_calibrated_run_time_over_the_time_taken():
    # A host at half the calibration's speed: every 3 ms run took 6 ms.
    half = [(2, 0, 1.0, 0.5)] * 5
    w = work(half)
    assert (w["median"], w["activations"], w["off_band"]) == (0.5, 5, True)
    assert "delivered 50% of their calibrated work" in w["reason"]
    # Capacity-faithful E-cores take 1024/600 of the time: what they promise.
    e = [(0, 0, 1.171875, 600 / 1024)] * 4 + [(2, 0, 2.0, 1.0)] * 3
    w = work(e, FAITHFUL)
    assert w["median"] == pytest.approx(1.0) and w["off_band"] is False
    # Without the option the same E-cores delivered 59 %: the median of seven.
    assert work(e)["median"] == pytest.approx(600 / 1024)


def test_work_band_edges_and_too_few_activations():
    assert work([(2, 0, 2.0, 0.75)] * 5)["off_band"] is False
    assert work([(2, 0, 2.0, 0.74)] * 5)["off_band"] is True
    assert work([(2, 0, 2.0, 4 / 3)] * 5)["off_band"] is False
    assert work([(2, 0, 2.0, 1.34)] * 5)["off_band"] is True
    w = work([(2, 0, 2.0, 0.5)] * 4 + [(2, 0, 2.0)] * 3)
    assert (w["median"], w["activations"], w["off_band"]) == (None, 4, None)
    assert w["reason"] == "4 clean run activations, too few to judge the work delivered"
