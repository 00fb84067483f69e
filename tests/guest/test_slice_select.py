"""Slice-aware selection (issue 24, Part C, patch 0037) in guest runs: properties of the
trace, never host wall-clock limits.

short-slice-hogs, a periodic task with a 0.3 ms custom slice among six nice-0 hogs, is
replayed twice on one boot of the patched kernel on the two-CPU platform (one E-core,
one P-core: its wakeups never find an idle CPU): SLICE_AWARE_SELECT on
(guest/vm/setups/slice-aware-on.sh), then off (slice-aware-off.sh). On the default
platform (seven runnable tasks on six CPUs) a replay of 2026-12-06 made only two such
choices: a CPU there is often idle, or the target already lets the task in at once.

On, the selection takes some of the short task's wakeups off a busy target and says so
(eas_placement_decision, reason slice_preempt or slice_wait); never a hog's, whose slice
is the default; each to a CPU other than the target, where that wakeup then enqueues
the task. Off, it never does. How often a slice_preempt choice came true (the task was
the next one switched in there) is printed: the snapshot is taken before the wakeup
reaches the other CPU, which a host that does not run that vCPU delays.

Whether it lowers the short task's latency is judged by experiments/short-slice-latency.json
(ten runs a group), not here: one run on vCPUs that the host shares is no evidence.
"""
import pytest

from easlab import push_props as pp
from test_push import SMALL, boot

SLICE_REASONS = ("slice_preempt", "slice_wait")


@pytest.fixture(scope="module")
def slice_boot(tmp_path_factory):
    # experiments/short-slice-latency.json's small platform.
    return boot(tmp_path_factory, "short-slice-hogs", "patched", "slice-aware-on",
                "slice-aware-off", PLATFORM=SMALL, CPUS="2")


def slice_decisions(t):
    d = t["decision"]
    return d[d["reason"].isin(SLICE_REASONS)]


def test_short_task_wakeups_leave_a_busy_target(slice_boot):
    t = pp.tables(slice_boot["slice-aware-on"])
    short = set(pp.threads(t, "short"))
    assert short, "no thread named short in the trace"
    d = slice_decisions(t)
    print(f"slice-aware decisions: {d['reason'].value_counts().to_dict()}")
    assert len(d) >= 1, "no wakeup of the short task went to a better busy CPU"
    # Only the task that asked for a short slice is placed by its slice.
    assert set(d["pid"]) <= short, d[~d["pid"].isin(short)].head()
    assert (d["src_cpu"] != d["dst_cpu"]).all(), d[d["src_cpu"] == d["dst_cpu"]].head()
    # The wakeup that follows each decision enqueues the task on the CPU chosen.
    w = t["wakeup"]
    w = w[(w["kind"] == "wakeup") & w["pid"].isin(short)].sort_values("ts")
    landed, came_true = 0, 0
    sw = t["switch"].sort_values("ts")
    for row in d.itertuples():
        after = w[(w["pid"] == row.pid) & (w["ts"] >= row.ts)]
        assert len(after), f"no wakeup after the decision at {row.ts}"
        woke = after.iloc[0]
        landed += int(woke["target_cpu"] == row.dst_cpu)
        if row.reason == "slice_preempt":
            nxt = sw[(sw["cpu"] == row.dst_cpu) & (sw["ts"] >= woke["ts"])]
            came_true += int(len(nxt) > 0 and nxt.iloc[0]["next_pid"] == row.pid)
    n_preempt = int((d["reason"] == "slice_preempt").sum())
    print(f"{landed} of {len(d)} decisions were followed by a wakeup on the CPU chosen; "
          f"{came_true} of {n_preempt} slice_preempt choices ran next there")
    assert landed == len(d)


def test_no_slice_aware_decision_when_off(slice_boot):
    d = slice_decisions(pp.tables(slice_boot["slice-aware-off"]))
    assert d.empty, d.head()
