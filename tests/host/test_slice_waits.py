"""Waits past a custom slice and which a push could reach (easan/slice_waits.py), on a
synthetic run whose answers are worked out by hand."""
import numpy as np
import pandas as pd
import pytest

from easan import schedule
from easlab.synthetic_run import MS, Trace, make_run
from inprocess import metrics_of

PLATFORM = "e:1:600,p:1:1024"
C, D = 200, 201     # c: slice_us 300; d: no custom slice


def waits_run(tmp_path, name="waits", untraced=(), slice_keys=True):
    """c runs in the window 1000-1500 ms, slice 0.3 ms; the root domain is
    overutilized from 1200 to 1300 ms. c's waits (wakeup or preemption to switch-in):
      1010 woken, 0.1 ms: within its slice;
      1020 woken, 1 ms, past it at 1020.3, not overutilized: a push could reach it;
      1030 delayed requeue, 1 ms: past, delayed;
      1039.9 woken, 0.1 ms; then it runs 0.5 ms, preempted at 1040.5 (slice used),
        waits 1.5 ms: past, slice_used;
      1199.9 woken, 0.1 ms; runs 0.1 ms, preempted at 1200.1 (cut short), waits
        0.9 ms, past at 1200.4 while overutilized: not reachable;
      1349.9 woken, 0.1 ms; runs 0.1 ms, preempted at 1350.1 (cut short), waits
        0.9 ms, past at 1350.4, not overutilized: reachable.
    Nine waits, five past the slice (delayed 1, woken 1, slice_used 1, cut_short 2),
    two a push could reach: a share of 0.4. Past the slice: 0.7 + 0.7 + 1.2 + 0.6 + 0.6
    = 3.8 ms, 0.7 + 0.6 = 1.3 ms of it in the two a push could reach. d waits 5 ms and
    has no slice: not counted."""
    t = Trace()
    t.marker(1000, C, 0, "begin")
    t.marker(1500, C, 0, "end")
    t.marker(1000, D, 1, "begin")
    t.marker(1500, D, 1, "end")
    if "eas_overutilized" not in untraced:
        t.add("overutil", 1200, overutilized=1)
        t.add("overutil", 1300, overutilized=0)
    t.wakeup(1010, C, 0)
    t.run(0, C, 1010.1, 1010.5)
    t.wakeup(1020, C, 0)
    t.run(0, C, 1021, 1021.5)
    t.delayed(1030, C, 0)
    t.wakeup(1030, C, 0)
    t.run(0, C, 1031, 1031.5)
    t.wakeup(1039.9, C, 0)
    t.run(0, C, 1040, 1040.5, sleeping=False)
    t.run(0, C, 1042, 1042.5)
    t.wakeup(1199.9, C, 1)
    t.run(1, C, 1200, 1200.1, sleeping=False)
    t.run(1, C, 1201, 1201.5)
    t.wakeup(1349.9, C, 0)
    t.run(0, C, 1350, 1350.1, sleeping=False)
    t.run(0, C, 1351, 1351.2)
    t.wakeup(1100, D, 1)
    t.run(1, D, 1105, 1106)
    keys = {"c": {"slice_us": 300}} if slice_keys else None
    return make_run(str(tmp_path / name), t, {"c": 1, "d": 1}, PLATFORM, {},
                    comms={C: "c", D: "d"}, untraced=untraced, keys=keys)


def test_waits_past_the_slice_by_kind_and_reach(tmp_path):
    m = metrics_of(waits_run(tmp_path))
    w = m["slice_waits"]
    assert w == {"threads": 1, "waits": 9, "past_slice": 5,
                 "by_kind": {"delayed": 1, "woken": 1, "slice_used": 1, "cut_short": 2},
                 "pushable": 2, "pushable_share": 0.4,
                 "excess_ns": pytest.approx(3.8 * MS), "pushable_excess_ns": pytest.approx(1.3 * MS)}
    assert m["tasks"][str(C)]["slice_waits"]["pushable"] == 2
    assert "slice_waits" not in m["tasks"][str(D)]


def test_no_custom_slice_is_no_value(tmp_path):
    m = metrics_of(waits_run(tmp_path, "noslice", slice_keys=False))
    assert m["slice_waits"] is None
    assert "slice_waits" not in m["not_traced"]


def test_a_kernel_without_the_overutilized_event_is_not_traced(tmp_path):
    m = metrics_of(waits_run(tmp_path, "base", untraced=("eas_overutilized",)))
    assert m["slice_waits"] is None
    assert "slice_waits" in m["not_traced"]


def test_every_wait_past_the_slice_while_overutilized_is_out_of_reach(tmp_path):
    t = Trace()
    t.marker(1000, C, 0, "begin")
    t.marker(1100, C, 0, "end")
    t.add("overutil", 999, overutilized=1)
    t.wakeup(1010, C, 0)    # waits 2 ms, past its 0.3 ms slice
    t.run(0, C, 1012, 1012.5)
    run = make_run(str(tmp_path / "ou"), t, {"c": 1}, PLATFORM, {}, comms={C: "c"},
                   keys={"c": {"slice_us": 300}})
    w = metrics_of(run)["slice_waits"]
    assert (w["past_slice"], w["by_kind"]["woken"], w["pushable"]) == (1, 1, 0)
    assert w["pushable_share"] == 0.0


def test_waits_begin_at_a_wakeup_or_a_preemption_and_end_at_a_switch_in():
    """schedule.waits(), which slice_waits, fitness and the slice trigger's guest test
    share. c: woken at 10 ms, woken again at 10.5 while it waits (no new wait), in at
    11; runs 1 ms and is preempted at 12, in at 13 (ran 1 ms); sleeps at 14; woken new
    at 20, in at 20.5, preempted at 21 (ran 0.5 ms) and never back in the trace. d
    leaves CPU 1 runnable at 5 ms with no switch-in before it (ran unknown), in at 6;
    in again at 30, woken at 30.5 while it runs (a try_to_wake_up() before it got to
    schedule(): no wait), preempted at 31 (ran 1 ms), in at 32."""
    t = Trace()
    t.wakeup(10, C, 0)
    t.wakeup(10.5, C, 0)
    t.run(0, C, 11, 12, sleeping=False)
    t.run(0, C, 13, 14)
    t.wakeup(20, C, 0, kind="new")
    t.run(0, C, 20.5, 21, sleeping=False)
    t.switch(1, 5, D, 0, sleeping=False)
    t.switch(1, 6, 0, D)
    t.switch(1, 7, D, 0)
    t.switch(1, 30, 0, D)
    t.wakeup(30.5, D, 1)
    t.switch(1, 31, D, 0, sleeping=False)
    t.switch(1, 32, 0, D)
    tables = {k: pd.DataFrame(t.rows[k]) for k in ("wakeup", "switch")}
    w = schedule.waits(tables, C)
    assert list(w["began"]) == ["wakeup", "preempted", "new", "preempted"]
    assert list(w["start"]) == [10 * MS, 12 * MS, 20 * MS, 21 * MS]
    assert list(w["end"][:3]) == [11 * MS, 13 * MS, 20.5 * MS] and np.isnan(w["end"][3])
    assert np.isnan(w["ran"][0]) and np.isnan(w["ran"][2])
    assert (w["ran"][1], w["ran"][3]) == (1 * MS, 0.5 * MS)
    w = schedule.waits(tables, D)
    assert (list(w["start"]), list(w["end"]), list(w["began"])) == (
        [5 * MS, 31 * MS], [6 * MS, 32 * MS], ["preempted", "preempted"])
    assert np.isnan(w["ran"][0]) and w["ran"][1] == 1 * MS
