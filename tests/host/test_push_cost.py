"""What the push costs, from the trace: decisions per move and per second (push.py),
and how often each CPU ran its stopper (stopper.py), on a synthetic run whose answers
are worked out by hand."""
from easlab.synthetic_run import Trace, make_run, write_em
from inprocess import metrics_of

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
