"""Where the profile's threads ran, and how much CPU went to anything else."""
import numpy as np

from . import compare
from .metric import Figure, Metric

EVENTS = ("sched_switch",)


def per_task(run, sl):
    """{pid: {'cpu': {cpu: ns}, 'type': {type: ns}, 'total': ns}} within the clipped slices."""
    out = {}
    mine = sl[sl["pid"].isin(run.pids)]
    dur = mine["end"] - mine["start"]
    for (pid, cpu), ns in dur.groupby([mine["pid"], mine["cpu"]]).sum().items():
        entry = out.setdefault(int(pid), {"cpu": {}, "type": {}, "total": 0})
        entry["cpu"][int(cpu)] = int(ns)
        kind = run.platform.type_of(int(cpu))
        entry["type"][kind] = entry["type"].get(kind, 0) + int(ns)
        entry["total"] += int(ns)
    for pid in run.pids:
        out.setdefault(int(pid), {"cpu": {}, "type": {}, "total": 0})
    return out


def busy(sl):
    """(the slices in which a CPU was busy, idle (pid 0) left out; their lengths in ns)."""
    on = sl[sl["pid"] != 0]
    return on, on["end"] - on["start"]


def busy_by_cpu(run, sl):
    """{cpu: busy ns} of every CPU of the platform within the (clipped) slices."""
    on, dur = busy(sl)
    per_cpu = dur.groupby(on["cpu"]).sum()
    return {c: int(per_cpu.get(c, 0)) for c in range(run.platform.ncpus)}


def outside_share(run, sl):
    """Share of busy CPU time taken by tasks outside the profile (idle excluded)."""
    busy_sl, dur = busy(sl)
    total = int(dur.sum())
    outside = int(dur[~busy_sl["pid"].isin(run.pids)].sum())
    return {"busy_ns": total, "outside_ns": outside,
            "share": (outside / total) if total else 0.0}


def work(run, res):
    """Work each thread got, in ns of a capacity-1024 CPU at full speed: run time x the
    CPU's speed (Run.speeds), as energy.py counts it. With capacity-faithful speed a
    CPU of capacity cap delivers cap/1024 of a capacity-1024 CPU's work per ns;
    without it every vCPU runs at the host's speed, and run time is work."""
    speeds = run.speeds
    return {pid: sum(ns * speeds[cpu] for cpu, ns in r["cpu"].items())
            for pid, r in res.items()}


def compute(ctx):
    """(share of the profile's run time per CPU type, {pid: per_task()})."""
    res = ctx.residency
    by_type = {}
    for r in res.values():
        for kind, ns in r["type"].items():
            by_type[kind] = by_type.get(kind, 0) + ns
    total = sum(by_type.values())
    return {k: (v / total if total else 0.0) for k, v in sorted(by_type.items())}, res


def plot(result, path):
    """Stacked bars: each thread's run time per CPU."""
    from .plots import TYPE_COLOURS, TYPE_NAMES, plt, save  # pylint: disable=import-outside-toplevel
    run = result.run
    tasks = sorted(result.metrics["tasks"].values(), key=lambda t: t["thread"])
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(tasks) + 1.5))
    left = np.zeros(len(tasks))
    for c in run.platform.cpus:
        vals = np.array([t["residency_ns"]["cpu"].get(c.cpu, 0) / 1e9 for t in tasks])
        shade = 0.55 + 0.45 * (c.cpu % 2)
        ax.barh(range(len(tasks)), vals, left=left, color=TYPE_COLOURS[c.type], alpha=shade,
                label=f"CPU {c.cpu} ({TYPE_NAMES[c.type]}, {c.capacity})")
        left += vals
    ax.set_yticks(range(len(tasks)))
    ax.set_yticklabels([f"{t['task']} [{t['thread']}]" for t in tasks])
    ax.set_xlabel("run time (s)")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Residency per CPU")
    return save(fig, path)


RESIDENCY = Metric(
    "residency_share", compute, EVENTS, thread_key="residency_ns",
    figures=(Figure("residency.png", "residency", plot, per_run=True),),
    ab=(compare.Mean("run time on P-cores", ("residency_share", "p"), "%", 100),
        compare.Mean("run time on E-cores", ("residency_share", "e"), "%", 100)))
WORK = Metric(None, lambda ctx: (None, work(ctx.run, ctx.residency)), EVENTS,
              thread_key="work_ns")
OUTSIDE = Metric(
    "outside", lambda ctx: (outside_share(ctx.run, ctx.slices), None), EVENTS,
    rows=lambda o: [("CPU time outside the profile", f"{o['share']:.2%}")],
    label="CPU time outside the profile",
    ab=(compare.Mean("tasks outside the profile", ("outside", "share"), "%", 100),))
