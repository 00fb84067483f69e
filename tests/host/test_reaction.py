"""Misfit reaction timed from the events (easan/reaction.py), on synthetic runs whose
numbers were worked out by hand.

Platform e:2:600,p:1:1024 (fit threshold of an E-core: util x 1.25 >= 600, i.e. util
>= 480). Thread r (pid 500, thread 0) starts phase 0 at 1000 and phase 1 at 1032
(rt-app writes a "begins loop" marker at every loop: those at 1016 and 1048 start no
phase). Thread p (pid 501, thread 1) is pinned to CPU0. Window [1000, 1200).

  1. r runs on E-core CPU0 from 1032; its util there reads 400 at 1040 (fits), 484 at
     1050.25 (crosses); misfit active balance moves it at 1050.5 and it runs on the
     P-core at 1050.25 + delay (0.5 ms by default): all inside one millisecond, which
     a 1 ms grid never sees.
  2. It sleeps 1070-1100 and wakes on CPU0; util_est 500 (util 300) at 1100 crosses
     again (max(util, util_est) is what the kernel tests); at 1106 util_est falls to 350
     and its next switch-in, on CPU0 at 1116, fits: no move, in place.
  3. At 1150 on E-core CPU1 its util reads 600; it never runs on a fitting CPU again:
     open.
  p's util 700 on CPU0 never makes it misfit: it may not move.
"""
import os

import pytest

from inprocess import metrics_of, read_text, report, rows_of
from easlab.synthetic_run import MS, Trace, make_run, write_em

E_EM, P_EM = (600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])


def reaction_run(tmp_path, name="r", delay=0.5):
    t = Trace()
    for ts, loop, phase in ((1000, 0, 0), (1016, 1, 0), (1032, 0, 1), (1048, 1, 1)):
        t.marker(ts, 500, 0, "begin", loop, phase)
    t.marker(1000, 501, 1, "begin")
    t.marker(1200, 500, 0, "end", 1, 1)
    t.run(0, 500, 1000, 1001)
    t.run(0, 500, 1016, 1017)
    t.switch(0, 1032, 0, 500)
    t.util(1040, 500, 0, 400)
    t.util(1050.25, 500, 0, 484)
    t.switch(0, 1050.25, 500, 0, sleeping=False)
    t.migrate(1050.5, 500, 0, 2, "active_misfit")
    t.switch(2, 1050.25 + delay, 0, 500)
    t.switch(2, 1070, 500, 0)
    t.migrate(1099, 500, 2, 0, "wakeup")
    t.wakeup(1099, 500, 0)
    t.util_est(1100, 500, 0, 500, 300)
    t.run(0, 500, 1100, 1106)
    t.util_est(1106, 500, 0, 350, 300)
    t.wakeup(1115, 500, 0)
    t.run(0, 500, 1116, 1120)
    t.migrate(1149, 500, 0, 1, "wakeup")
    t.util(1150, 500, 1, 600)
    t.run(1, 500, 1150, 1160)
    t.util(1180, 501, 0, 700)
    t.run(0, 501, 1180, 1190)
    d = make_run(str(tmp_path / name), t, {"r": 1, "p": 1}, "e:2:600,p:1:1024", {},
                 comms={500: "r", 501: "p"}, keys={"p": {"cpus": [0]}})
    write_em(d, [E_EM, E_EM, P_EM])
    return d


def test_episodes_from_events(tmp_path):
    m = metrics_of(reaction_run(tmp_path))
    assert m["tasks"]["500"]["reaction"] == [
        {"crossing_ns": int(1050.25 * MS), "cpu": 0, "util": 484.0, "outcome": "reacted",
         "end_ns": int(1050.75 * MS), "to_cpu": 2, "from_crossing_ns": int(0.5 * MS),
         "from_phase_start_ns": int(18.75 * MS)},
        {"crossing_ns": 1100 * MS, "cpu": 0, "util": 500.0, "outcome": "in_place",
         "end_ns": 1116 * MS, "to_cpu": 0, "from_crossing_ns": None, "from_phase_start_ns": None},
        {"crossing_ns": 1150 * MS, "cpu": 1, "util": 600.0, "outcome": "open", "end_ns": None,
         "to_cpu": None, "from_crossing_ns": None, "from_phase_start_ns": None}]
    assert m["tasks"]["501"]["reaction"] == []
    r = m["reaction"]
    assert (r["episodes"], r["reacted"], r["in_place"], r["open"]) == (3, 1, 1, 1)
    assert (r["from_crossing_ns"]["n"], r["from_crossing_ns"]["p50"],
            r["from_crossing_ns"]["p95"]) == (1, 0.5 * MS, 0.5 * MS)
    assert r["from_phase_start_ns"]["p50"] == 18.75 * MS
    assert [e["pid"] for e in r["list"]] == [500, 500, 500]
    # The stuck metric's 1 ms grid (eas_pelt_se alone: 484 from 1050.25) sees r misfit at
    # 1100-1106, 1116-1120 and 1150-1160, never around the crossing at 1050.25.
    assert m["tasks"]["500"]["stuck"]["misfit_ns"] == 20 * MS


def test_report_shows_reactions(tmp_path):
    d = reaction_run(tmp_path)
    metrics_of(d)
    text = read_text(os.path.join(d, "analysis", "report"), "report.md")
    assert ("| misfit reaction p50 / p95 (ms) | 0.50 / 0.50 from the fit crossing, 18.75 / 18.75 "
            "from the phase start (1 of 3 misfit episodes moved up, 1 fitted again in place, "
            "1 open) |") in text
    assert "| 0 (pid 500) | r | " in text and " | 0.50 | " in text


def test_ab_pools_the_episodes_of_a_group(tmp_path):
    # A: one run, 0.5 ms; B: three runs, 0.5, 4.5 and 8.5 ms from the crossing. Over B's
    # three episodes the ("lower") p50 and p95 are both the middle one, 4.5 ms.
    a = reaction_run(tmp_path, "a")
    b = [reaction_run(tmp_path, f"b{i}", delay) for i, delay in enumerate((0.5, 4.5, 8.5))]
    out = tmp_path / "ab"
    report(str(out), [a], b)
    rows = rows_of(out)
    for pct in (50, 95):
        row = rows[f"misfit reaction from fit crossing p{pct}"]
        assert (row["a"], row["n_a"], row["b"], row["n_b"], row["delta"]) == \
            (pytest.approx(0.5), 1, pytest.approx(4.5), 3, pytest.approx(4.0))
        row = rows[f"misfit reaction from phase start p{pct}"]
        assert (row["a"], row["b"]) == (pytest.approx(18.75), pytest.approx(22.75))
