"""Trace properties the fair-push tests check, from a run's tables (the C reader's
CSV files: build/analysis/eas-trace-reader TRACE.DAT OUTDIR).

Times are the trace's own (guest CLOCK_MONOTONIC, ns); nothing here reads a host
clock. Intervals are half-open [start, end) pairs of int64 arrays.

The placement of capped threads (tests/guest/test_push.py (a)), as the issue
defines it: where each thread is (running or queued: the CPU it was last switched
in on or moved to, none once it sleeps or exits), and over the time all of them
run (from the first thread's start to the first thread's end), after each
thread's settling window:
  - its run time on P-cores (the CPUs of the highest capacity);
  - piles: two or more settled threads on one CPU while another CPU of the same
    capacity, which they may use, holds none of them (settled or not);
each split by whether the root domain was overutilized (eas_overutilized), when
load balance, not push, places tasks.
"""
import os
import re
import subprocess

import numpy as np
import pandas as pd

from contract.paths import READER, TOP
from easan.push import is_push_reason
from easan.schedule import step_at
# sched_switch prev_state of a task switched out still runnable: R, R+ (preempted).
RUNNABLE_STATES = (0, 256)
SETTLE_NS = 50_000_000


def tables(run_dir):
    """{name: DataFrame} of the run's trace tables (written once, next to the trace)."""
    out = os.path.join(run_dir, "push-tables")
    if not os.path.exists(os.path.join(out, "meta.csv")):
        os.makedirs(out, exist_ok=True)
        subprocess.run([READER, os.path.join(run_dir, "trace.dat"), out], check=True,
                       capture_output=True, timeout=300)
    return {f[:-4]: pd.read_csv(os.path.join(out, f)) for f in os.listdir(out)
            if f.endswith(".csv")}


def capacities(run_dir):
    """{cpu: capacity_orig} from the run's eas_cpu_capacity events."""
    cap = tables(run_dir)["capacity"]
    return {int(c): int(v) for c, v in cap.groupby("cpu")["capacity_orig"].max().items()}


def hz():
    """CONFIG_HZ of the guest kernels (guest/kernel/config/guest.config)."""
    with open(os.path.join(TOP, "guest", "kernel", "config", "guest.config"), encoding="utf-8") as f:
        return int(re.search(r"^CONFIG_HZ_(\d+)=y", f.read(), re.M).group(1))


def threads(t, comm=None):
    """{pid: thread index} of the rt-app threads (by their markers), optionally only
    those whose last name was comm."""
    m = t["markers"]
    out = {int(p): int(i) for p, i in m.groupby("pid")["thread"].first().items()}
    if comm is not None:
        names = dict(zip(t["comm"]["pid"], t["comm"]["comm"]))
        out = {p: i for p, i in out.items() if names.get(p) == comm}
    return out


def marker_times(t, pid, kind):
    m = t["markers"]
    return np.sort(m[(m["pid"] == pid) & (m["kind"] == kind)]["ts"].to_numpy(np.int64))


def phase_begin(t, pid, phase):
    """When thread pid began phase (index in its profile) the first time."""
    m = t["markers"]
    ts = m[(m["pid"] == pid) & (m["kind"] == "begin") & (m["phase"] == phase)]["ts"]
    assert len(ts), f"thread {pid} never began phase {phase}"
    return int(ts.min())


def slices(t):
    """DataFrame pid, cpu, start, end: who ran where, from sched_switch, by start."""
    sw = t["switch"].sort_values("ts", kind="stable")
    rows = []
    for cpu, g in sw.groupby("cpu"):
        ts = g["ts"].to_numpy(np.int64)
        nxt = g["next_pid"].to_numpy(np.int64)
        rows.append(pd.DataFrame({"pid": nxt[:-1], "cpu": cpu, "start": ts[:-1], "end": ts[1:]}))
    return pd.concat(rows, ignore_index=True).sort_values("start", kind="stable",
                                                         ignore_index=True)


def where(t, pid):
    """(ts, cpu) step function of the CPU a thread is on, running or queued; -1 while it
    sleeps or after it exits."""
    sw = t["switch"]
    ev = [pd.DataFrame({"ts": sw[sw["next_pid"] == pid]["ts"], "cpu": sw[sw["next_pid"] == pid]["cpu"]})]
    out = sw[(sw["prev_pid"] == pid) & ~sw["prev_state"].isin(RUNNABLE_STATES)]
    ev.append(pd.DataFrame({"ts": out["ts"], "cpu": -1}))
    mig = t["migrate"][t["migrate"]["pid"] == pid]
    ev.append(pd.DataFrame({"ts": mig["ts"], "cpu": mig["dest_cpu"]}))
    wk = t["wakeup"][(t["wakeup"]["pid"] == pid) & (t["wakeup"]["kind"] != "waking")]
    ev.append(pd.DataFrame({"ts": wk["ts"], "cpu": wk["target_cpu"]}))
    ex = t["exit"][t["exit"]["pid"] == pid]
    ev.append(pd.DataFrame({"ts": ex["ts"], "cpu": -1}))
    ev = pd.concat(ev).sort_values("ts", kind="stable")
    return ev["ts"].to_numpy(np.int64), ev["cpu"].to_numpy(np.int64)


def overutilized(t, t0, t1):
    """Intervals of [t0, t1) while the root domain was overutilized (the state of the
    last eas_overutilized event; not overutilized before the first)."""
    ou = t["overutil"].sort_values("ts", kind="stable")
    ts, v = ou["ts"].to_numpy(np.int64), ou["overutilized"].to_numpy(np.int64)
    cuts = np.unique(np.concatenate([[t0], ts[(ts > t0) & (ts < t1)]]))
    on = step_at(ts, v, cuts, 0) != 0
    ends = np.append(cuts[1:], t1)
    return cuts[on], ends[on]


def overlap(starts, ends, a, b):
    """Total length of [a, b) covered by the disjoint intervals."""
    return int(np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0, None).sum())


def merged(starts, ends, extend=0):
    """Sorted disjoint intervals, each first extended by extend ns at its end."""
    out_s, out_e = [], []
    for a, b in zip(starts, ends + extend):
        if out_e and a <= out_e[-1]:
            out_e[-1] = max(out_e[-1], b)
        else:
            out_s.append(a)
            out_e.append(b)
    return np.array(out_s, np.int64), np.array(out_e, np.int64)


def placed_at(t, pid):
    """The sorted times pid was placed anew: its wakeups (sched_waking, delayed requeues
    included) and the push's moves of it."""
    w = t["wakeup"]
    m = t["migrate"]
    times = np.concatenate([w[(w["pid"] == pid) & (w["kind"] == "waking")]["ts"].to_numpy(np.int64),
                            m[(m["pid"] == pid) & m["reason"].map(is_push_reason)]["ts"]
                            .to_numpy(np.int64)])
    return np.sort(times)


def capped_placement(run_dir, comm, settle_ns=SETTLE_NS, grace_ns=0, from_phase=0,
                     hold_ns=0):
    """The placement of the threads named comm (see the module's docstring):
    {'window': (t0, t1), 'threads': n, 'run_ns', 'p_ns' (whole window, from each
    thread's start), 'settled_run_ns', 'settled_p_ns', 'settled_p_ns_not_ou' (run
    on P-cores after settling while not overutilized), 'settled_on_p_ns_not_ou'
    (thread time on a P-core, running or queued, after settling while not
    overutilized, summed over threads), 'pile_ns', 'pile_ns_not_ou'
    (settled piles), 'ou_ns' (window time overutilized), 'ou_share', 'p_threads_end'
    (threads on a P-core at the window's end), 'piles' (the first few pile
    intervals outside overutilized: (start, end, cpu, pids)), 'free_ns' (the
    window's time counted as not overutilized), 'p_stretches' ((pid, cpu, start,
    end, updates): a settled thread on one P-core while not overutilized, with its
    load updates running there, running_updates()), 'pile_stretches' ((pids, cpu,
    start, end, updates), shaped like p_stretches: a pile while not overutilized, with the most load updates
    one of its threads made running there), 'max_p_updates', 'max_pile_updates'}.
    The updates count what the CPU did (ticks), not guest time. With grace_ns, "not overutilized"
    also leaves out grace_ns after each overutilized stretch: the time a push gets
    to act on what load balance did meanwhile once the flag clears. With from_phase,
    a thread settles settle_ns after it began that phase of its profile (rt-app's
    begin marker), not after its first run. With hold_ns, a thread is not settled
    either for hold_ns after each time it was placed anew (placed_at()): the time the
    push leaves a task to the placement that woke or moved it (the stretches and piles
    only; the shares keep settle_ns alone)."""
    t = tables(run_dir)
    caps = capacities(run_dir)
    ncpu = max(caps) + 1
    top = max(caps.values())
    p_cpus = [c for c, v in caps.items() if v == top]
    pids = sorted(threads(t, comm))
    assert pids, f"no rt-app thread named {comm} in {run_dir}"
    sl = slices(t)
    first = {p: int(sl[sl["pid"] == p]["start"].min()) for p in pids}
    t0 = min(first.values())
    if from_phase:
        first = {p: phase_begin(t, p, from_phase) for p in pids}
    ends = [marker_times(t, p, "end") for p in pids]
    t1 = min(int(e[-1]) if len(e) else int(t["meta"].set_index("key").loc["last_ts", "value"])
             for e in ends)
    ou_raw = overutilized(t, t0, t1)
    # The time excluded: overutilized, and grace_ns after it ends.
    ou_s, ou_e = merged(*ou_raw, grace_ns)
    ou_e = np.minimum(ou_e, t1)

    run_ns = p_ns = s_run = s_p = s_p_nou = 0
    for p in pids:
        mine = sl[(sl["pid"] == p) & (sl["end"] > t0) & (sl["start"] < t1)]
        a = np.maximum(mine["start"].to_numpy(np.int64), t0)
        b = np.minimum(mine["end"].to_numpy(np.int64), t1)
        on_p = mine["cpu"].isin(p_cpus).to_numpy()
        run_ns += int((b - a).sum())
        p_ns += int((b - a)[on_p].sum())
        sa = np.maximum(a, first[p] + settle_ns)
        d = np.clip(b - sa, 0, None)
        s_run += int(d.sum())
        s_p += int(d[on_p].sum())
        s_p_nou += int(sum(max(0, y - x) - overlap(ou_s, ou_e, x, y)
                           for x, y in zip(sa[on_p], b[on_p]) if y > x))

    # Piles, on the times where anything changes.
    pos = {p: where(t, p) for p in pids}
    placed = {p: placed_at(t, p) for p in pids} if hold_ns else {}
    cuts = [np.array([t0], np.int64)] + [ts for ts, _ in pos.values()] + \
        [np.array([first[p] + settle_ns for p in pids], np.int64), ou_s, ou_e] + \
        [w + hold_ns for w in placed.values()]
    times = np.unique(np.concatenate(cuts))
    times = times[(times >= t0) & (times < t1)]
    dur = np.diff(np.append(times, t1))
    on = np.stack([step_at(*pos[p], times) for p in pids], axis=1)
    settled = times[:, None] >= np.array([first[p] + settle_ns for p in pids])[None, :]
    for i, p in enumerate(pids):
        w = placed.get(p)
        if w is not None and len(w):
            k = np.searchsorted(w, times, side="right") - 1
            settled[:, i] &= ~((k >= 0) & (times - w[np.maximum(k, 0)] < hold_ns))
    holds = np.zeros((len(times), ncpu), int)
    piled = np.zeros((len(times), ncpu), int)
    for i in range(len(pids)):
        k = on[:, i] >= 0
        np.add.at(holds, (np.flatnonzero(k), on[k, i]), 1)
        k &= settled[:, i]
        np.add.at(piled, (np.flatnonzero(k), on[k, i]), 1)
    same = np.array([[c2 != c and caps[c2] == caps[c] for c2 in range(ncpu)] for c in range(ncpu)])
    free_sibling = ((holds == 0)[:, None, :] & same[None, :, :]).any(axis=2)
    pile = (piled >= 2) & free_sibling
    any_pile = pile.any(axis=1)
    in_ou = _inside(ou_s, ou_e, times)
    piles = []
    for k in np.flatnonzero(any_pile & ~in_ou)[:10]:
        cpu = int(np.flatnonzero(pile[k])[0])
        piles.append((int(times[k]), int(times[k] + dur[k]), cpu,
                      [p for i, p in enumerate(pids) if on[k, i] == cpu]))
    on_p = np.isin(on, p_cpus) & settled
    on_p_nou = int((on_p.sum(axis=1) * dur)[~in_ou].sum())

    def runs(cond):
        """[(first row, last row)] of the maximal runs of True."""
        edges = np.flatnonzero(np.diff(np.concatenate([[0], cond.astype(int), [0]])))
        return list(zip(edges[::2], edges[1::2] - 1))

    # Stretches outside overutilized: a settled thread on one P-core; a pile on one
    # CPU. Each with the most load updates a thread made running there (ticks).
    p_stretches, pile_stretches = [], []
    for i, p in enumerate(pids):
        for c in p_cpus:
            for k0, k1 in runs((on[:, i] == c) & settled[:, i] & ~in_ou):
                a, b = int(times[k0]), int(times[k1] + dur[k1])
                p_stretches.append((p, c, a, b, running_updates(t, p, c, a, b)))
    for c in range(ncpu):
        for k0, k1 in runs(pile[:, c] & ~in_ou):
            a, b = int(times[k0]), int(times[k1] + dur[k1])
            there = sorted({p for i, p in enumerate(pids) if (on[k0:k1 + 1, i] == c).any()})
            pile_stretches.append((tuple(there), c, a, b,
                                   max(running_updates(t, p, c, a, b) for p in there)))
    ou_ns = int((ou_raw[1] - ou_raw[0]).sum())
    return {"settled_on_p_ns_not_ou": on_p_nou, "free_ns": int(t1 - t0 - (ou_e - ou_s).sum()),
            "window": (t0, t1), "threads": len(pids), "run_ns": run_ns, "p_ns": p_ns,
            "settled_run_ns": s_run, "settled_p_ns": s_p, "settled_p_ns_not_ou": s_p_nou,
            "pile_ns": int(dur[any_pile].sum()), "pile_ns_not_ou": int(dur[any_pile & ~in_ou].sum()),
            "ou_ns": ou_ns, "ou_share": ou_ns / (t1 - t0),
            "p_threads_end": int(np.isin(on[-1], p_cpus).sum()), "piles": piles,
            "p_stretches": p_stretches, "pile_stretches": pile_stretches,
            "max_p_updates": max((x[-1] for x in p_stretches), default=0),
            "max_pile_updates": max((x[-1] for x in pile_stretches), default=0)}


def _inside(starts, ends, times):
    """Whether each time is inside one of the sorted disjoint intervals."""
    k = np.searchsorted(starts, times, side="right") - 1
    return (k >= 0) & (times < np.where(k >= 0, ends[np.maximum(k, 0)], 0))


def throttled(t, pid):
    """Intervals during which thread pid was throttled, as the trace shows it: switched
    out still runnable (R, R+) on a CPU that then ran its idle task before the thread
    ran or moved again, from that switch to idle (the thread's own switch-out when
    its hierarchy was throttled right there) to the end of the idle spell. A fair task
    that is runnable and not throttled never leaves its CPU to the idle task
    (pick_next_task() would take it again), and a move by another path would have
    switched to the stopper, not to idle; once the CPU leaves idle (at the latest
    when the period's unthrottle kicks it) nothing is known any more."""
    sw = t["switch"].sort_values("ts", kind="stable")
    outs = sw[(sw["prev_pid"] == pid) & sw["prev_state"].isin(RUNNABLE_STATES)]
    ins = np.sort(sw[sw["next_pid"] == pid]["ts"].to_numpy(np.int64))
    mig = np.sort(t["migrate"][t["migrate"]["pid"] == pid]["ts"].to_numpy(np.int64))
    idle_in = {c: g["ts"].to_numpy(np.int64) for c, g in sw[sw["next_pid"] == 0].groupby("cpu")}
    idle_out = {c: g["ts"].to_numpy(np.int64) for c, g in sw[sw["prev_pid"] == 0].groupby("cpu")}
    starts, ends = [], []
    for ts, cpu in zip(outs["ts"].to_numpy(np.int64), outs["cpu"].to_numpy(np.int64)):
        k = np.searchsorted(ins, ts, side="right")
        m = np.searchsorted(mig, ts, side="left")
        until = min(ins[k] if k < len(ins) else np.iinfo(np.int64).max,
                    mig[m] if m < len(mig) else np.iinfo(np.int64).max)
        i = idle_in.get(cpu, np.array([], np.int64))
        j = np.searchsorted(i, ts, side="left")
        if j == len(i) or i[j] >= until:
            continue
        o = idle_out.get(cpu, np.array([], np.int64))
        x = np.searchsorted(o, i[j], side="right")
        end = min(until, o[x]) if x < len(o) else until
        if end == np.iinfo(np.int64).max:
            continue
        starts.append(i[j])
        ends.append(end)
    return np.array(starts, np.int64), np.array(ends, np.int64)


def inside(starts, ends, times):
    """Whether each time lies in one of the sorted disjoint intervals [start, end)."""
    return _inside(np.asarray(starts, np.int64), np.asarray(ends, np.int64),
                   np.asarray(times, np.int64))


def running_updates(t, pid, cpu, a, b, exclude=None):
    """The thread's load-tracking updates (eas_pelt_se) on cpu in [a, b) while it was
    running there: one per scheduler tick it ran through, plus the one at its
    put-back. A vCPU that the host does not run processes no tick, however much
    guest time passes, so these count what the CPU did, not the time. exclude:
    intervals (starts, ends) whose updates do not count."""
    pe = t["pelt_se"]
    ts = pe[(pe["pid"] == pid) & (pe["cpu"] == cpu) & (pe["ts"] >= a) & (pe["ts"] < b)]["ts"]
    sl = t.setdefault("_slices", slices(t))
    mine = sl[(sl["pid"] == pid) & (sl["cpu"] == cpu) & (sl["end"] > a) & (sl["start"] < b)]
    ts = ts.to_numpy(np.int64)
    on = np.zeros(len(ts), bool)
    for x, y in zip(mine["start"].to_numpy(np.int64), mine["end"].to_numpy(np.int64)):
        on |= (ts >= x) & (ts < y)
    if exclude is not None and len(exclude[0]):
        on &= ~_inside(exclude[0], exclude[1], ts)
    return int(on.sum())
