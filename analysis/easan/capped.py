"""Where the capped tasks ran: the profile's threads while their util_max is below 1024.

Capped CPU-bound tasks never make the system overutilized, so no balance moves
them: wherever fork put them they stay, unless a push moves them. A thread is
capped while its util_max is below 1024 (Run.capped_spans(): the profile's
util_max from the start, a uclamp_change's from the moment it took effect); it
counts only then. Over the profile's window:

- p_share: their run time on the highest-capacity CPUs (P-cores) over their
  run time (sched_switch slices), while capped.
- p_first_ns: their run time on P-cores while capped, up to each one's first run on
  another CPU that began after it became capped (for each stretch capped): how long a
  lowered clamp left a thread there before anything moved it, without the time it
  spent there again after something brought it back (p_ns counts both).
- stacked_ns: the time during which some CPU holds two or more of them
  (running or queued there: schedule.queued_on) while another CPU of the same
  type and capacity, in the affinity of one of those on the first, holds none
  of them. A thread's own stacked_ns is the time it was one of such a pile.
- the same "_settled": run time from settle_ns after the thread was first both
  switched in (anywhere in the trace) and capped (for each stretch it was
  capped); piles of threads past that point only (a CPU that holds a thread
  still settling is not free, but that thread does not make a pile).
"""
import numpy as np
import pandas as pd

from . import compare
from .affinity import allowed_masks
from .metric import Metric, ms, pct
from .rtapp import phase_starts
from .runfolder import CAPACITY_SCALE, UNTIL_EVER
from .schedule import queued_on

EVENTS = ("sched_switch", "sched_wakeup", "sched_migrate_task")
SETTLE_NS = 50_000_000


def _share(sl, pids, top_cpus, spans):
    """{pid: (run ns, ns on top_cpus)} of the slices inside spans[pid], [(start, end)]."""
    mine = sl[sl["pid"].isin(pids)]
    start, end = mine["start"].to_numpy(np.int64), mine["end"].to_numpy(np.int64)
    dur = np.zeros(len(mine), np.int64)
    for p in pids:
        rows = (mine["pid"] == p).to_numpy()
        for s, e in spans[p]:
            dur[rows] += np.maximum(np.minimum(end[rows], e) - np.maximum(start[rows], s), 0)
    dur = pd.Series(dur, index=mine["pid"].to_numpy())
    run_ns = dur.groupby(level=0).sum()
    top_ns = dur[mine["cpu"].isin(top_cpus).to_numpy()].groupby(level=0).sum()
    return {p: (int(run_ns.get(p, 0)), int(top_ns.get(p, 0))) for p in pids}


def _first_off(sl, pid, top_cpus, since):
    """When pid's first slice that began at or after since on a CPU outside top_cpus
    began; UNTIL_EVER if none did."""
    off = sl[(sl["pid"] == pid) & (sl["start"] >= since) & ~sl["cpu"].isin(top_cpus)]
    return int(off["start"].min()) if len(off) else UNTIL_EVER


def _inside(times, spans):
    """Mask of the times inside one of spans [(start, end)]."""
    out = np.zeros(len(times), bool)
    for s, e in spans:
        out |= (times >= s) & (times < e)
    return out


def _piles(run, pids, spans, settled_spans, t0, t1):
    """({pid: stacked ns}, {pid: settled stacked ns}, run's stacked ns, settled)."""
    plat = run.platform
    n = plat.ncpus
    queued = queued_on(run.tables, pids)
    cuts = [np.array([t0], np.int64)] + [ts for ts, _ in queued.values()]
    edges = [x for p in pids for span in spans[p] + settled_spans[p] for x in span]
    cuts += [np.array([x for x in edges if t0 < x < t1], np.int64)]
    cuts += [phase_starts(run.tables["markers"], p)[0].astype(np.int64) for p in pids]
    times = np.unique(np.concatenate(cuts))
    times = times[(times >= t0) & (times < t1)]
    dur = np.diff(np.append(times, t1))
    on = np.empty((len(times), len(pids)), np.int64)
    for i, p in enumerate(pids):
        ts, cpu = queued[p]
        k = np.searchsorted(ts, times, side="right") - 1
        on[:, i] = np.where(k >= 0, cpu[np.maximum(k, 0)] if len(cpu) else -1, -1)
        on[~_inside(times, spans[p]), i] = -1    # not capped then: not one of them
    settled = np.stack([_inside(times, settled_spans[p]) for p in pids], axis=1)
    allowed = allowed_masks(run, times, set(pids))
    group = {c: g for g in plat.groups() for c in g}
    sibling = np.array([[c2 != c and c2 in group[c] for c2 in range(n)] for c in range(n)])
    rows = np.arange(len(times))
    count = np.zeros((len(times), n), int)
    np.add.at(count, (rows[:, None].repeat(len(pids), 1)[on >= 0], on[on >= 0]), 1)
    free = (count == 0)[:, None, :] & sibling[None, :, :]    # [time, cpu, other cpu]
    out = []
    for only_settled in (False, True):
        counted = (on >= 0) & (settled if only_settled else True)
        here = np.zeros((len(times), n), int)
        reach = np.zeros((len(times), n, n), bool)    # CPUs the threads on a CPU may use
        for i, p in enumerate(pids):
            k = np.flatnonzero(counted[:, i])
            here[k, on[k, i]] += 1
            reach[k, on[k, i]] |= allowed[p][k]
        pile = (here >= 2) & (reach & free).any(axis=2)
        mine = {p: int(dur[counted[:, i] & pile[rows, np.maximum(on[:, i], 0)]].sum())
                for i, p in enumerate(pids)}
        out.append((mine, int(dur[pile.any(axis=1)].sum())))
    (per, total), (per_s, total_s) = out
    return per, per_s, total, total_s


def compute(ctx):
    """(the run's figures, {pid: the thread's}), or (None, {}) without capped tasks;
    settling from ctx.settle_ns after each thread's first switch-in."""
    run, sl, t0, t1, settle_ns = ctx.run, ctx.slices, ctx.t0, ctx.t1, ctx.settle_ns
    pids = sorted(run.capped_pids)
    if not pids:
        return None, {}
    sw = run.tables["switch"]
    ins = sw[sw["next_pid"].isin(pids)].groupby("next_pid")["ts"].min()
    first = {p: int(ins.get(p, t1)) for p in pids}
    spans = {p: run.capped_spans(p) for p in pids}
    # Each stretch capped settles from settle_ns after the thread was both running and capped.
    settled_spans = {p: [(max(s, first[p]) + settle_ns, e) for s, e in spans[p]
                         if max(s, first[p]) + settle_ns < e] for p in pids}
    caps = [run.platform.capacity(c) for c in range(run.platform.ncpus)]
    top = [c for c, cap in enumerate(caps) if cap == max(caps)]
    share = _share(sl, pids, top, spans)
    settled = _share(sl, pids, top, settled_spans)
    # Each stretch capped, up to the thread's first run off the P-cores in it.
    first_spans = {p: [(s, min(_first_off(sl, p, top, s), e)) for s, e in spans[p]]
                   for p in pids}
    first = {p: top_ns for p, (_, top_ns) in _share(sl, pids, top, first_spans).items()}
    per, per_s, total, total_s = _piles(run, pids, spans, settled_spans, t0, t1)

    def ratio(a, b):
        return a / b if b else None

    def figures(sh, st, pile, pile_s, p_first):
        return {"run_ns": sh[0], "p_ns": sh[1], "p_share": ratio(sh[1], sh[0]),
                "p_first_ns": p_first,
                "run_settled_ns": st[0], "p_settled_ns": st[1],
                "p_share_settled": ratio(st[1], st[0]),
                "stacked_ns": pile, "stacked_settled_ns": pile_s}

    threads = {p: figures(share[p], settled[p], per[p], per_s[p], first[p]) for p in pids}
    whole = figures([sum(share[p][i] for p in pids) for i in (0, 1)],
                    [sum(settled[p][i] for p in pids) for i in (0, 1)], total, total_s,
                    sum(first.values()))
    whole.update(threads=len(pids), settle_ns=settle_ns,
                 util_max=sorted({int(u) for p in pids for u in run.clamp_timeline[p][2]
                                  if u < CAPACITY_SCALE}))
    return whole, threads


def details(m):
    """Markdown lines: where the capped tasks ran, the run's and each thread's."""
    c = m.get("capped")
    if c is None:
        return []
    settle = f"{c['settle_ns'] / 1e6:g} ms"
    out = ["### Capped tasks", "",
           f"Capped tasks ({c['threads']} threads with util_max "
           f"{', '.join(str(u) for u in c['util_max'])}): {pct(c['p_share'])} of their run time "
           f"on P-cores, {pct(c['p_share_settled'])} from {settle} after each one's first run; "
           f"{ms(c['stacked_ns'])} ms with two or more on one CPU while an allowed CPU of the "
           f"same type held none, {ms(c['stacked_settled_ns'])} ms after settling.", "",
           "| thread | task | on P-cores | after settling | piled (ms) | piled after settling (ms) |",
           "|---|---|---|---|---|---|"]
    for pid, t in sorted(m["tasks"].items(), key=lambda kv: kv[1]["thread"]):
        if "capped" in t:
            x = t["capped"]
            out.append(f"| {t['thread']} (pid {pid}) | {t['task']} | {pct(x['p_share'])} | "
                       f"{pct(x['p_share_settled'])} | {ms(x['stacked_ns'])} | "
                       f"{ms(x['stacked_settled_ns'])} |")
    return out + [""]


METRIC = Metric(
    "capped", compute, EVENTS, thread_key="capped", details=details,
    ab=(compare.Mean("capped tasks: run time on P-cores", ("capped", "p_share"), "%", 100),
        compare.Mean("capped tasks: run time on P-cores after settling",
                     ("capped", "p_share_settled"), "%", 100),
        compare.Mean("capped tasks: piled on one CPU beside a free sibling",
                     ("capped", "stacked_ns"), "ms", 1e-6),
        compare.Mean("capped tasks: piled, after settling", ("capped", "stacked_settled_ns"),
                     "ms", 1e-6)))
