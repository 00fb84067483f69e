"""Migrations of the profile's threads: direction by CPU type, and cause."""
import numpy as np
import pandas as pd

from . import compare
from .causes import ORDER, cause_of, ordered
from .metric import Figure, Metric

# sched_migrate_task names the move; eas_migrate_reason, its cause, is optional: a move
# no reason announced is "unknown" (a kernel without the event has only those).
EVENTS = ("sched_migrate_task",)


def table(run, t0, t1):
    """DataFrame ts, pid, task, orig_cpu, dest_cpu, direction, reason, cause."""
    mig = run.tables["migrate"]
    mig = mig[mig["pid"].isin(run.pids) & (mig["ts"] >= t0) & (mig["ts"] <= t1)].copy()
    tasks = dict(zip(run.threads["pid"], run.threads["task"]))
    mig["task"] = mig["pid"].map(tasks)
    plat = run.platform
    mig["direction"] = [plat.direction(a, b) for a, b in zip(mig["orig_cpu"], mig["dest_cpu"])]
    mig["cause"] = [cause_of(r) for r in mig["reason"]]
    return mig[["ts", "pid", "task", "orig_cpu", "dest_cpu", "direction", "reason", "cause"]] \
        .reset_index(drop=True)


def counts(mig):
    """{'total', 'same', 'up', 'down', 'by_cause': {cause: n}, 'by_reason': {...},
    'by_reason_direction': {reason: {'same', 'up', 'down'}}}.

    The last says, for instance, whether wakeup decisions moved work E->P or back.
    """
    by_cause = {c: int((mig["cause"] == c).sum()) for c in ordered(mig["cause"])}
    return {
        "total": int(len(mig)),
        "same": int((mig["direction"] == "same").sum()),
        "up": int((mig["direction"] == "up").sum()),
        "down": int((mig["direction"] == "down").sum()),
        "by_cause": by_cause,
        "by_reason": {r: int(n) for r, n in mig["reason"].value_counts().sort_index().items()},
        "by_reason_direction": {
            r: {d: int((grp["direction"] == d).sum()) for d in ("same", "up", "down")}
            for r, grp in mig.groupby("reason", sort=True)},
    }


def per_task(mig, pids):
    return {int(pid): counts(mig[mig["pid"] == pid]) for pid in pids}


def compute(ctx):
    """The window's counts, the run's and each thread's."""
    mig = ctx.migrations
    return counts(mig), per_task(mig, ctx.run.pids)


def unknown_moves(ctx):
    """Moves of profile threads no cause explains, over the whole trace: a path that
    does not report its moves shows here also when it runs before or after the window."""
    whole = table(ctx.run, 0, ctx.t_end)
    return int((whole["cause"] == "unknown").sum()), None


def _reasons(mg):
    """'wakeup: 3 (1 / 2 / 0), ...': each kernel reason with its directions."""
    dirs = mg["by_reason_direction"]
    return ", ".join(f"{r}: {n} ({dirs[r]['same']} / {dirs[r]['up']} / {dirs[r]['down']})"
                     for r, n in mg["by_reason"].items()) or "none"


def rows(mg):
    return [("migrations (same-type / up / down)",
             f"{mg['total']} ({mg['same']} / {mg['up']} / {mg['down']})"),
            ("by cause", ", ".join(f"{c}: {n}" for c, n in mg["by_cause"].items()) or "none"),
            ("by kernel reason (same / up / down)", _reasons(mg))]


def cause_matrix(mig):
    """Counts by cause (rows) and direction (columns), for the plot."""
    if mig.empty:
        return pd.DataFrame()
    return pd.crosstab(mig["cause"], mig["direction"])


def plot_causes(results, path):
    """Migrations by cause, one group of bars per run."""
    from .plots import plt, save  # pylint: disable=import-outside-toplevel
    fig, ax = plt.subplots(figsize=(8, 3.5))
    runs = [r.metrics for r in results]
    present = ordered(c for m in runs for c in m["migrations"]["by_cause"]) or ["wakeup"]
    width = 0.8 / max(len(runs), 1)
    for i, m in enumerate(runs):
        vals = [m["migrations"]["by_cause"].get(c, 0) for c in present]
        ax.bar(np.arange(len(present)) + i * width, vals, width, label=f"{m['label']} ({m['run']})")
    ax.set_xticks(np.arange(len(present)) + width * (len(runs) - 1) / 2)
    ax.set_xticklabels(present)
    ax.set_ylabel("migrations")
    ax.set_title("Migrations of the profile's threads by cause")
    ax.legend(fontsize=7)
    return save(fig, path)


def plot_timeline(result, path):
    """Per-thread CPU timeline, coloured by CPU type, migrations marked by cause."""
    from .plots import TYPE_COLOURS, TYPE_NAMES, cause_colour, plt, save  # pylint: disable=import-outside-toplevel
    run, sl, mig = result.run, result.data["slices"], result.data["migrations"]
    threads = run.threads.sort_values("thread")
    t0 = sl["start"].min() if len(sl) else 0
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(threads) + 1.6))
    for row, (pid, thread, task) in enumerate(zip(threads["pid"], threads["thread"], threads["task"])):
        mine = sl[sl["pid"] == pid]
        for kind in TYPE_COLOURS:
            cpus = [c.cpu for c in run.platform.cpus if c.type == kind]
            part = mine[mine["cpu"].isin(cpus)]
            if len(part):
                ax.broken_barh(list(zip((part["start"] - t0) / 1e9, (part["end"] - part["start"]) / 1e9)),
                               (row - 0.35, 0.7), color=TYPE_COLOURS[kind], linewidth=0)
        moves = mig[mig["pid"] == pid]
        for cause, group in moves.groupby("cause"):
            ax.scatter((group["ts"] - t0) / 1e9, [row] * len(group), marker="|", s=160,
                       color=cause_colour(cause), zorder=3)
    ax.set_yticks(range(len(threads)))
    ax.set_yticklabels([f"{t} [{i}] pid {p}" for p, i, t in
                        zip(threads["pid"], threads["thread"], threads["task"])])
    ax.set_xlabel("time since the profile started (s)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in TYPE_COLOURS.items()
               if any(x.type == k for x in run.platform.cpus)]
    labels = [TYPE_NAMES[k] for k in TYPE_COLOURS if any(x.type == k for x in run.platform.cpus)]
    for cause in ordered(mig["cause"]):
        handles.append(plt.Line2D([], [], marker="|", linestyle="", markersize=12,
                                  color=cause_colour(cause)))
        labels.append(f"migration: {cause}")
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(threads) < 4 else -0.12),
              ncol=4, fontsize=8, frameon=False)
    ax.set_title(f"{run.name}: where each thread ran")
    return save(fig, path)


METRICS = (
    Metric("migrations", compute, EVENTS, thread_key="migrations", rows=rows,
           label="migrations",
           figures=(Figure("causes.png", "migrations by cause", plot_causes),
                    Figure("timeline.png", "timeline", plot_timeline, per_run=True)),
           ab=(compare.Mean("migrations", ("migrations", "total")),
               compare.Mean("same-type", ("migrations", "same")),
               compare.Mean("up (to bigger)", ("migrations", "up")),
               compare.Mean("down (to smaller)", ("migrations", "down")),
               compare.Counts("migrations", ("migrations", "by_cause"), order=tuple(ORDER)))),
    Metric("unknown_moves", unknown_moves, EVENTS,
           rows=lambda n: [("moves no cause explains, whole trace", str(n))],
           label="moves no cause explains, whole trace"),
)
