"""Who ran where and when: CPU slices from sched_switch, and the profile's window."""
import numpy as np
import pandas as pd

# sched_switch prev_state of a task that stays runnable: TASK_RUNNING, or
# TASK_REPORT_MAX, which the event reports for a preempted task.
RUNNABLE_STATES = (0, 0x100)


def slices(tables, t_end):
    """DataFrame cpu, start, end, pid: pid ran on cpu over [start, end)."""
    sw = tables["switch"].sort_values(["cpu", "ts"], kind="stable")
    start = sw["ts"].to_numpy()
    cpu = sw["cpu"].to_numpy()
    end = np.empty_like(start)
    if len(start):
        end[:-1] = start[1:]
        end[-1] = t_end
        last = np.append(cpu[1:] != cpu[:-1], True)
        end[last] = t_end
    return pd.DataFrame({"cpu": cpu, "start": start, "end": end,
                         "pid": sw["next_pid"].to_numpy()})


def window(tables, pids):
    """(t0, t1): from the first loop a profile thread begins to the last it ends."""
    mk = tables["markers"]
    mine = mk[mk["pid"].isin(pids)]
    begins = mine[mine["kind"] == "begin"]["ts"]
    ends = mine[mine["kind"] == "end"]["ts"]
    meta = dict(zip(tables["meta"]["key"], tables["meta"]["value"]))
    t0 = int(begins.min()) if len(begins) else int(meta["first_ts"])
    t1 = int(ends.max()) if len(ends) else int(meta["last_ts"])
    return t0, max(t1, t0)


def clip(sl, t0, t1):
    """Slices cut to [t0, t1), empty ones dropped."""
    out = sl.copy()
    out["start"] = out["start"].clip(lower=t0, upper=t1)
    out["end"] = out["end"].clip(lower=t0, upper=t1)
    return out[out["end"] > out["start"]].reset_index(drop=True)


def step_at(ts, values, at, before=-1):
    """The value of a step function at each time of `at`: values[j] holds from ts[j]
    (sorted) on, `before` before ts[0]."""
    k = np.searchsorted(ts, at, side="right") - 1
    return np.where(k >= 0, values[np.maximum(k, 0)], before)


def overutilized_at(tables, at):
    """Boolean per time of `at`: the root domain overutilized then, the state of the
    last eas_overutilized event at or before it (not overutilized before the first)."""
    ou = tables["overutil"].sort_values("ts", kind="stable")
    return step_at(ou["ts"].to_numpy(np.int64), ou["overutilized"].to_numpy(np.int64),
                   np.asarray(at, dtype=np.int64), 0) != 0


def waits(tables, pid):
    """DataFrame start, end, began, ran: pid's waits, runnable and not running, each from
    a wakeup while it was not running (began 'wakeup' or 'new') or a switch-out that
    left it runnable ('preempted') to its next switch-in; end is NaN for a wait the
    trace ends in. ran: for a 'preempted' wait, how long it had run since its switch-in
    (NaN when that is not in the trace, and for the other waits). A wakeup while it
    runs (try_to_wake_up() before the task got to schedule()) begins no wait, nor does
    a start while it waits. At one time, a switch-in comes before a switch-out, and
    both before a wakeup."""
    wk = tables["wakeup"]
    wk = wk[(wk["pid"] == pid) & wk["kind"].isin(["wakeup", "new"])]
    sw = tables["switch"]
    outs = sw[sw["prev_pid"] == pid]
    events = sorted([(int(t), 0, "in") for t in sw[sw["next_pid"] == pid]["ts"]]
                    + [(int(t), 1, "preempted" if runnable else "out") for t, runnable in
                       zip(outs["ts"], outs["prev_state"].isin(RUNNABLE_STATES))]
                    + [(int(t), 2, k) for t, k in zip(wk["ts"], wk["kind"])])
    rows, open_, last_in, running = [], None, None, False
    for t, _, what in events:
        if what == "in":
            if open_:
                rows.append((open_[0], t, *open_[1:]))
                open_ = None
            last_in, running = t, True
        elif what in ("out", "preempted"):
            running = False
            if what == "preempted" and open_ is None:
                open_ = (t, what, t - last_in if last_in is not None else np.nan)
        elif not running and open_ is None:
            open_ = (t, what, np.nan)
    if open_:
        rows.append((open_[0], np.nan, *open_[1:]))
    return pd.DataFrame(rows, columns=["start", "end", "began", "ran"]).astype(
        {"start": np.int64, "end": float, "ran": float})


def running_at(sl, times, ncpus):
    """Array [len(times), ncpus] of the pid running on each CPU at each time (-1: unknown)."""
    out = np.full((len(times), ncpus), -1, dtype=np.int64)
    for cpu in range(ncpus):
        s = sl[sl["cpu"] == cpu]
        if s.empty:
            continue
        starts = s["start"].to_numpy()
        idx = np.searchsorted(starts, times, side="right") - 1
        ok = idx >= 0
        ends = s["end"].to_numpy()
        ok[ok] &= times[ok] < ends[idx[ok]]
        out[ok, cpu] = s["pid"].to_numpy()[idx[ok]]
    return out


def queued_on(tables, pids):
    """{pid: (ts, cpu)}: from each ts on, the CPU whose runqueue holds the thread
    (running or waiting there), -1 while it sleeps or before it is seen.

    A switch-in puts it on that CPU, a switch-out keeps it there if it stays
    runnable (RUNNABLE_STATES) and takes it off otherwise, a wakeup puts it on the
    target CPU, a migration moves it to the destination (runnable or not)."""
    sw, wk, mig = tables["switch"], tables["wakeup"], tables["migrate"]
    mig = mig[mig["pid"].isin(pids)]
    wk = wk[wk["kind"].isin(["wakeup", "new"]) & wk["pid"].isin(pids)]
    outs, ins = sw[sw["prev_pid"].isin(pids)], sw[sw["next_pid"].isin(pids)]
    parts = [  # (ts, pid, cpu, runnable: 1, 0 or NaN for unchanged, order at equal ts)
        (mig["ts"], mig["pid"], mig["dest_cpu"], np.nan, 0),
        (wk["ts"], wk["pid"], wk["target_cpu"], 1.0, 1),
        (outs["ts"], outs["prev_pid"], outs["cpu"],
         outs["prev_state"].isin(RUNNABLE_STATES).astype(float).to_numpy(), 2),
        (ins["ts"], ins["next_pid"], ins["cpu"], 1.0, 3),
    ]
    ev = pd.concat([pd.DataFrame({"ts": ts.to_numpy(), "pid": pid.to_numpy(), "cpu": cpu.to_numpy(),
                                  "runnable": runnable, "order": order})
                    for ts, pid, cpu, runnable, order in parts])
    ev = ev.sort_values(["pid", "ts", "order"], kind="stable")
    ev["runnable"] = ev.groupby("pid")["runnable"].ffill().fillna(0)
    on = np.where(ev["runnable"].to_numpy() > 0, ev["cpu"].to_numpy(), -1)
    ev = ev.assign(on=on)
    out = {int(p): (g["ts"].to_numpy(np.int64), g["on"].to_numpy(np.int64))
           for p, g in ev.groupby("pid")}
    empty = np.zeros(0, np.int64)
    return {int(p): out.get(int(p), (empty, empty)) for p in pids}
