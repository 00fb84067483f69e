"""Waits longer than its slice of a thread with a custom slice (slice_us), and which of
them a push could have shortened: the question behind Part C's trigger (a) (issue 24,
a short-slice task preempted or not picked by its deadline, tried by the push).

A thread waits from a wakeup or a preemption (sched_switch prev_state R or R+) to its
next switch-in. A wait longer than the thread's slice is one of:
  - delayed: a wakeup that requeued the thread in place, its dequeue delayed
    (eas_wakeup_delayed): it slept with a negative lag, which EEVDF keeps wherever
    the thread is queued (place_entity()), so on another busy CPU it waits as long;
  - woken: any other wakeup, whose CPU the wakeup path chose;
  - slice_used: a preemption after the thread ran at least its slice since its
    switch-in, which leaves its lag negative in the same way;
  - cut_short: a preemption before that (or with no switch-in in the trace to tell).
The push acts only while the root domain is not overutilized (load balance places
tasks while it is), so a wait a push could have shortened is a woken or cut_short
one during which the state was off at the moment the wait passed the slice. That
counts what a trigger could reach, not what it would gain: a push still needs a CPU
that runs the thread sooner. What a trigger that acts once the slice has passed can
shorten is the time past it: excess_ns sums, over the waits past the slice, the wait
less the slice (pushable_excess_ns over those a push could reach).
"""
import numpy as np
import pandas as pd

from . import compare, schedule
from .latency import wakeup_paths
from .metric import Metric, ms
from .schedule import overutilized_at

EVENTS = ("sched_switch", "sched_wakeup", "eas_overutilized", "eas_wakeup_delayed")
KINDS = ("delayed", "woken", "slice_used", "cut_short")
PUSHABLE = ("woken", "cut_short")


def slice_ns(run, pid):
    """The custom slice of a profile thread in ns, None without one."""
    us = run.attrs.get(run.task_of[int(pid)], {}).get("slice_us")
    return int(us) * 1000 if us else None


def preemptions(ctx, pid, slice_):
    """DataFrame start, latency, kind of pid's waits that began with a preemption in the
    window and end in the trace: slice_used if it ran at least slice_ ns since its
    switch-in, else cut_short."""
    w = schedule.waits(ctx.run.tables, pid).dropna(subset=["end"])
    w = w[(w["began"] == "preempted") & (w["start"] >= ctx.t0) & (w["start"] <= ctx.t1)]
    return pd.DataFrame({"start": w["start"].to_numpy(), "latency": w["end"] - w["start"],
                         "kind": np.where(w["ran"].to_numpy() >= slice_, "slice_used", "cut_short")})


def waits(ctx, pid, slice_, paths):
    """DataFrame start, latency, kind of each wait of pid (paths: wakeup_paths(ctx))."""
    lat = ctx.latencies
    mine = (lat["pid"] == pid).to_numpy()
    woke = pd.DataFrame({"start": lat["ts"].to_numpy()[mine],
                         "latency": lat["latency"].to_numpy()[mine],
                         "kind": np.where(paths[mine] == "delayed", "delayed", "woken")})
    return pd.concat([woke, preemptions(ctx, pid, slice_)], ignore_index=True)


def count(w, slice_, tables):
    """{'waits', 'past_slice', 'by_kind', 'pushable', 'pushable_share', 'excess_ns',
    'pushable_excess_ns'} of waits w."""
    past = w[w["latency"].astype(float) > slice_]
    ou = overutilized_at(tables, past["start"].astype(np.int64) + slice_)
    reach = past["kind"].isin(PUSHABLE).to_numpy() & ~ou
    excess = past["latency"].to_numpy(dtype=float) - slice_
    return {"waits": int(len(w)), "past_slice": int(len(past)),
            "by_kind": {k: int((past["kind"] == k).sum()) for k in KINDS},
            "pushable": int(reach.sum()),
            "pushable_share": int(reach.sum()) / len(past) if len(past) else None,
            "excess_ns": float(excess.sum()), "pushable_excess_ns": float(excess[reach].sum())}


def compute(ctx):
    """The run's counts over its threads with a custom slice, and each one's."""
    paths = wakeup_paths(ctx)
    per_thread, every = {}, []
    for pid in sorted(ctx.run.pids):
        slice_ = slice_ns(ctx.run, pid)
        if slice_ is None:
            continue
        w = waits(ctx, pid, slice_, paths)
        per_thread[int(pid)] = count(w, slice_, ctx.run.tables)
        every.append(per_thread[int(pid)])
    if not every:
        return None, per_thread
    past = sum(c["past_slice"] for c in every)
    pushable = sum(c["pushable"] for c in every)
    return {"threads": len(every), "waits": sum(c["waits"] for c in every), "past_slice": past,
            "by_kind": {k: sum(c["by_kind"][k] for c in every) for k in KINDS},
            "pushable": pushable, "pushable_share": pushable / past if past else None,
            "excess_ns": sum(c["excess_ns"] for c in every),
            "pushable_excess_ns": sum(c["pushable_excess_ns"] for c in every)}, per_thread


def rows(c):
    kinds = ", ".join(f"{k.replace('_', ' ')} {c['by_kind'][k]}" for k in KINDS)
    return [(LABEL, f"{c['past_slice']} of {c['waits']} ({kinds}), {ms(c['excess_ns'])} ms "
                    f"past the slice; a push could reach {c['pushable']} "
                    f"({ms(c['pushable_excess_ns'])} ms)")]


LABEL = "waits past a custom slice"
METRIC = Metric("slice_waits", compute, EVENTS, thread_key="slice_waits", rows=rows,
                label=LABEL,
                ab=(compare.Mean("waits past the slice a push could reach",
                                 ("slice_waits", "pushable")),))
