"""EAS_WAIT_BIAS (issue 24, Part C, patch 0043) in guest runs: properties of the trace,
never host wall-clock limits.

pair-light-slice, six small periodic tasks on two E-cores and a P-core, two of them on
a 0.3 ms custom slice, is replayed twice on one boot of the patched kernel:
EAS_WAIT_TIE and EAS_WAIT_BIAS on (guest/vm/setups/wait-bias-on.sh), then
EAS_WAIT_BIAS off (wait-bias-off.sh, EAS_WAIT_TIE left on).

On, the bias decides some wakeups, each an eas_placement_decision with the reason
wait_bias. For the four tasks without a custom slice a CPU that runs them at once is
an idle one: the CPU chosen for them is idle in the trace (its last sched_switch
before the decision switched to the idle task) for at least two thirds of their
decisions, the bound test_wait_tie.py keeps for the same lockless reads. (For the
short-slice tasks it may be a busy CPU whose task they preempt.) Off, it decides
nothing.

What it costs in energy and gains in latency is for experiments/wait-bias.json.
"""
import pytest

from easlab import push_props as pp
from test_push import boot
from test_wait_tie import IDLE_SHARE, idle_at


@pytest.fixture(scope="module")
def wait_bias_boot(tmp_path_factory):
    return boot(tmp_path_factory, "pair-light-slice", "patched", "wait-bias-on", "wait-bias-off",
                PLATFORM="e:2:600,p:1:1024", CPUS="3")


def test_wait_bias_moves_to_idle_cpus(wait_bias_boot):
    t = pp.tables(wait_bias_boot["wait-bias-on"])
    d = t["decision"]
    d = d[d["reason"] == "wait_bias"]
    assert len(d) >= 1, "EAS_WAIT_BIAS decided no wakeup"
    d = d[d["pid"].isin(pp.threads(t, "small"))]
    assert len(d) >= 1, "EAS_WAIT_BIAS decided no wakeup of a task without a custom slice"
    switch = t["switch"].sort_values("ts", kind="stable")
    idle = [idle_at(switch, r.dst_cpu, r.ts) for r in d.itertuples()]
    print(f"{len(d)} wait_bias decisions for tasks without a custom slice, "
          f"{sum(bool(i) for i in idle)} to an idle CPU")
    assert sum(bool(i) for i in idle) >= IDLE_SHARE * len(d)


def test_wait_bias_decides_nothing_when_off(wait_bias_boot):
    d = pp.tables(wait_bias_boot["wait-bias-off"])["decision"]
    assert not (d["reason"] == "wait_bias").any(), d[d["reason"] == "wait_bias"].head()
