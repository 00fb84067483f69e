"""Where the profile's threads ran, and how much CPU went to anything else."""


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


def outside_share(run, sl):
    """Share of busy CPU time taken by tasks outside the profile (idle excluded)."""
    busy = sl[sl["pid"] != 0]
    dur = busy["end"] - busy["start"]
    total = int(dur.sum())
    outside = int(dur[~busy["pid"].isin(run.pids)].sum())
    return {"busy_ns": total, "outside_ns": outside,
            "share": (outside / total) if total else 0.0}


def work(run, res):
    """Work each thread got, in ns of a capacity-1024 CPU: run time x capacity/1024.

    In TCG every vCPU runs at the host's speed, so run time alone would credit
    an E-core with a P-core's work (see the machine notes)."""
    return {pid: sum(ns * run.platform.capacity(cpu) / 1024 for cpu, ns in r["cpu"].items())
            for pid, r in res.items()}
