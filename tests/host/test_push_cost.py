"""What the push costs, from the trace: decisions per move and per second, the
decisions' own CPU time (eas_push's cost_ns) against the busy CPU time (push.py), and
how often each CPU ran its stopper (stopper.py), on synthetic runs whose answers are
worked out by hand."""
import os

import pytest

from easlab.synthetic_run import (GUEST_EVENTS, MS, Trace, TraceDat, make_run, write_em,
                                  write_run_files)
from easan import tables
from inprocess import metrics_of, read_json, read_text, report, rows_of

PLATFORM = "e:1:600,p:1:1024"
EM = [(600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])]
STOPPER_E, STOPPER_P, KWORKER = 900, 901, 902


def cost_run(tmp_path, moves=1):
    """One capped thread (pid 200) from 1000 to 1500 ms: six decisions, `moves` of them
    pushed; CPU 1's stopper runs three times in the window and once after it, CPU 0's
    once; a kworker (not a stopper) runs on CPU 0."""
    t = Trace()
    t.marker(1000, 200, 0, "begin")
    t.marker(1500, 200, 0, "end")
    t.wakeup(1000, 200, 1, "new")
    t.run(1, 200, 1000, 1500)
    for i, at in enumerate((1010, 1100, 1200, 1300, 1400, 1450)):
        pushed = i < moves
        t.push(at, 200, 1, 0 if pushed else -1, "tick", "stuck_uclamp",
               "pushed" if pushed else "no_better_cpu", 1024, 1024, 100)
    for i in range(moves):
        t.migrate(1011 + i, 200, 1, 0, "fair_push_tick")
    for at in (1050, 1150, 1250):
        t.run(1, STOPPER_P, at, at + 0.01)
    t.run(1, STOPPER_P, 1600, 1600.01)
    t.run(0, STOPPER_E, 1300, 1300.01)
    t.run(0, KWORKER, 1350, 1351)
    d = make_run(str(tmp_path / f"cost{moves}"), t, {"c": 1}, PLATFORM, {},
                 comms={200: "c", STOPPER_E: "migration/0", STOPPER_P: "migration/1",
                        KWORKER: "kworker/0:1"},
                 keys={"c": {"util_max": 100}})
    write_em(d, EM)
    return d


def test_decisions_per_move_and_per_second(tmp_path):
    m = metrics_of(cost_run(tmp_path, moves=2))
    # Six decisions over the 0.5 s window for two moves.
    assert m["push"]["decisions_per_move"] == 3.0
    assert m["push"]["decisions_per_s"] == 12.0


def test_no_move_has_no_decisions_per_move(tmp_path):
    m = metrics_of(cost_run(tmp_path, moves=0))
    assert m["push"]["decisions"] == 6 and m["push"]["decisions_per_move"] is None


def test_stopper_runs_per_cpu(tmp_path):
    m = metrics_of(cost_run(tmp_path))
    # In 1000-1500 ms: CPU 1's stopper three times (its run at 1600 is outside), CPU 0's
    # once; the kworker is not a stopper. Per second: 6 and 2, 8 in all.
    assert m["stopper"]["runs"] == 4
    assert m["stopper"]["per_cpu_per_s"] == {"0": 2.0, "1": 6.0}
    assert m["stopper"]["per_s"] == 8.0



def time_run(tmp_path, name="time", cost=True):
    """Task c's threads 200 (thread 0) and 201 (thread 1), window 1000-1500 ms.
      CPU0: 200 1000-1100, the kworker 1200-1250 and 1600-1700 (after the window): busy
            150 ms in the window;
      CPU1: 201 1000-1400: busy 400 ms.
    Decisions (pid, CPU, cost_ns): 200 on CPU0 at 1050, 1000; 201 on CPU1 at 1100, 2000,
    and at 1300, 3000; left out: the kworker's on CPU0 at 1220 (50000) and 201's at 1600
    (after the window, 100000). cost False: a kernel whose eas_push has no cost_ns (the
    reader's -1)."""
    t = Trace()
    for pid, thread in ((200, 0), (201, 1)):
        t.marker(1000, pid, thread, "begin")
        t.marker(1500, pid, thread, "end")
        t.wakeup(1000, pid, thread, "new")
    t.run(0, 200, 1000, 1100)
    t.run(0, KWORKER, 1200, 1250)
    t.run(0, KWORKER, 1600, 1700)
    t.run(1, 201, 1000, 1400)
    for at, pid, cpu, ns in ((1050, 200, 0, 1000), (1100, 201, 1, 2000), (1300, 201, 1, 3000),
                             (1220, KWORKER, 0, 50000), (1600, 201, 1, 100000)):
        t.push(at, pid, cpu, -1, "tick", "stuck_uclamp", "no_better_cpu", 1024, 1024, 100,
               cost_ns=ns if cost else -1)
    d = make_run(str(tmp_path / name), t, {"c": 2}, PLATFORM, {},
                 comms={200: "c", 201: "c", KWORKER: "kworker/0:1"},
                 keys={"c": {"util_max": 100}})
    write_em(d, EM)
    return d


# 1000 + 2000 + 3000 ns in three decisions, of 550 ms busy: 0.00109 %; CPU0 1000 of
# 150 ms: 0.000667 %; CPU1 5000 of 400 ms: 0.00125 %.
SENTENCE = ("Push decision time: 6.0 µs in 3 decisions (2.0 µs each), 0.00109 % of busy CPU "
            "time; by CPU: CPU 0 0.000667 %, CPU 1 0.00125 %.")
NOT_RECORDED = "Push decision time: not recorded by this kernel (its eas_push has no cost_ns)."
KEYS = ("cpu_ns", "cpu_ns_per_decision", "cpu_share", "cpu_share_by_cpu")


def test_decision_time_and_its_share_of_busy_cpu_time(tmp_path):
    d = time_run(tmp_path)
    m = metrics_of(d)
    p = m["push"]
    assert (p["decisions"], p["cpu_ns"], p["cpu_ns_per_decision"]) == (3, 6000, 2000.0)
    assert p["cpu_share"] == pytest.approx(6000 / 550e6, rel=1e-12)
    assert p["cpu_share_by_cpu"] == {"0": pytest.approx(1000 / 150e6, rel=1e-12),
                                     "1": pytest.approx(5000 / 400e6, rel=1e-12)}
    # Each thread's own, without shares.
    assert [tuple(m["tasks"][pid]["push"][k] for k in KEYS) for pid in ("200", "201")] == \
        [(1000, 1000.0, None, None), (5000, 2500.0, None, None)]
    assert SENTENCE in read_text(os.path.join(d, "analysis", "report"), "report.md")


def test_decision_time_not_recorded_and_ab_rows(tmp_path):
    """An older kernel's eas_push without cost_ns: the time is None (not 0), the report
    says so, and in A/B its side has no value."""
    old, new = time_run(tmp_path, "old", cost=False), time_run(tmp_path, "new")
    out = tmp_path / "ab"
    report(str(out), [old], [new])
    m = read_json(str(out), "metrics.json")["runs"][0]
    assert m["push"]["decisions"] == 3
    assert {k: m["push"][k] for k in KEYS} == dict.fromkeys(KEYS)
    assert {k: m["tasks"]["201"]["push"][k] for k in KEYS} == dict.fromkeys(KEYS)
    text = read_text(str(out), "report.md")
    assert NOT_RECORDED in text and SENTENCE in text
    rows = rows_of(str(out))
    want = {"push decision time": ("us", 6.0),
            "push decision time per decision": ("us", 2.0),
            "push decision time of busy CPU time": ("%", 6000 / 550e6 * 100),
            "push decision time of busy CPU time by CPU: 0": ("%", 1000 / 150e6 * 100),
            "push decision time of busy CPU time by CPU: 1": ("%", 5000 / 400e6 * 100)}
    for name, (unit, b) in want.items():
        assert (rows[name]["unit"], rows[name]["n_a"], rows[name]["n_b"]) == (unit, 0, 1), name
        assert rows[name]["b"] == pytest.approx(b, rel=1e-9), name


def test_a_trace_without_cost_ns_through_the_reader(tmp_path):
    """A trace.dat whose eas_push has no cost_ns (TraceDat.push_event(cost_ns=False)),
    read by the C reader: the column is there, -1; the analysis and its report go
    through, the time not recorded."""
    d = str(tmp_path / "old")
    write_run_files(d, {"c": 1}, PLATFORM, {})
    write_em(d, EM)
    t = TraceDat(2)
    for name in ("sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
                 "sched_migrate_task", "print"):
        system, fields, fmt = GUEST_EVENTS[name]
        t.event(system, name, fields, fmt)
    t.push_event(cost_ns=False)
    with pytest.raises(ValueError, match="no cost_ns"):
        t.push(0, 1050 * MS, 200, 0, -1, "tick", "stuck_uclamp", "no_better_cpu", cost_ns=5)
    t.add(0, 999 * MS, 1, "sched_wakeup_new", "c", 200, 120, 0)
    t.add(0, 1000 * MS, 200, "print", 0, b"[0] begins loop 0 phase 0 step 0")
    t.add(0, 1000 * MS, 0, "sched_switch", "swapper/0", 0, 120, 0, "c", 200, 120)
    t.push(0, 1050 * MS, 200, 0, -1, "tick", "stuck_uclamp", "no_better_cpu", 1024, 1024, 1024,
           600, 100, comm="c")
    t.add(0, 1100 * MS, 200, "print", 0, b"[0] end loop 0 phase 0 step 0")
    t.add(0, 1100 * MS, 200, "sched_switch", "c", 200, 120, 1, "swapper/0", 0, 120)
    t.write(os.path.join(d, "trace.dat"))
    m = metrics_of(d)
    push = tables.load(os.path.join(d, "analysis", "tables"))["push"]
    assert push[["pid", "cost_ns"]].values.tolist() == [[200, -1]]
    assert m["push"]["decisions"] == 1 and {k: m["push"][k] for k in KEYS} == dict.fromkeys(KEYS)
    assert NOT_RECORDED in read_text(os.path.join(d, "analysis", "report"), "report.md")
