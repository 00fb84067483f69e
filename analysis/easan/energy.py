"""Energy of the placement the kernel chose vs the best placement (the oracle).

Time is cut into buckets of BUCKET_NS. In a bucket a profile thread that ran
r ns asks for r / bucket x 1024 capacity units (rt-app's work is calibrated on
a capacity-1024 CPU). The run's estimate puts each thread's demand on the
CPUs it actually ran on, each CPU priced (power_model) at the point its
demand selects once clamped by the uclamp of the threads that ran there (the
profile's util_min/util_max). The search places every thread on one CPU so
that the total power is smallest, brute force over placements with
interchangeable CPUs collapsed and each thread's affinity respected, priced
the same way. The kernel's own placement is a candidate too: it may split a
thread's bucket over CPUs, or overcommit one, which the search does not try,
and then be cheaper than anything the search finds. So a bucket's oracle is
the cheaper of the two, and the oracle is a lower bound of the estimate
(estimated >= oracle in every bucket, hence every run). Both are summed over
the buckets.
"""
import functools

import numpy as np

from . import compare, power_model
from .affinity import allowed_masks
from .metric import Figure, Metric

EVENTS = ("sched_switch",)
BUCKET_NS = 100_000_000


def demands(sl, pids, t0, t1, bucket_ns=BUCKET_NS):
    """{bucket index: {(pid, cpu): ns}} of profile threads' run time."""
    out = {}
    mine = sl[sl["pid"].isin(pids)]
    for cpu, start, end, pid in zip(mine["cpu"], mine["start"], mine["end"], mine["pid"]):
        b = (start - t0) // bucket_ns
        while start < end:
            edge = min(end, t0 + (b + 1) * bucket_ns)
            key = (int(pid), int(cpu))
            out.setdefault(int(b), {})
            out[int(b)][key] = out[int(b)].get(key, 0) + int(edge - start)
            start, b = edge, b + 1
    return out


def _bucket_len(b, t0, t1, bucket_ns):
    return min(t1, t0 + (b + 1) * bucket_ns) - (t0 + b * bucket_ns)


# A CPU's share of a placement: (demand, largest util_min, largest util_max) of
# the tasks on it; a task is such an entry too.
EMPTY = (0.0, 0, 0)


def _join(a, b):
    return a[0] + b[0], max(a[1], b[1]), max(a[2], b[2])


def actual_power(platform, runtime, length, clamps=None):
    """(mW, overcommitted CPUs) of one bucket as it was placed; clamps: {pid:
    (util_min, util_max)} (default: none)."""
    clamps = clamps or {}
    per_cpu = {}
    for (pid, cpu), ns in runtime.items():
        lo, hi = clamps.get(pid, power_model.UNCLAMPED)
        per_cpu[cpu] = _join(per_cpu.get(cpu, EMPTY), (ns / length * 1024, lo, hi))
    total, over = 0.0, 0
    for cpu, (demand, lo, hi) in per_cpu.items():
        mw, o = power_model.cpu_power(platform.type_of(cpu), platform.capacity(cpu), demand,
                                      (lo, hi))
        total += mw
        over += o
    return total, over


def oracle_power(platform, task_demands, allowed=None, clamps=None):
    """Smallest total mW over placements of the demands (capacity units), one CPU each."""
    return oracle_search(platform, task_demands, allowed, clamps)[0]


def oracle_search(platform, task_demands, allowed=None, clamps=None):
    """(mW, exact) of the best placement of the demands, one CPU each.

    allowed[i] is the set of CPUs task i may use (default: all), clamps[i] its
    (util_min, util_max) (default: none). CPUs with the same type, capacity and
    membership in every allowed set are interchangeable. Placements that
    overcommit a CPU are used only if none fits. The search is exhaustive up to
    NODE_LIMIT steps, then returns the best found so far (exact False): never
    worse than the greedy placement it starts from."""
    n = platform.ncpus
    allowed = allowed or [frozenset(range(n))] * len(task_demands)
    clamps = clamps or [power_model.UNCLAMPED] * len(task_demands)
    tasks = sorted(((round(d, 6), lo, hi, frozenset(a))
                    for d, (lo, hi), a in zip(task_demands, clamps, allowed) if d > 0),
                   key=lambda t: (-t[0], t[1], t[2], sorted(t[3])))
    sig = {}
    for c in platform.cpus:
        key = (c.type, c.capacity, tuple(c.cpu in t[3] for t in tasks))
        sig.setdefault(key, []).append(c.cpu)
    groups = tuple((k[0], k[1], len(cpus)) for k, cpus in sig.items())
    may = tuple(tuple(cpus[0] in t[3] for cpus in sig.values()) for t in tasks)
    entries = tuple(t[:3] for t in tasks)
    mw, exact = _oracle(groups, entries, may, False)
    return (mw, exact) if mw != float("inf") else _oracle(groups, entries, may, True)


NODE_LIMIT = 100
_INF = (float("inf"), float("inf"))


@functools.lru_cache(maxsize=4096)
def _oracle(groups, demands, may, allow_over):
    # demands[i] is task i's entry (demand, util_min, util_max). loads[g] holds
    # the entries of the used CPUs of group g, sorted: CPUs of a group are
    # interchangeable, so a task joins one of them or opens the next. Costs are
    # (demand beyond capacity, mW): when nothing fits, the oracle first
    # overcommits as little as it can, then saves energy. Adding a task never
    # lowers a CPU's cost (more work, a point as high or higher), which the
    # pruning below relies on. A bucket identical to an earlier one (same
    # groups, demands and affinities) is not searched again (lru_cache).
    inf = _INF
    zero = (0.0, 0.0)
    memo = {}
    cpu_power = power_model.cpu_power

    def cost_of(g, entry):
        cost = memo.get((g, entry))
        if cost is None:
            load, lo, hi = entry
            if not load:
                cost = zero
            else:
                kind, cap, _ = groups[g]
                mw, over = cpu_power(kind, cap, load, (lo, hi))
                cost = inf if over and not allow_over else ((load - cap) if over else 0.0, mw)
            memo[(g, entry)] = cost
        return cost

    # Per task, the groups it may use with their CPU counts.
    places = [[(g, count) for g, (_, _, count) in enumerate(groups) if may[i][g]]
              for i in range(len(demands))]

    def moves(i, loads):
        """[(added cost, g, j, entry)]: task i joins the j-th used CPU of group g (or
        opens it), which then holds entry; in the order the places are tried."""
        d, lo, hi = demands[i]
        out = []
        for g, count in places[i]:
            used = loads[g]
            n = len(used)
            prev = None
            for j in range(n + 1 if n < count else count):
                if j < n:
                    old = used[j]
                    if old == prev:
                        continue  # same load, same outcome
                    prev = old
                    joined = (old[0] + d, lo if lo > old[1] else old[1],
                              hi if hi > old[2] else old[2])
                else:
                    old = EMPTY
                    joined = _join(EMPTY, demands[i])
                after = memo.get((g, joined)) or cost_of(g, joined)
                if after == inf:
                    continue  # overcommits while that is not allowed
                before = memo.get((g, old)) or cost_of(g, old)
                out.append(((after[0] - before[0], after[1] - before[1]), g, j, joined))
        return out

    def placed(loads, g, j, joined):
        """loads with the j-th used CPU of group g holding joined, kept sorted."""
        used = loads[g]
        new = tuple(sorted(used[:j] + (joined,) + used[j + 1:]))
        return loads[:g] + (new,) + loads[g + 1:]

    def add(a, b):
        return a[0] + b[0], a[1] + b[1]

    def by_cost(move):
        return move[0]

    # Greedy first: each task where it adds least. Its cost bounds the search.
    loads, best = tuple(() for _ in groups), (0.0, 0.0)
    for i in range(len(demands)):
        options = moves(i, loads)
        if not options:
            return float("inf"), True
        delta, g, j, joined = min(options, key=by_cost)
        loads = placed(loads, g, j, joined)
        best = add(best, delta)
    best = [best]
    seen = {}
    budget = [NODE_LIMIT]

    def walk(i, loads, cost):
        if cost >= best[0] or budget[0] <= 0:
            return
        budget[0] -= 1
        if i == len(demands):
            best[0] = cost
            return
        if seen.get((i, loads), inf) <= cost:
            return
        seen[(i, loads)] = cost
        for delta, g, j, joined in sorted(moves(i, loads), key=by_cost):
            nxt = add(cost, delta)
            if nxt >= best[0]:
                break  # sorted: the other places cost more still
            if budget[0] <= 0:
                break  # out of steps: walk() would return at once
            walk(i + 1, placed(loads, g, j, joined), nxt)

    walk(0, tuple(() for _ in groups), (0.0, 0.0))
    return best[0][1], budget[0] > 0


def estimate(run, sl, t0, t1, bucket_ns=BUCKET_NS):
    """{'estimated_mj', 'oracle_mj', 'ratio', 'overcommitted_buckets', 'buckets',
    'oracle_inexact_buckets', 'kernel_cheaper_buckets', 'series'}: the last counts
    the buckets whose oracle is the kernel's placement, cheaper than the search's."""
    by_bucket = demands(sl, run.pids, t0, t1, bucket_ns)
    # The oracle respects each thread's affinity at the bucket's middle.
    times = np.arange(t0, t1 + 1, bucket_ns // 10, dtype=np.int64)
    masks = allowed_masks(run, times)
    clamps = {pid: run.uclamp(pid) for pid in run.pids}
    est = orc = 0.0
    over = inexact = kernel = 0
    rows = []
    for b in sorted(by_bucket):
        runtime = by_bucket[b]
        length = _bucket_len(b, t0, t1, bucket_ns)
        if length <= 0:
            continue
        mw, o = actual_power(run.platform, runtime, length, clamps)
        per_task = {}
        for (pid, _), ns in runtime.items():
            per_task[pid] = per_task.get(pid, 0) + ns / length * 1024
        mid = np.searchsorted(times, t0 + b * bucket_ns + length // 2, side="right") - 1
        allowed = [frozenset(np.flatnonzero(masks[pid][max(mid, 0)])) for pid in per_task]
        omw, exact = oracle_search(run.platform, list(per_task.values()), allowed,
                                   [clamps[pid] for pid in per_task])
        inexact += not exact
        kernel += mw < omw
        omw = min(omw, mw)
        est += mw * length / 1e9
        orc += omw * length / 1e9
        over += bool(o)
        rows.append((t0 + b * bucket_ns, mw, omw))
    return {"estimated_mj": est, "oracle_mj": orc,
            "ratio": (est / orc) if orc > 0 else None,
            "overcommitted_buckets": over, "buckets": len(rows),
            "oracle_inexact_buckets": inexact, "kernel_cheaper_buckets": kernel,
            "series": np.array(rows, dtype=float).reshape(-1, 3).tolist()}


def rows(e):
    return [(LABEL, f"{e['estimated_mj']:.1f} / {e['oracle_mj']:.1f}"
             + (f" = {e['ratio']:.3f}" if e["ratio"] else "")
             + f" (the kernel's own placement cheaper than the search in "
             f"{e['kernel_cheaper_buckets']} of {e['buckets']} buckets)")]


def plot(results, path):
    """Estimated vs oracle energy per run (reference power model)."""
    from .plots import plt, save  # pylint: disable=import-outside-toplevel
    runs = [r.metrics for r in results]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = np.arange(len(runs))
    est = [m["energy"]["estimated_mj"] for m in runs]
    orc = [m["energy"]["oracle_mj"] for m in runs]
    ax.bar(x - 0.2, est, 0.4, label="as placed")
    ax.bar(x + 0.2, orc, 0.4, label="oracle (best placement)")
    for i, m in enumerate(runs):
        r = m["energy"]["ratio"]
        if r:
            ax.text(i - 0.2, est[i], f"{r:.2f}x", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{m['label']}\n{m['run'][-17:]}" for m in runs], fontsize=7)
    ax.set_ylabel("energy (mJ, reference model)")
    ax.legend(fontsize=7)
    ax.set_title("Energy vs oracle")
    return save(fig, path)


LABEL = "energy as placed / oracle (mJ)"
METRIC = Metric(
    "energy", lambda ctx: (estimate(ctx.run, ctx.slices, ctx.t0, ctx.t1), None), EVENTS,
    rows=rows, label=LABEL, figures=(Figure("energy.png", "energy vs oracle", plot),),
    ab=(compare.Mean("energy (reference model)", ("energy", "estimated_mj"), "mJ"),
        compare.Mean("energy / oracle", ("energy", "ratio"))))
