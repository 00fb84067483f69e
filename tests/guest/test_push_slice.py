"""FAIR_PUSH_SLICE (issue 24, Part C's trigger (a), patch 0044) in guest runs: properties
of the trace, never host wall-clock limits.

pair-light-slice, six small periodic tasks on two E-cores and a P-core, two of them
("short") on a 0.3 ms custom slice, is replayed twice on one boot of the patched
kernel (the push's feats on, as by default): FAIR_PUSH_SLICE on
(guest/vm/setups/push-slice-on.sh), then off (push-slice-off.sh). A probe of earlier
runs of this profile (easan/slice_waits.py) found, per run, 13 to 84 waits of the
short tasks past their slice, while the root domain was not overutilized, that
began with a wakeup, nearly all with a CPU idle when the wait passed the slice.

On, the trigger decides: each eas_push decision with the trigger "slice" is about a
short task, with the reason "slice_late", after the task waited on its CPU at least
its slice (from its wakeup, or its switch-out still runnable, to the decision, with
no switch-in between). The kernel stamps the wait when the task is queued, a little
before the wakeup event the trace shows, and reports the decision after its search,
so the trace's wait can only fall short of the kernel's by the time from the enqueue
to the wakeup event: WAIT_SLACK_NS allows for that. At least one decision moves the
task, and each move is followed by its migration, reason fair_push_slice. A try that
found no better CPU holds the task's next for FAIR_PUSH_RETRY_MS (32 ms, 8 jiffies at
the guest's HZ=250): the next decision about the same task comes at least 7 jiffies
later (FAILED_GAP_NS), as the hold is counted in whole jiffies. Off, the trigger
decides nothing.

What it costs and gains is for experiments/push-slice.json.
"""
import numpy as np
import pytest

from easan.schedule import waits
from easlab import push_props as pp
from test_push import boot

SLICE_NS = 300_000          # the profile's slice_us
# The enqueue (the kernel's stamp) comes before the wakeup event of the same
# try_to_wake_up(); a tenth of a millisecond is far more than that path takes.
WAIT_SLACK_NS = 100_000
FAILED_GAP_NS = 7 * 4_000_000


@pytest.fixture(scope="module")
def push_slice_boot(tmp_path_factory):
    return boot(tmp_path_factory, "pair-light-slice", "patched", "push-slice-on",
                "push-slice-off", PLATFORM="e:2:600,p:1:1024", CPUS="3")


def wait_start(t, pid, ts):
    """When pid began the wait it was in at ts, None if it was not waiting then."""
    w = waits(t, pid)
    w = w[(w["start"] <= ts) & ~(w["end"] <= ts)]
    return int(w["start"].iloc[-1]) if len(w) else None


def test_slice_trigger_pushes_short_tasks_that_waited_their_slice(push_slice_boot):
    t = pp.tables(push_slice_boot["push-slice-on"])
    p = t["push"]
    p = p[p["trigger"] == "slice"]
    assert len(p) >= 1, "FAIR_PUSH_SLICE decided nothing"
    print(f"{len(p)} slice decisions: {p['outcome'].value_counts().to_dict()}")
    assert (p["why"] == "slice_late").all(), p["why"].value_counts().to_dict()
    short = set(pp.threads(t, "short"))
    assert set(p["pid"]) <= short, set(p["pid"]) - short
    waited = np.array([r.ts - (wait_start(t, r.pid, r.ts) or r.ts) for r in p.itertuples()])
    print(f"waited before the decision (trace): min {waited.min()} ns, "
          f"median {np.median(waited):.0f} ns")
    assert (waited >= SLICE_NS - WAIT_SLACK_NS).all(), p[waited < SLICE_NS - WAIT_SLACK_NS]
    pushed = p[p["outcome"] == "pushed"]
    assert len(pushed) >= 1, "no slice decision moved its task"
    for pid, mine in p.sort_values("ts").groupby("pid"):
        ts, outcome = mine["ts"].to_numpy(), mine["outcome"].to_numpy()
        for i in range(len(ts) - 1):
            if outcome[i] in ("no_better_cpu", "not_allowed"):
                assert ts[i + 1] - ts[i] >= FAILED_GAP_NS, (pid, ts[i], ts[i + 1])
    mig = t["migrate"]
    mig = mig[mig["reason"] == "fair_push_slice"]
    for r in pushed.itertuples():
        after = mig[(mig["pid"] == r.pid) & (mig["ts"] >= r.ts)]
        assert len(after) and int(after["dest_cpu"].iloc[0]) == r.dst_cpu, r


def test_slice_trigger_decides_nothing_when_off(push_slice_boot):
    p = pp.tables(push_slice_boot["push-slice-off"])["push"]
    assert not (p["trigger"] == "slice").any(), p[p["trigger"] == "slice"].head()
