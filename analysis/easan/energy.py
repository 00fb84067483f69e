"""Energy of the placement the kernel chose vs the best placement (the oracle).

Time is cut into buckets of BUCKET_NS. In a bucket a profile thread that ran
r ns asks for r / bucket x 1024 capacity units (rt-app's work is calibrated on
a capacity-1024 CPU). The run's estimate puts each thread's demand on the
CPUs it actually ran on; the oracle places every thread on one CPU so that
the total power (power_model) is smallest, brute force over placements with
interchangeable CPUs collapsed and each thread's affinity respected. Both
are summed over the buckets.
"""
import functools

import numpy as np

from . import power_model
from .affinity import allowed_masks

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


def actual_power(platform, runtime, length):
    """(mW, overcommitted CPUs) of one bucket as it was placed."""
    per_cpu = {}
    for (_, cpu), ns in runtime.items():
        per_cpu[cpu] = per_cpu.get(cpu, 0.0) + ns / length * 1024
    total, over = 0.0, 0
    for cpu, demand in per_cpu.items():
        mw, o = power_model.cpu_power(platform.type_of(cpu), platform.capacity(cpu), demand)
        total += mw
        over += o
    return total, over


def oracle_power(platform, task_demands, allowed=None):
    """Smallest total mW over placements of the demands (capacity units), one CPU each."""
    return oracle_search(platform, task_demands, allowed)[0]


def oracle_search(platform, task_demands, allowed=None):
    """(mW, exact) of the best placement of the demands, one CPU each.

    allowed[i] is the set of CPUs task i may use (default: all). CPUs with the
    same type, capacity and membership in every allowed set are interchangeable.
    Placements that overcommit a CPU are used only if none fits. The search is
    exhaustive up to NODE_LIMIT steps, then returns the best found so far
    (exact False): never worse than the greedy placement it starts from."""
    n = platform.ncpus
    allowed = allowed or [frozenset(range(n))] * len(task_demands)
    tasks = sorted(((round(d, 6), frozenset(a)) for d, a in zip(task_demands, allowed) if d > 0),
                   key=lambda t: (-t[0], sorted(t[1])))
    sig = {}
    for c in platform.cpus:
        key = (c.type, c.capacity, tuple(c.cpu in a for _, a in tasks))
        sig.setdefault(key, []).append(c.cpu)
    groups = tuple((k[0], k[1], len(cpus)) for k, cpus in sig.items())
    may = tuple(tuple(cpus[0] in a for cpus in sig.values()) for _, a in tasks)
    demands = tuple(d for d, _ in tasks)
    mw, exact = _oracle(groups, demands, may, False)
    return (mw, exact) if mw != float("inf") else _oracle(groups, demands, may, True)


NODE_LIMIT = 100


@functools.lru_cache(maxsize=4096)
def _oracle(groups, demands, may, allow_over):
    # loads[g] holds the demand on the used CPUs of group g, sorted: CPUs of a
    # group are interchangeable, so a task joins one of them or opens the next.
    # Costs are (demand beyond capacity, mW): when nothing fits, the oracle
    # first overcommits as little as it can, then saves energy.
    inf = (float("inf"), float("inf"))

    memo = {}

    def cost_of(g, load):
        if not load:
            return 0.0, 0.0
        if (g, load) not in memo:
            kind, cap, _ = groups[g]
            mw, over = power_model.cpu_power(kind, cap, load)
            memo[(g, load)] = inf if over and not allow_over else (max(load - cap, 0.0), mw)
        return memo[(g, load)]

    def moves(i, loads):
        """(new loads, added cost) for each place task i can go."""
        d = demands[i]
        for g, (_, _, count) in enumerate(groups):
            if not may[i][g]:
                continue
            used = loads[g]
            for j in range(min(len(used) + 1, count)):
                if j and j < len(used) and used[j] == used[j - 1]:
                    continue  # same load, same outcome
                old = used[j] if j < len(used) else 0.0
                before, after = cost_of(g, old), cost_of(g, old + d)
                if after == inf:
                    continue  # overcommits while that is not allowed
                new = tuple(sorted(used[:j] + (old + d,) + used[j + 1:]))
                yield loads[:g] + (new,) + loads[g + 1:], (after[0] - before[0], after[1] - before[1])

    def add(a, b):
        return a[0] + b[0], a[1] + b[1]

    # Greedy first: each task where it adds least. Its cost bounds the search.
    loads, best = tuple(() for _ in groups), (0.0, 0.0)
    for i in range(len(demands)):
        options = list(moves(i, loads))
        if not options:
            return float("inf"), True
        loads, delta = min(options, key=lambda o: o[1])
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
        for new, delta in sorted(moves(i, loads), key=lambda o: o[1]):
            nxt = add(cost, delta)
            if nxt >= best[0]:
                break  # sorted: the other places cost more still
            walk(i + 1, new, nxt)

    walk(0, tuple(() for _ in groups), (0.0, 0.0))
    return best[0][1], budget[0] > 0


def estimate(run, sl, t0, t1, bucket_ns=BUCKET_NS):
    """{'estimated_mj', 'oracle_mj', 'ratio', 'overcommitted_buckets', 'buckets'}."""
    by_bucket = demands(sl, run.pids, t0, t1, bucket_ns)
    # The oracle respects each thread's affinity at the bucket's middle.
    times = np.arange(t0, t1 + 1, bucket_ns // 10, dtype=np.int64)
    masks = allowed_masks(run, times)
    est = orc = 0.0
    over = inexact = 0
    rows = []
    for b in sorted(by_bucket):
        runtime = by_bucket[b]
        length = _bucket_len(b, t0, t1, bucket_ns)
        if length <= 0:
            continue
        mw, o = actual_power(run.platform, runtime, length)
        per_task = {}
        for (pid, _), ns in runtime.items():
            per_task[pid] = per_task.get(pid, 0) + ns / length * 1024
        mid = np.searchsorted(times, t0 + b * bucket_ns + length // 2, side="right") - 1
        allowed = [frozenset(np.flatnonzero(masks[pid][max(mid, 0)])) for pid in per_task]
        omw, exact = oracle_search(run.platform, list(per_task.values()), allowed)
        inexact += not exact
        est += mw * length / 1e9
        orc += omw * length / 1e9
        over += bool(o)
        rows.append((t0 + b * bucket_ns, mw, omw))
    return {"estimated_mj": est, "oracle_mj": orc,
            "ratio": (est / orc) if orc > 0 else None,
            "overcommitted_buckets": over, "buckets": len(rows),
            "oracle_inexact_buckets": inexact,
            "series": np.array(rows, dtype=float).reshape(-1, 3).tolist()}
