"""Every metric of one run, as one JSON-ready dict (the report's metrics.json)."""
from . import energy, fidelity, fitness, latency, migrations, reaction, residency, schedule
from . import verdict
from . import power_model


def _by_reason(decisions, traced):
    """{heuristic: how many times it overrode mainline's CPU choice}; None when the
    kernel has no eas_placement_decision event (base), where nothing could be counted."""
    if not traced:
        return None
    return {str(r): int(n) for r, n in sorted(decisions["reason"].value_counts().items())}


def compute(run):
    """(metrics dict, intermediate tables the plots reuse)."""
    t_end = int(run.meta["last_ts"])
    all_slices = schedule.slices(run.tables, t_end)
    t0, t1 = schedule.window(run.tables, run.pids)
    sl = schedule.clip(all_slices, t0, t1)
    mig = migrations.table(run, t0, t1)
    # Moves no cause explains, over the whole trace: a path that does not report
    # its moves shows here also when it runs before or after the window.
    unexplained = migrations.table(run, 0, t_end)
    unexplained = unexplained[unexplained["cause"] == "unknown"]
    res = residency.per_task(run, sl)
    work = residency.work(run, res)
    lat = latency.wakeup_latencies(run, t0, t1)
    delayed = run.tables["delayed"]
    delayed = delayed[delayed["pid"].isin(run.pids) & (delayed["ts"] >= t0) & (delayed["ts"] <= t1)]
    decisions = run.tables["decision"]
    decisions = decisions[decisions["pid"].isin(run.pids) & (decisions["ts"] >= t0)
                          & (decisions["ts"] <= t1)]
    # The reader counts -1 for an event the trace's kernel does not have.
    traced = int(run.meta.get("events.eas_placement_decision", 0)) >= 0
    reactions_by_pid, reactions = reaction.compute(run, t0, t1)

    tasks = {}
    for pid, thread, task in zip(run.threads["pid"], run.threads["thread"], run.threads["task"]):
        pid = int(pid)
        tasks[str(pid)] = {
            "task": task, "thread": int(thread),
            "residency_ns": res[pid],
            "work_ns": work[pid],
            "migrations": migrations.counts(mig[mig["pid"] == pid]),
            "wakeup_latency_ns": latency.summary(lat[lat["pid"] == pid]["latency"]),
            "delayed_wakeups": int((delayed["pid"] == pid).sum()),
            "placement_decisions": _by_reason(decisions[decisions["pid"] == pid], traced),
            "reaction": None if reactions_by_pid is None else reactions_by_pid[pid],
        }
    by_type = {}
    for r in res.values():
        for kind, ns in r["type"].items():
            by_type[kind] = by_type.get(kind, 0) + ns
    total = sum(by_type.values())
    stuck = fitness.stuck(run, sl, t0, t1)
    for pid, s in stuck.items():
        tasks[str(pid)]["stuck"] = s
    speed_rows = fidelity.speeds(run, sl)
    m = {
        "run": run.name,
        "label": run.label,
        "kernel": run.record.get("kernel"),
        "profile": run.record.get("profile"),
        "platform": run.platform.spec,
        "cmdline": run.record.get("cmdline"),
        "window_ns": [t0, t1],
        "trace": {"records": int(run.meta["records"]),
                  "lost_events": run.record.get("lost_events"),
                  "missed_events": int(run.meta["missed_events"])},
        "migrations": migrations.counts(mig),
        "unknown_moves": int(len(unexplained)),
        # Share of the profile's run time per CPU type.
        "residency_share": {k: (v / total if total else 0.0) for k, v in sorted(by_type.items())},
        "wakeup_latency_ns": latency.summary(lat["latency"]),
        "delayed_wakeups": int(len(delayed)),
        "placement_decisions": _by_reason(decisions, traced),
        "reaction": reactions,
        "slack": {str(k): v for k, v in latency.slack(run).items()},
        "stuck": {str(k): v for k, v in stuck.items()},
        "outside": residency.outside_share(run, sl),
        "energy": energy.estimate(run, sl, t0, t1),
        "power_model": power_model.DESCRIPTION,
        "faithful_speed": run.faithful,
        "fidelity": fidelity.summary(speed_rows, run.platform.ncpus,
                                     fidelity.expected_speed(run)),
        "tasks": tasks,
    }
    m["verdict"] = verdict.judge(m, run.platform.ncpus)
    return m, {"slices": sl, "migrations": mig, "latency": lat, "speeds": speed_rows}
