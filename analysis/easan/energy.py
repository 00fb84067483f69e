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
    """Smallest total mW over placements of the demands (capacity units), one CPU each.

    allowed[i] is the set of CPUs task i may use (default: all). CPUs with the
    same type, capacity and membership in every allowed set are interchangeable.
    Placements that overcommit a CPU are used only if none fits."""
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
    best = _oracle(groups, demands, may, False)
    return best if best != float("inf") else _oracle(groups, demands, may, True)


@functools.lru_cache(maxsize=4096)
def _oracle(groups, demands, may, allow_over):
    # loads[g] holds the demand placed on the used CPUs of group g, in order;
    # a task may join a used CPU or open the group's next one (symmetry).
    # Costs are (demand beyond capacity, mW): when nothing fits, the oracle
    # first overcommits as little as it can, then saves energy.
    best = [(float("inf"), float("inf"))]

    def cost_of(g, load):
        if not load:
            return 0.0, 0.0
        kind, cap, _ = groups[g]
        mw, over = power_model.cpu_power(kind, cap, load)
        if over and not allow_over:
            return float("inf"), float("inf")
        return max(load - cap, 0.0), mw

    def walk(i, loads, cost):
        if cost >= best[0]:
            return
        if i == len(demands):
            best[0] = cost
            return
        d = demands[i]
        for g, (_, _, count) in enumerate(groups):
            if not may[i][g]:
                continue
            used = loads[g]
            for j in range(min(len(used) + 1, count)):
                old = used[j] if j < len(used) else 0.0
                before, after = cost_of(g, old), cost_of(g, old + d)
                new = list(used)
                if j < len(used):
                    new[j] = old + d
                else:
                    new.append(d)
                walk(i + 1, loads[:g] + (tuple(new),) + loads[g + 1:],
                     (cost[0] + after[0] - before[0], cost[1] + after[1] - before[1]))

    walk(0, tuple(() for _ in groups), (0.0, 0.0))
    return best[0][1]


def estimate(run, sl, t0, t1, bucket_ns=BUCKET_NS):
    """{'estimated_mj', 'oracle_mj', 'ratio', 'overcommitted_buckets', 'buckets'}."""
    by_bucket = demands(sl, run.pids, t0, t1, bucket_ns)
    # The oracle respects each thread's affinity at the bucket's middle.
    times = np.arange(t0, t1 + 1, bucket_ns // 10, dtype=np.int64)
    masks = allowed_masks(run, times)
    est = orc = 0.0
    over = 0
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
        omw = oracle_power(run.platform, list(per_task.values()), allowed)
        est += mw * length / 1e9
        orc += omw * length / 1e9
        over += bool(o)
        rows.append((t0 + b * bucket_ns, mw, omw))
    return {"estimated_mj": est, "oracle_mj": orc,
            "ratio": (est / orc) if orc > 0 else None,
            "overcommitted_buckets": over, "buckets": len(rows),
            "series": np.array(rows, dtype=float).reshape(-1, 3).tolist()}
