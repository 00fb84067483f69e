"""HRTICK_SHORTER's arms and how far past its slice's end each running task kept its CPU
(easan/hrtick.py), on a synthetic run whose answers are worked out by hand."""
import os

from easlab.synthetic_run import MS, Trace, make_run
from easan import hrtick, tables
from inprocess import metrics_of

PLATFORM = "e:1:600,p:1:1024"


def arm(t, at, cpu, pid, slice_ms, delay_ms, min_slice_ms=0.3):
    t.add("hrtick_shorter", at, cpu=cpu, pid=pid, slice=int(slice_ms * MS),
          delay=int(delay_ms * MS), min_slice=int(min_slice_ms * MS))


def hrtick_run(tmp_path, name="hrtick", untraced=()):
    """Thread c (pid 200) from 1000 to 1500 ms, the window. Arms:
      1001 ms, CPU 0, 200: its 3 ms slice ends 2.5 ms later, at 1003.5; 200 leaves
            CPU 0 at 1004.5: 1 ms past the end;
      1100.2 ms, CPU 1, 202: ends 2.8 ms later, at 1103; 202 leaves at 1101, 2 ms
            before (it slept);
      1200 ms, CPU 1, 203: the next switch there (1200.5) switches in 202 from idle,
            and the one after takes 202 out, not 203: no overrun;
      1300 ms, CPU 0, 204, at its pick: the switch at 1300.01 brings it in, the one at
            1303 takes it out; its slice ends 1.5 ms after the arm: 1.5 ms past it;
      1600 ms, CPU 0, 200: after the window, not counted.
    Four arms in 0.5 s: 8 a second; overruns 1, -2 and 1.5 ms: median 1, at most 1.5."""
    t = Trace()
    t.marker(1000, 200, 0, "begin")
    t.marker(1500, 200, 0, "end")
    t.wakeup(1000, 200, 0, "new")
    t.run(0, 200, 1000, 1004.5)
    t.run(1, 202, 1100, 1101)
    t.run(1, 202, 1200.5, 1201)
    t.run(0, 204, 1300.01, 1303)
    t.run(0, 200, 1599, 1600.5)
    if "eas_hrtick_shorter" not in untraced:
        arm(t, 1001, 0, 200, 3, 2.5)
        arm(t, 1100.2, 1, 202, 3, 2.8)
        arm(t, 1200, 1, 203, 3, 3)
        arm(t, 1300, 0, 204, 1.5, 1.5)
        arm(t, 1600, 0, 200, 3, 3)
    return make_run(str(tmp_path / name), t, {"c": 1}, PLATFORM, {},
                    comms={200: "c", 202: "x", 203: "y", 204: "z"}, untraced=untraced)


def test_arms_and_overruns(tmp_path):
    h = metrics_of(hrtick_run(tmp_path))["hrtick_shorter"]
    assert h["arms"] == 4
    assert h["per_s"] == 8.0
    assert h["overrun_p50_ns"] == 1 * MS
    assert h["overrun_max_ns"] == 1.5 * MS


def test_an_arm_whose_task_is_not_switched_out_next_has_no_overrun(tmp_path):
    t = tables.load(os.path.join(hrtick_run(tmp_path), "analysis", "tables"))
    arms = t["hrtick_shorter"]
    assert hrtick.overruns(arms[arms["pid"] == 203], t["switch"]) == []


def test_a_kernel_without_the_event_is_not_traced(tmp_path):
    m = metrics_of(hrtick_run(tmp_path, "base", untraced=("eas_hrtick_shorter",)))
    assert m["hrtick_shorter"] is None
    assert "hrtick_shorter" in m["not_traced"]
