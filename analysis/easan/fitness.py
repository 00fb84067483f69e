"""Stuck threads: time a thread ran where it did not fit, or waited to run, while a
CPU that fits it sat idle.

A thread fits a CPU as the kernel judges it (fits_capacity(): util x 1.25 <
capacity; any thread fits the biggest CPUs, as update_misfit_status() has it),
on its PELT util from eas_pelt_se, clamped by its uclamp limits (util_min /
util_max) in force at each time (Run.uclamp_over(): the profile's, then any
uclamp_change from the moment it took effect). Only CPUs in the thread's
affinity count, and a thread with one allowed CPU is never misfit. A thread
waits from a wakeup or a preemption (sched_switch prev_state R or R+) to its
next switch-in. Sampled on a grid of STEP_NS. (The reaction to misfit is timed
from the events themselves, in reaction.py.)
"""
import numpy as np

from .affinity import allowed_masks
from .metric import Figure, Metric
from .schedule import running_at, waits

EVENTS = ("sched_switch", "sched_wakeup", "eas_pelt_se")
STEP_NS = 1_000_000


def fits(util, capacity, max_capacity=1024):
    return (util * 1280 < capacity * 1024) | (capacity >= max_capacity)


def _util_at(pelt, pid, times):
    rows = pelt[pelt["pid"] == pid]
    if rows.empty:
        return np.full(len(times), np.nan)
    ts = rows["ts"].to_numpy()
    idx = np.searchsorted(ts, times, side="right") - 1
    out = np.full(len(times), np.nan)
    ok = idx >= 0
    out[ok] = rows["util"].to_numpy()[idx[ok]]
    return out


def waiting_intervals(tables, pid):
    """[(start, end)] ns of pid's waits that end in the trace (schedule.waits())."""
    w = waits(tables, pid).dropna(subset=["end"])
    return list(zip(w["start"], w["end"].astype(np.int64)))


def _inside(times, intervals):
    """Mask of the times that fall in one of the [start, end) intervals."""
    if not intervals:
        return np.zeros(len(times), bool)
    starts, ends = np.array(intervals, dtype=np.int64).T
    edges = np.zeros(len(times) + 1, np.int64)
    np.add.at(edges, np.searchsorted(times, starts), 1)
    np.add.at(edges, np.searchsorted(times, ends), -1)
    return np.cumsum(edges)[:-1] > 0


def clamped(util, uclamp):
    """util clamped by a thread's (util_min, util_max), as the fit test sees it: scalars,
    or arrays of the clamps at each util's time (Run.uclamp_over())."""
    return np.clip(util, *uclamp)


def stuck(run, sl, t0, t1):
    """{pid: {'stuck_ns', 'longest_stuck_ns', 'misfit_ns', 'misfit_stuck_ns',
    'waiting_stuck_ns'}} over [t0, t1)."""
    times = np.arange(t0, t1, STEP_NS, dtype=np.int64)
    plat = run.platform
    caps = np.array([plat.capacity(c) for c in range(plat.ncpus)])
    top = caps.max()
    who = running_at(sl, times, plat.ncpus)
    allowed = allowed_masks(run, times)
    idle = who == 0
    pelt = run.tables["pelt_se"].sort_values("ts", kind="stable")
    out = {}
    for pid in sorted(run.pids):
        util = clamped(_util_at(pelt, pid, times), run.uclamp_over(pid, times))
        on = who == pid
        running = on.any(axis=1)
        cpu = np.where(running, on.argmax(axis=1), -1)
        known = running & ~np.isnan(util)
        here_fits = np.zeros(len(times), bool)
        here_fits[known] = fits(util[known], caps[cpu[known]], top)
        movable = allowed[pid].sum(axis=1) > 1
        misfit = known & ~here_fits & movable
        fitting_idle = np.zeros(len(times), bool)
        for c in range(plat.ncpus):
            fitting_idle |= idle[:, c] & allowed[pid][:, c] & fits(np.nan_to_num(util), caps[c], top)
        waiting = _inside(times, waiting_intervals(run.tables, pid)) & ~running
        is_stuck = (misfit | waiting) & fitting_idle
        out[int(pid)] = {"stuck_ns": int(is_stuck.sum()) * STEP_NS,
                         "longest_stuck_ns": _longest_run(is_stuck) * STEP_NS,
                         "misfit_ns": int(misfit.sum()) * STEP_NS,
                         "misfit_stuck_ns": int((misfit & fitting_idle).sum()) * STEP_NS,
                         "waiting_stuck_ns": int((waiting & fitting_idle).sum()) * STEP_NS}
    return out


def _longest_run(flags):
    """The longest stretch of consecutive True in flags."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], np.asarray(flags, np.int8), [0]))))
    return int((edges[1::2] - edges[::2]).max()) if len(edges) else 0


def compute(ctx):
    """({'pid': stuck figures}, {pid: the same})."""
    out = stuck(ctx.run, ctx.slices, ctx.t0, ctx.t1)
    return {str(pid): s for pid, s in out.items()}, out


def plot_util(result, path):
    """Each thread's PELT util over time against the fit line of each CPU type."""
    from .plots import TYPE_COLOURS, TYPE_NAMES, plt, save  # pylint: disable=import-outside-toplevel
    run, sl = result.run, result.data["slices"]
    pelt = run.tables["pelt_se"]
    t0, t1 = (sl["start"].min(), sl["end"].max()) if len(sl) else (0, 1)
    fig, ax = plt.subplots(figsize=(10, 3.5))
    for pid, thread, task in zip(run.threads["pid"], run.threads["thread"], run.threads["task"]):
        rows = pelt[(pelt["pid"] == pid) & (pelt["ts"] >= t0) & (pelt["ts"] <= t1)]
        if len(rows):
            ax.step((rows["ts"] - t0) / 1e9, rows["util"], where="post", linewidth=0.8,
                    label=f"{task} [{thread}]")
    for kind, cap in {(c.type, c.capacity) for c in run.platform.cpus}:
        ax.axhline(cap * 1024 / 1280, color=TYPE_COLOURS[kind], linestyle="--", linewidth=0.8)
        ax.text(0, cap * 1024 / 1280, f" fits {TYPE_NAMES[kind]} below", color=TYPE_COLOURS[kind],
                fontsize=7, va="bottom")
    ax.set_xlabel("time since the profile started (s)")
    ax.set_ylabel("util_avg")
    ax.legend(fontsize=7, ncol=4)
    ax.set_title("Task utilization vs capacity")
    return save(fig, path)


METRIC = Metric("stuck", compute, EVENTS, thread_key="stuck",
                figures=(Figure("util.png", "util", plot_util, per_run=True),))
