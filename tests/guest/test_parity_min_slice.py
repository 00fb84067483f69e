"""PARITY_MIN_SLICE (issue 24, Part C, patch 0042) in guest runs: properties of the
trace, never host wall-clock limits.

short-slice-hogs, a periodic task with a 0.3 ms custom slice among six nice-0 hogs, is
replayed three times on one boot of the patched kernel on the two-CPU platform, HRTICK
off (its default). Setups are not undone between replays, so the features add up:
PARITY_MIN_SLICE off (guest/vm/setups/parity-min-slice-off.sh), then on
(parity-min-slice-on.sh), then on with HRTICK_SHORTER (hrtick-shorter-on.sh).

On, a protection is cut (eas_parity_cut) only for an entity whose slice is longer than
the shortest one queued, which is the short task's: never for the short task itself,
and only once the entity ran at least that long since its pick. Alone, the cut is
noticed at the entity's next update, often a tick; with HRTICK_SHORTER the hrtick is
armed for the end of the protection, so the median cut comes less than half a tick
(2 ms at HZ=250) past the shortest slice. Off, nothing is cut.

Whether the short task's latency falls is judged by experiments/short-slice-parity.json
(ten runs a group), not here.
"""
import numpy as np
import pytest

from easlab import push_props as pp
from test_push import SMALL, boot

SHORT_SLICE_NS = 300_000      # short-slice-hogs.json: the short task's slice_us
HALF_TICK_NS = 2_000_000      # HZ=250 (guest/kernel/config/guest.config)


@pytest.fixture(scope="module")
def parity_boot(tmp_path_factory):
    return boot(tmp_path_factory, "short-slice-hogs", "patched", "parity-min-slice-off",
                "parity-min-slice-on", "hrtick-shorter-on", PLATFORM=SMALL, CPUS="2")


def cuts_of(folder):
    t = pp.tables(folder)
    return t, t["parity_cut"]


@pytest.mark.parametrize("replay", ["parity-min-slice-on", "hrtick-shorter-on"])
def test_cut_only_a_longer_slice_after_the_shortest_slice_ran(parity_boot, replay):
    t, cuts = cuts_of(parity_boot[replay])
    short = set(pp.threads(t, "short"))
    assert short, "no thread named short in the trace"
    print(f"{replay}: {len(cuts)} cuts; ran past the shortest slice, median "
          f"{np.median(cuts['ran'] - cuts['min_slice']) / 1e6 if len(cuts) else 0:.3f} ms")
    assert len(cuts) >= 1, "no protection was cut"
    assert not cuts["pid"].isin(short).any(), cuts[cuts["pid"].isin(short)].head()
    assert (cuts["min_slice"] == SHORT_SLICE_NS).all(), cuts["min_slice"].value_counts()
    assert (cuts["min_slice"] < cuts["slice"]).all(), cuts[cuts["min_slice"] >= cuts["slice"]]
    assert (cuts["ran"] >= cuts["min_slice"]).all(), cuts[cuts["ran"] < cuts["min_slice"]]


def test_with_the_hrtick_the_cut_comes_on_time(parity_boot):
    _, cuts = cuts_of(parity_boot["hrtick-shorter-on"])
    assert len(cuts) >= 1, "no protection was cut"
    assert float(np.median(cuts["ran"] - cuts["min_slice"])) < HALF_TICK_NS


def test_nothing_cut_when_off(parity_boot):
    _, cuts = cuts_of(parity_boot["parity-min-slice-off"])
    assert cuts.empty, cuts.head()
