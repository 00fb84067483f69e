"""PARITY_MIN_SLICE (patch 0042): RUN_TO_PARITY's protection of a running slice ended
once the entity ran as long as the shortest slice queued beside it.

Each eas_parity_cut event (the reader's parity_cut table) is one such end: the
running task's entity (its own, or its group's) had run `ran` ns since its pick,
at least the shortest slice queued beside it (`min_slice`), and is rescheduled. The
cut is noticed at the entity's next update (a tick, a wakeup or sleep on its CPU, or
HRTICK_SHORTER's timer), so `ran` past min_slice is how late it came. Cuts per
second are the mechanism's cost: each ends in a pick, often in a switch. Counted
over the window.
"""
import numpy as np

from . import compare
from .metric import Metric, ms

EVENTS = ("eas_parity_cut",)


def compute(ctx):
    """{'cuts', 'per_s', 'late_p50_ns'} over the window [t0, t1]: late is ran less
    min_slice, None when there is no cut."""
    cuts = ctx.run.tables["parity_cut"]
    cuts = cuts[(cuts["ts"] >= ctx.t0) & (cuts["ts"] <= ctx.t1)]
    seconds = (ctx.t1 - ctx.t0) / 1e9
    late = (cuts["ran"] - cuts["min_slice"]).to_numpy()
    return {"cuts": int(len(cuts)), "per_s": len(cuts) / seconds if seconds > 0 else None,
            "late_p50_ns": float(np.median(late)) if len(late) else None}, None


def rows(c):
    text = f"{c['cuts']}" if c["per_s"] is None else f"{c['per_s']:.1f}/s ({c['cuts']})"
    if c["late_p50_ns"] is not None:
        text += f"; past the shortest slice: median {ms(c['late_p50_ns'])} ms"
    return [(LABEL, text)]


LABEL = "protected slices cut to the shortest slice"
METRIC = Metric("parity_cut", compute, EVENTS, rows=rows, label=LABEL,
                ab=(compare.Mean("protected slices cut per second", ("parity_cut", "per_s")),))
