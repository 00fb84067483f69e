"""HRTICK_SHORTER (patch 0040): the hrtick armed to end a running task's slice while a
task of a shorter slice waits behind it.

Each eas_hrtick_shorter event (the reader's hrtick_shorter table) is one arm: a slice
of the running task (its own, or its group's) ends delay ns after it. Its overrun is how long the task
kept its CPU past that end, up to its next switch out of the CPU; negative when it left
earlier (it slept, or a wakeup preempted it). A slice left to the tick (HZ=250) runs
on to the next one, an overrun spread over a tick (4 ms, 2 ms on average); one ended
by the hrtick overruns by the timer's latency. Arms per second are the mechanism's
cost: each may program a timer and end in a switch. Counted over the window.

With PARITY_MIN_SLICE (patch 0042) on, an arm may end the slice's protection instead,
when that comes first; EEVDF may then pick the same task again, and its overrun counts
up to its switch out, past the end armed for.
"""
import numpy as np

from . import compare
from .metric import Metric, ms

EVENTS = ("eas_hrtick_shorter", "sched_switch")


def overruns(arms, switch):
    """[ns], one per arm (rows of the hrtick_shorter table) whose task's switch out of
    its CPU is in `switch` (the reader's switch table): that switch's time less the end
    of the armed slice (ts + delay). An arm made at a pick comes just before the
    switch that brings its task in: the switch after that one is its way out. Any
    other arm is made while its task runs, and the next switch on the CPU is its way
    out. A switch that takes another task out (events lost in between) says nothing,
    and the arm is left out."""
    out = []
    for cpu, mine in arms.groupby("cpu"):
        sw = switch[switch["cpu"] == cpu].sort_values("ts", kind="stable")
        ts = sw["ts"].to_numpy()
        prev = sw["prev_pid"].to_numpy()
        nxt = sw["next_pid"].to_numpy()
        idx = np.searchsorted(ts, mine["ts"].to_numpy(), side="left")
        for i, a in zip(idx, mine.itertuples()):
            if i < len(ts) and nxt[i] == a.pid and prev[i] != a.pid:
                i += 1
            if i < len(ts) and prev[i] == a.pid:
                out.append(int(ts[i]) - (a.ts + a.delay))
    return out


def compute(ctx):
    """{'arms', 'per_s', 'overrun_p50_ns', 'overrun_max_ns'} over the window [t0, t1];
    the overruns None when no arm has one."""
    arms = ctx.run.tables["hrtick_shorter"]
    arms = arms[(arms["ts"] >= ctx.t0) & (arms["ts"] <= ctx.t1)]
    seconds = (ctx.t1 - ctx.t0) / 1e9
    over = overruns(arms, ctx.run.tables["switch"])
    return {"arms": int(len(arms)), "per_s": len(arms) / seconds if seconds > 0 else None,
            "overrun_p50_ns": float(np.median(over)) if over else None,
            "overrun_max_ns": int(max(over)) if over else None}, None


def rows(h):
    text = f"{h['arms']}" if h["per_s"] is None else f"{h['per_s']:.1f}/s ({h['arms']})"
    if h["overrun_p50_ns"] is not None:
        text += (f"; past the slice's end: median {ms(h['overrun_p50_ns'])} ms, "
                 f"at most {ms(h['overrun_max_ns'])} ms")
    return [(LABEL, text)]


LABEL = "hrtick arms for a shorter slice"
METRIC = Metric("hrtick_shorter", compute, EVENTS, rows=rows, label=LABEL,
                ab=(compare.Mean("hrtick arms per second", ("hrtick_shorter", "per_s")),))
