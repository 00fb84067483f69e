"""Migrations of the profile's threads: direction by CPU type, and cause."""
import pandas as pd

from .causes import cause_of, ordered


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


def cause_matrix(mig):
    """Counts by cause (rows) and direction (columns), for the plot."""
    if mig.empty:
        return pd.DataFrame()
    return pd.crosstab(mig["cause"], mig["direction"])
