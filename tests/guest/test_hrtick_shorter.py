"""HRTICK_SHORTER (issue 24, Part C, patch 0040) in guest runs: properties of the
trace, never host wall-clock limits.

short-slice-hogs, a periodic task with a 0.3 ms custom slice among six nice-0 hogs, is
replayed twice on one boot of the patched kernel on the two-CPU platform, with HRTICK
off (its default): HRTICK_SHORTER on (guest/vm/setups/hrtick-shorter-on.sh), then off
(hrtick-shorter-off.sh).

On, the hrtick is armed (eas_hrtick_shorter) only to end the slice of a task whose slice
is longer than the shortest one queued, which is the short task's: never for the short
task itself, whose slice no other is below. In the median arm, the task armed for
leaves its CPU less than half a tick past its slice's end (easan.hrtick.overruns): a
slice left to the tick runs on to the next one, an overrun spread over a tick (4 ms at
HZ=250), 2 ms in the median, which is what the bound tells apart. Off, nothing is armed.

Whether the short task's latency falls is judged by
experiments/short-slice-hrtick-shorter.json (ten runs a group), not here.
"""
import numpy as np
import pytest

from easan import hrtick
from easlab import push_props as pp
from test_push import SMALL, boot

SHORT_SLICE_NS = 300_000      # short-slice-hogs.json: the short task's slice_us
HALF_TICK_NS = 2_000_000      # HZ=250 (guest/kernel/config/guest.config)


@pytest.fixture(scope="module")
def hrtick_boot(tmp_path_factory):
    return boot(tmp_path_factory, "short-slice-hogs", "patched", "hrtick-shorter-on",
                "hrtick-shorter-off", PLATFORM=SMALL, CPUS="2")


def test_armed_only_for_a_longer_slice_while_a_shorter_waits(hrtick_boot):
    t = pp.tables(hrtick_boot["hrtick-shorter-on"])
    short = set(pp.threads(t, "short"))
    assert short, "no thread named short in the trace"
    arms = t["hrtick_shorter"]
    print(f"{len(arms)} arms; slices armed for: {arms['slice'].value_counts().to_dict()}")
    assert len(arms) >= 1, "the hrtick was never armed for a shorter slice"
    assert not arms["pid"].isin(short).any(), arms[arms["pid"].isin(short)].head()
    assert (arms["min_slice"] < arms["slice"]).all(), arms[arms["min_slice"] >= arms["slice"]]
    assert (arms["min_slice"] == SHORT_SLICE_NS).all(), arms["min_slice"].value_counts()


def test_the_task_armed_for_leaves_before_the_tick_would_end_it(hrtick_boot):
    t = pp.tables(hrtick_boot["hrtick-shorter-on"])
    over = hrtick.overruns(t["hrtick_shorter"], t["switch"])
    assert over, "no arm was followed by its task's switch out"
    p50 = float(np.median(over))
    print(f"{len(over)} arms with a switch out: overrun median {p50 / 1e6:.3f} ms, "
          f"p90 {np.percentile(over, 90) / 1e6:.3f} ms, max {max(over) / 1e6:.3f} ms")
    assert p50 < HALF_TICK_NS


def test_nothing_armed_when_off(hrtick_boot):
    arms = pp.tables(hrtick_boot["hrtick-shorter-off"])["hrtick_shorter"]
    assert arms.empty, arms.head()
