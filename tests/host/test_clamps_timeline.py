"""Clamps over time: a uclamp_change counts from the moment it took effect, in the clamp
timeline of a run (runfolder.Run.clamp_timeline, uclamp_at) and in every metric that
spans time (energy, stuck, misfit reaction, capped tasks); on synthetic runs whose
numbers were worked out by hand.

Platform e:2:600,p:1:1024: CPUs 0-1 E-cores, CPU 2 the P-core (fit threshold of an
E-core: util x 1.25 >= 600, i.e. util >= 480). One profile thread, pid 400 (thread 0),
whose window is [1000, 1200) ms. Its clamps change by the shim's helper thread (pid 450),
which writes "eas-sched-attrs: pid=400 util_min=... util_max=..." right after the change
took effect (guest/vm/helpers/eas-sched-attrs.c); the thread itself writes its first
attributes, without "pid=", before its first event. Kernel thread 7 runs on CPUs 1 and 2
at 990-995, so that they are known idle afterwards.
"""
import pytest

from inprocess import metrics_of, read_text
from easlab.synthetic_run import MS, Trace, make_run, write_em
from easan import runfolder

E_EM, P_EM = (600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])
PID, HELPER = 400, 450
LOWERED = {"uclamp_change": {"after_ms": 100, "util_max": 100}}


def clamp_run(tmp_path, name, events, keys=LOWERED):
    """A run of thread 400 (task "l" with keys) whose events(t) the test adds."""
    t = Trace()
    t.run(1, 7, 990, 995)
    t.run(2, 7, 990, 995)
    t.marker(1000, PID, 0, "begin")
    t.marker(1200, PID, 0, "end")
    events(t)
    d = make_run(str(tmp_path / name), t, {"l": 1}, "e:2:600,p:1:1024", {},
                 comms={7: "kworker", PID: "l", HELPER: "eas-attrs"}, keys={"l": keys})
    write_em(d, [E_EM, E_EM, P_EM])
    return d


def on_the_p_core(t):
    """400 runs on the P-core through the window; its own marker at 999.5, its util_max
    lowered to 100 at 1090 (not 1100, after_ms after it: the helper's sleep ran long)."""
    t.sched_attrs(999.5, PID, 0, 1024, cpu=2)
    t.run(2, PID, 1000, 1200)
    t.sched_attrs(1090, PID, 0, 100, helper=HELPER)


@pytest.mark.parametrize("markers, change_ms", [
    # The helper's marker: from its time.
    ("both", 1090),
    # No helper marker (lost): after_ms after the thread's own marker...
    ("own", 1099.5),
    # ... else after its first rt-app marker (the shim applies the first attributes
    # right before the thread's first event).
    ("none", 1100),
    # The thread ended before its change ("pid=400 gone"): no change.
    ("gone", None),
])
def test_clamp_timeline(tmp_path, markers, change_ms):
    def events(t):
        t.run(2, PID, 1000, 1200)
        if markers in ("both", "own", "gone"):
            t.sched_attrs(999.5, PID, 0, 1024, cpu=2)
        if markers == "both":
            t.sched_attrs(1090, PID, 0, 100, helper=HELPER)
        if markers == "gone":
            t.sched_attrs(1190, PID, None, None, helper=HELPER)
    run = runfolder.load(clamp_run(tmp_path, markers, events))
    assert run.uclamp(PID) == (0, 1024)
    ts, lo, hi = run.clamp_timeline[PID]
    if change_ms is None:
        assert (ts.tolist(), lo.tolist(), hi.tolist()) == ([runfolder.SINCE_EVER], [0], [1024])
        assert run.capped_pids == set() and run.capped_spans(PID) == []
        return
    # The thread's own marker repeats its first clamps: no entry.
    change = int(change_ms * MS)
    assert (ts.tolist(), lo.tolist(), hi.tolist()) == \
        ([runfolder.SINCE_EVER, change], [0, 0], [1024, 100])
    assert run.uclamp_at(PID, change - 1) == (0, 1024)
    assert run.uclamp_at(PID, change) == (0, 100)
    low, high = run.uclamp_over(PID, [1000 * MS, change, 1199 * MS])
    assert (low.tolist(), high.tolist()) == ([0, 0, 0], [1024, 100, 100])
    assert run.capped_pids == {PID}
    assert run.capped_spans(PID) == [(change, runfolder.UNTIL_EVER)]


def test_energy_follows_the_change(tmp_path):
    # Buckets [1000, 1100) and [1100, 1200), 1024 units each on the P-core (no faithful
    # speed); each bucket takes the clamp at its middle: 1050 uncapped, 1150 util_max 100.
    # as placed: 1: the P-core's top point, 2000 mW; 2: its 0.4 point covers the clamp,
    #            1024/409.6 x 462.08 = 1155.2 (read as unclamped all run: 2000 + 2000).
    # search:    1: 2000 (an E-core would overcommit); 2: the capped work on an E-core at
    #            its 0.4 point, 1024/240 x 148.9125 = 635.36.
    # bound:     clamps left out, 888.6875 in each (tests/host/test_push_capped.py).
    e = metrics_of(clamp_run(tmp_path, "energy", on_the_p_core))["energy"]
    assert [row[1:] for row in e["series"]] == [
        [pytest.approx(x) for x in row] for row in ((2000.0, 2000.0, 888.6875),
                                                    (1155.2, 635.36, 888.6875))]
    assert e["estimated_mj"] == pytest.approx(315.52, rel=1e-6)
    assert e["oracle_mj"] == pytest.approx(263.536, rel=1e-6)


def test_stuck_follows_the_change(tmp_path):
    # 400 runs on E-core CPU0 through the window, util 550 (misfit there: 687.5 >= 600)
    # while the P-core idles, until its util_max drops to 100 at 1100: misfit and stuck on
    # the 1 ms grid 1000-1099, 100 ms (read as unclamped all run: 200 ms).
    def events(t):
        t.util(1000, PID, 0, 550)
        t.run(0, PID, 1000, 1200)
        t.sched_attrs(1100, PID, 0, 100, helper=HELPER)
    s = metrics_of(clamp_run(tmp_path, "stuck", events))["tasks"][str(PID)]["stuck"]
    assert (s["misfit_ns"], s["misfit_stuck_ns"], s["stuck_ns"], s["longest_stuck_ns"]) == \
        (100 * MS, 100 * MS, 100 * MS, 100 * MS)


def test_reaction_from_a_raised_util_min(tmp_path):
    # 400 runs on E-core CPU0 from 1000 with util 400 (fits); at 1050 its util_min rises
    # to 500: the crossing is the change itself (util 400 clamped to 500, 625 >= 600).
    # Misfit balance moves it: out of CPU0 at 1052, in on the P-core at 1053: a reaction
    # 3 ms after the crossing, 53 ms after its phase began at 1000. (Read with the
    # profile's first clamps all run: no episode.)
    def events(t):
        t.switch(0, 1000, 0, PID)
        t.util(1010, PID, 0, 400)
        t.util(1020, PID, 0, 400)
        t.sched_attrs(1050, PID, 500, 1024, helper=HELPER)
        t.switch(0, 1052, PID, 0, sleeping=False)
        t.migrate(1052.5, PID, 0, 2, "active_misfit")
        t.switch(2, 1053, 0, PID)
        t.switch(2, 1200, PID, 0)
    d = clamp_run(tmp_path, "reaction", events,
                  keys={"uclamp_change": {"after_ms": 50, "util_min": 500}})
    m = metrics_of(d)
    assert m["tasks"][str(PID)]["reaction"] == [
        {"crossing_ns": 1050 * MS, "cpu": 0, "util": 500.0, "outcome": "reacted",
         "end_ns": 1053 * MS, "to_cpu": 2, "from_crossing_ns": 3 * MS,
         "from_phase_start_ns": 53 * MS}]


def test_p_core_time_before_the_first_move_leaves_out_a_bounce(tmp_path):
    # 400 runs on the P-core 1000-1120, its util_max lowered to 100 at 1100; a setattr
    # push moves it to E-core CPU0 (1120-1150), newidle balance pulls it back to the
    # P-core (1150-1180), a tick's push moves it to CPU0 again (1180-1200). Capped from
    # 1100: 100 ms of run time; on the P-core 20 (1100-1120) + 30 (1150-1180) = 50 ms;
    # before its first run off the P-core, which began at 1120: 20 ms.
    def events(t):
        t.switch(2, 1000, 0, PID)
        t.sched_attrs(1100, PID, 0, 100, helper=HELPER)
        t.switch(2, 1120, PID, 0, sleeping=False)
        t.migrate(1120, PID, 2, 0, "fair_push_setattr")
        t.switch(0, 1120, 0, PID)
        t.switch(0, 1150, PID, 0, sleeping=False)
        t.migrate(1150, PID, 0, 2, "lb_newidle")
        t.switch(2, 1150, 0, PID)
        t.switch(2, 1180, PID, 0, sleeping=False)
        t.migrate(1180, PID, 2, 0, "fair_push_tick")
        t.switch(0, 1180, 0, PID)
        t.switch(0, 1200, PID, 0)
    c = metrics_of(clamp_run(tmp_path, "bounce", events))["capped"]
    assert (c["run_ns"], c["p_ns"], c["p_first_ns"]) == (100 * MS, 50 * MS, 20 * MS)


def test_capped_figures_count_from_the_change(tmp_path):
    # 400 runs on the P-core 1000-1160, its util_max lowered to 100 at 1100; a push moves
    # it to E-core CPU0, where it runs 1160-1200. Capped from 1100: 100 ms of run time, 60
    # on the P-core (60 %); settled from 50 ms after it was both running and capped,
    # 1150: 50 ms, 10 on the P-core (20 %). Alone: never piled. (Read from the profile's
    # keys, which hold no util_max, it was no capped task at all.)
    def events(t):
        t.switch(2, 1000, 0, PID)
        t.sched_attrs(1100, PID, 0, 100, helper=HELPER)
        t.switch(2, 1160, PID, 0, sleeping=False)
        t.migrate(1160, PID, 2, 0, "fair_push_tick")
        t.switch(0, 1160, 0, PID)
        t.switch(0, 1200, PID, 0)
    d = clamp_run(tmp_path, "capped", events)
    m = metrics_of(d)
    c = m["capped"]
    assert (c["threads"], c["util_max"], c["settle_ns"]) == (1, [100], 50 * MS)
    assert (c["run_ns"], c["p_ns"], c["run_settled_ns"], c["p_settled_ns"]) == \
        (100 * MS, 60 * MS, 50 * MS, 10 * MS)
    assert (c["p_share"], c["p_share_settled"]) == (pytest.approx(0.6), pytest.approx(0.2))
    assert (c["stacked_ns"], c["stacked_settled_ns"]) == (0, 0)
    assert m["tasks"][str(PID)]["capped"]["p_share"] == pytest.approx(0.6)
    # Moved off once and never back: all 60 ms on the P-core came before the first move.
    assert c["p_first_ns"] == 60 * MS
    text = read_text(f"{d}/analysis/report", "report.md")
    assert "Capped tasks (1 threads with util_max 100): 60.0% of their run time on P-cores, " \
           "20.0% from 50 ms after each one's first run" in text
