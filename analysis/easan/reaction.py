"""Reaction to misfit, timed from the events themselves (no sampling grid).

A thread turns misfit at a load-tracking event about it (eas_pelt_se or
eas_util_est_se) whose util does not fit the CPU the event names: util x 1.25
>= capacity (fits_capacity()), util being max(util_avg, util_est) as of that
event, as task_fits_cpu() reads it (task_util_est()), clamped by the thread's
uclamp in force then (Run.uclamp_over(): the profile's, then a uclamp_change
from the moment it took effect); any thread fits the biggest CPUs (fitness.fits).
A change of the thread's clamps counts as such an event at the moment it took
effect, with the util and CPU of the thread's last load-tracking event before it:
a raised util_min can make it misfit there. It counts only while the thread may
use more than one CPU and one of those fits it. The episode that opens there ends
at the thread's first switch-in (sched_switch) at or after that event on a CPU it
fits (util as of the switch, clamped as of the switch):

- on a CPU of more capacity than the one it crossed on, the kernel moved it:
  a reaction, timed from the crossing event ("from_crossing_ns") and from the
  rt-app "begins loop" marker that started the phase it crossed in
  ("from_phase_start_ns"; rtapp.phase_starts);
- on one of no more capacity, its util fell back (or its clamps let it fit
  there): "in_place", no reaction;
- none before the trace ends: "open".

The next episode can open at the first misfit event after the switch-in that
ended the last one.
"""
import numpy as np
import pandas as pd

from . import compare, latency
from .affinity import allowed_masks
from .fitness import clamped, fits
from .metric import Metric, ms
from .rtapp import phase_starts

# Either load-tracking event will do (the other's rows are then empty).
EVENTS = ("sched_switch", ("eas_pelt_se", "eas_util_est_se"))
OUTCOMES = ("reacted", "in_place", "open")


def _signal(pelt, est):
    """DataFrame ts, cpu, util of one thread's load-tracking events in time order,
    util = max(util_avg, util_est) as of each event."""
    both = pd.concat([pd.DataFrame({"ts": pelt["ts"], "cpu": pelt["cpu"], "avg": pelt["util"],
                                    "est": np.nan}),
                      pd.DataFrame({"ts": est["ts"], "cpu": est["cpu"], "avg": est["util"],
                                    "est": est["util_est"]})])
    both = both.sort_values("ts", kind="stable")
    util = np.maximum(both["avg"].to_numpy(float), both["est"].ffill().fillna(0).to_numpy(float))
    return both["ts"].to_numpy(np.int64), both["cpu"].to_numpy(np.int64), util


def _with_clamp_changes(run, pid, ts, cpu, util):
    """The signal with a row at each change of the thread's clamps after its first
    load-tracking event: that time, the CPU and util of the last event before it."""
    changes = run.clamp_timeline[int(pid)][0][1:]
    changes = changes[changes > ts[0]]
    if not len(changes):
        return ts, cpu, util
    k = np.searchsorted(ts, changes, side="right") - 1
    order = np.argsort(np.concatenate([ts, changes]), kind="stable")
    return (np.concatenate([ts, changes])[order], np.concatenate([cpu, cpu[k]])[order],
            np.concatenate([util, util[k]])[order])


def episodes(run, pid, pelt, est, ins, t0, t1):
    """[{'crossing_ns', 'cpu', 'util', 'outcome', 'end_ns', 'to_cpu', 'from_crossing_ns',
    'from_phase_start_ns'}] of thread pid, crossings in [t0, t1]; pelt, est and ins
    are its rows of the pelt_se, util_est and switch (switched in) tables."""
    caps = np.array([run.platform.capacity(c) for c in range(run.platform.ncpus)])
    top = caps.max()
    ts, cpu, raw = _signal(pelt, est)
    if not len(ts):
        return []
    ts, cpu, raw = _with_clamp_changes(run, pid, ts, cpu, raw)
    util = clamped(raw, run.uclamp_over(pid, ts))
    cand = np.flatnonzero(~fits(util, caps[cpu], top) & (ts >= t0) & (ts <= t1))
    if len(cand):
        allowed = allowed_masks(run, ts[cand], {pid})[pid]
        some_fit = (allowed & fits(util[cand, None], caps[None, :], top)).any(axis=1)
        cand = cand[(allowed.sum(axis=1) > 1) & some_fit]
    in_ts = ins["ts"].to_numpy(np.int64)
    in_cpu = ins["cpu"].to_numpy(np.int64)
    k = np.searchsorted(ts, in_ts, side="right") - 1
    util_in = clamped(raw[np.maximum(k, 0)], run.uclamp_over(pid, in_ts))
    fit_in = np.flatnonzero((k >= 0) & fits(util_in, caps[in_cpu], top))
    starts, _ = phase_starts(run.tables["markers"], pid)
    out, i = [], 0
    while i < len(cand):
        c = cand[i]
        ep = {"crossing_ns": int(ts[c]), "cpu": int(cpu[c]), "util": float(util[c]),
              "outcome": "open", "end_ns": None, "to_cpu": None,
              "from_crossing_ns": None, "from_phase_start_ns": None}
        out.append(ep)
        j = np.searchsorted(in_ts[fit_in], ts[c], side="left")
        if j == len(fit_in):
            break
        end, dst = int(in_ts[fit_in[j]]), int(in_cpu[fit_in[j]])
        ep.update(end_ns=end, to_cpu=dst)
        if caps[dst] > caps[cpu[c]]:
            p = np.searchsorted(starts, ts[c], side="right") - 1
            ep.update(outcome="reacted", from_crossing_ns=end - int(ts[c]),
                      from_phase_start_ns=end - int(starts[p]) if p >= 0 else None)
        else:
            ep["outcome"] = "in_place"
        i = np.searchsorted(ts[cand], end, side="right")
    return out


def _summary(eps):
    return {"episodes": len(eps),
            **{o: sum(e["outcome"] == o for e in eps) for o in OUTCOMES},
            **{key: latency.summary([e[key] for e in eps if e[key] is not None])
               for key in ("from_crossing_ns", "from_phase_start_ns")}}


def compute(ctx):
    """(the run's summary with every episode in 'list', {pid: [episode]})."""
    run, t0, t1 = ctx.run, ctx.t0, ctx.t1
    pids = run.pids
    by_pid = {}
    for name in ("pelt_se", "util_est"):
        t = run.tables[name]
        by_pid[name] = dict(iter(t[t["pid"].isin(pids)].groupby("pid")))
    sw = run.tables["switch"]
    ins = dict(iter(sw[sw["next_pid"].isin(pids)].sort_values("ts", kind="stable")
                    .groupby("next_pid")))
    empty = {name: run.tables[name].iloc[:0] for name in ("pelt_se", "util_est")}
    per_thread, flat = {}, []
    for pid in sorted(pids):
        eps = episodes(run, pid, by_pid["pelt_se"].get(pid, empty["pelt_se"]),
                       by_pid["util_est"].get(pid, empty["util_est"]),
                       ins.get(pid, sw.iloc[:0]), t0, t1)
        per_thread[int(pid)] = eps
        flat += [{"pid": int(pid), **e} for e in eps]
    flat.sort(key=lambda e: e["crossing_ns"])
    return {**_summary(flat), "list": flat}, per_thread


def rows(r):
    """The run's misfit reactions, p50 / p95 from the crossing and from the phase start."""
    if not r["episodes"]:
        text = "no misfit episode"
    else:
        fc, fp = r["from_crossing_ns"], r["from_phase_start_ns"]
        text = (f"{ms(fc['p50'])} / {ms(fc['p95'])} from the fit crossing, {ms(fp['p50'])} / "
                f"{ms(fp['p95'])} from the phase start ({r['reacted']} of {r['episodes']} misfit "
                f"episodes moved up, {r['in_place']} fitted again in place, {r['open']} open)")
    return [(LABEL, text)]


def _episodes(key):
    """compare.Percentiles samples: a run's reactions timed by key, None if not traced."""
    def samples(result):
        r = result.metrics["reaction"]
        return None if r is None else [e[key] for e in r["list"]]
    return samples


LABEL = "misfit reaction p50 / p95 (ms)"
# Percentiles over every reaction of a group's runs together: a run has few.
METRIC = Metric(
    "reaction", compute, EVENTS, thread_key="reaction", rows=rows, label=LABEL,
    ab=(compare.Percentiles("misfit reaction from fit crossing p{p}", _episodes("from_crossing_ns"),
                            (50, 95), pooled=True, unit="ms", scale=1e-6),
        compare.Percentiles("misfit reaction from phase start p{p}",
                            _episodes("from_phase_start_ns"), (50, 95), pooled=True, unit="ms",
                            scale=1e-6)))
