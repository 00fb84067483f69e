"""Every metric of one run, as one JSON-ready dict (the report's metrics.json)."""
from . import capped, energy, fidelity, fitness, latency, migrations, push, reaction, residency
from . import power_model, schedule, verdict
from .tables import count_by, of_profile, traced

# The placement heuristics eas_placement_decision names (enum sched_placement_reason
# but "none"): spare_tie (EAS_SPARE_TIE), fewer_runnable (EAS_FEWER_RUNNABLE).
PLACEMENT_REASONS = ("spare_tie", "fewer_runnable")


def compute(run, settle_ns=capped.SETTLE_NS):
    """(metrics dict, intermediate tables the plots reuse); settle_ns: the capped
    tasks' settling window (capped.py)."""
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
    delayed = of_profile(run.tables["delayed"], run.pids, t0, t1)
    decisions = of_profile(run.tables["decision"], run.pids, t0, t1)
    decided = traced(run.meta, "eas_placement_decision")
    pushes, pushes_by_pid = push.compute(run, mig, t0, t1)
    capped_run, capped_by_pid = capped.compute(run, sl, t0, t1, settle_ns)
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
            "placement_decisions": count_by(decisions[decisions["pid"] == pid], "reason", decided),
            "push": pushes_by_pid[pid],
            "reaction": None if reactions_by_pid is None else reactions_by_pid[pid],
        }
        if pid in capped_by_pid:
            tasks[str(pid)]["capped"] = capped_by_pid[pid]
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
        "placement_decisions": count_by(decisions, "reason", decided),
        "push": pushes,
        "capped": capped_run,
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
