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
import numpy as np

from . import compare, oracle, power_model
from .affinity import allowed_masks
from .metric import Figure, Metric
# The search itself (pure Python, for the process that runs it): oracle.py.
from .oracle import EMPTY, _join, oracle_power, oracle_search  # noqa: F401  # pylint: disable=unused-import

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


def _buckets(run, sl, t0, t1, bucket_ns):
    """[(start, length, mW as placed, overcommitted CPUs, the oracle's search)] of the
    buckets in order, a search being oracle_search()'s (task_demands, allowed, clamps)."""
    by_bucket = demands(sl, run.pids, t0, t1, bucket_ns)
    # The oracle respects each thread's affinity at the bucket's middle.
    times = np.arange(t0, t1 + 1, bucket_ns // 10, dtype=np.int64)
    masks = allowed_masks(run, times)
    clamps = {pid: run.uclamp(pid) for pid in run.pids}
    out = []
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
        allowed = [frozenset(np.flatnonzero(masks[pid][max(mid, 0)]).tolist())
                   for pid in per_task]
        out.append((t0 + b * bucket_ns, length, mw, o,
                    (list(per_task.values()), allowed, [clamps[pid] for pid in per_task])))
    return out


def _total(buckets, searched):
    """estimate()'s dict from _buckets() and the oracle's (mW, exact) of each."""
    est = orc = 0.0
    over = inexact = kernel = 0
    rows = []
    for (start, length, mw, o, _), (omw, exact) in zip(buckets, searched):
        inexact += not exact
        kernel += mw < omw
        omw = min(omw, mw)
        est += mw * length / 1e9
        orc += omw * length / 1e9
        over += bool(o)
        rows.append((start, mw, omw))
    return {"estimated_mj": est, "oracle_mj": orc,
            "ratio": (est / orc) if orc > 0 else None,
            "overcommitted_buckets": over, "buckets": len(rows),
            "oracle_inexact_buckets": inexact, "kernel_cheaper_buckets": kernel,
            "series": np.array(rows, dtype=float).reshape(-1, 3).tolist()}


def estimate(run, sl, t0, t1, bucket_ns=BUCKET_NS):
    """{'estimated_mj', 'oracle_mj', 'ratio', 'overcommitted_buckets', 'buckets',
    'oracle_inexact_buckets', 'kernel_cheaper_buckets', 'series'}: the last counts
    the buckets whose oracle is the kernel's placement, cheaper than the search's."""
    buckets = _buckets(run, sl, t0, t1, bucket_ns)
    return _total(buckets, [oracle_search(run.platform, *b[4]) for b in buckets])


class _Started:
    """The energy metric with its searches running in the oracle's process."""

    def __init__(self, ctx):
        self._buckets = _buckets(ctx.run, ctx.slices, ctx.t0, ctx.t1, BUCKET_NS)
        self._searches = oracle.start(ctx.run.platform, [b[4] for b in self._buckets])

    def result(self):
        return _total(self._buckets, self._searches.result()), None


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
        compare.Mean("energy / oracle", ("energy", "ratio"))),
    start=_Started)  # the oracle, the longest metric, in a process of its own
