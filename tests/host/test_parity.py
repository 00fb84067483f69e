"""PARITY_MIN_SLICE's cuts of a protected slice (easan/parity.py), on a synthetic run
whose answers are worked out by hand."""
from easlab.synthetic_run import MS, Trace, make_run
from inprocess import metrics_of

PLATFORM = "e:1:600,p:1:1024"


def cut(t, at, cpu, pid, ran_ms, slice_ms=2.8, min_slice_ms=0.3):
    t.add("parity_cut", at, cpu=cpu, pid=pid, slice=int(slice_ms * MS),
          ran=int(ran_ms * MS), min_slice=int(min_slice_ms * MS))


def parity_run(tmp_path, name="parity", untraced=()):
    """Thread c (pid 200) from 1000 to 1500 ms, the window. Cuts:
      1001 ms, CPU 0, 201 after 0.3 ms: on time, 0 late;
      1100 ms, CPU 1, 202 after 1.3 ms: noticed at a tick, 1 ms late;
      1200 ms, CPU 0, 201 after 0.8 ms: 0.5 ms late;
      1600 ms, CPU 0, 201: after the window, not counted.
    Three cuts in 0.5 s: 6 a second; lateness 0, 1 and 0.5 ms: median 0.5 ms."""
    t = Trace()
    t.marker(1000, 200, 0, "begin")
    t.marker(1500, 200, 0, "end")
    t.wakeup(1000, 200, 0, "new")
    t.run(0, 200, 1000, 1000.5)
    t.run(1, 200, 1499, 1500.5)
    if "eas_parity_cut" not in untraced:
        cut(t, 1001, 0, 201, 0.3)
        cut(t, 1100, 1, 202, 1.3)
        cut(t, 1200, 0, 201, 0.8)
        cut(t, 1600, 0, 201, 0.3)
    return make_run(str(tmp_path / name), t, {"c": 1}, PLATFORM, {},
                    comms={200: "c", 201: "x", 202: "y"}, untraced=untraced)


def test_cuts_and_how_late(tmp_path):
    c = metrics_of(parity_run(tmp_path))["parity_cut"]
    assert c["cuts"] == 3
    assert c["per_s"] == 6.0
    assert c["late_p50_ns"] == 0.5 * MS


def test_no_cut_in_the_window_is_a_zero_not_a_missing_value(tmp_path):
    t = Trace()
    t.marker(1000, 200, 0, "begin")
    t.marker(1500, 200, 0, "end")
    t.wakeup(1000, 200, 0, "new")
    t.run(0, 200, 1000, 1500.5)
    cut(t, 1600, 0, 201, 0.3)
    run = make_run(str(tmp_path / "late"), t, {"c": 1}, PLATFORM, {}, comms={200: "c", 201: "x"})
    c = metrics_of(run)["parity_cut"]
    assert c == {"cuts": 0, "per_s": 0.0, "late_p50_ns": None}


def test_a_kernel_without_the_event_is_not_traced(tmp_path):
    m = metrics_of(parity_run(tmp_path, "base", untraced=("eas_parity_cut",)))
    assert m["parity_cut"] is None
    assert "parity_cut" in m["not_traced"]
