"""Energy of the placement the kernel chose, against the oracle's search and bound.

Time is cut into buckets of BUCKET_NS. Work is counted in capacity units: in a bucket,
a capacity-1024 CPU at full speed delivers 1024 (rt-app's work is calibrated on
one). A profile thread that ran r ns of a bucket of L ns on CPU c delivered
r / L x 1024 x speed(c) units (Run.speeds): with capacity-faithful speed
(Run.faithful) a CPU of capacity cap runs at cap/1024 of a capacity-1024 CPU's speed,
so the same work counts the same units wherever it ran; without it every vCPU runs
at the host's speed and speed(c) = 1. Each thread's uclamp in a bucket is the one in
force at the bucket's middle (Run.uclamp_at(): a uclamp_change counts from the moment
it took effect). Three figures per bucket, in mW under the reference power model
(power_model.py), summed over the buckets as mJ:

- estimated: the work as placed, each CPU priced at the point its work selects once
  clamped by the uclamp of the threads that ran there;
- the search ("oracle_mj", oracle.oracle_search()): the cheapest placement the search
  finds, one CPU per thread, interchangeable CPUs collapsed, affinity at the bucket's
  middle respected, priced the same way. It stops after oracle.NODE_LIMIT steps (then
  it may cost more than the best placement: "oracle_inexact_buckets"), and like the
  estimate it lets a clamped CPU run at its clamp's point for longer than the bucket.
  The kernel's own placement, which may split a thread over CPUs, can be cheaper
  ("kernel_cheaper_buckets"): nothing takes the cheaper of the two any more.
  "ratio" = estimated / search;
- the bound ("bound_mj", oracle.lower_bound()): the optimum of a linear-programming
  relaxation that respects time (no CPU delivers more work than its capacity at its
  points allows in the bucket; clamps left out, threads may split, each over the CPUs
  its affinity allowed at some time of the bucket), at most the energy of every
  placement that fits in time. A bucket whose work cannot fit in time has no
  bound ("bound_infeasible_buckets": without capacity-faithful speed a busy E-core
  delivers more work than its capacity). "ratio_to_bound" = the estimate over the
  buckets with a bound / their bound. The estimate falls below the bound
  ("kernel_below_bound_buckets") only where the model lets a CPU of the placement run
  longer than the bucket: a clamp that holds it at a point too slow for its work, or
  more work than its capacity (overcommitted).
"""
import numpy as np

from . import compare, oracle, power_model
from .affinity import allowed_masks
from .metric import Figure, Metric
from .rtapp import phase_starts
# The search and the bound (pure Python but the bound's solver, for the process that
# runs them): oracle.py.
from .oracle import EMPTY, _join

oracle_power, oracle_search, lower_bound = (oracle.oracle_power, oracle.oracle_search,
                                            oracle.lower_bound)

EVENTS = ("sched_switch",)
BUCKET_NS = 100_000_000
# A figure below another by less than this share of it is not counted as below: the
# same sums, added in other orders, or through the bound's solver.
BELOW = 1e-6


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


def work(runtime, length, speed=None):
    """{(pid, cpu): capacity units} of a bucket's run times {(pid, cpu): ns}: ns / length
    x 1024 x the CPU's speed (speed: {cpu: share of a capacity-1024 CPU's speed},
    Run.speeds; None: every CPU at full speed)."""
    speed = speed or {}
    return {key: ns / length * 1024 * speed.get(key[1], 1.0) for key, ns in runtime.items()}


def actual_power(platform, runtime, length, clamps=None, speed=None):
    """(mW, overcommitted CPUs) of one bucket as it was placed; runtime: {(pid, cpu):
    ns}; clamps: {pid: (util_min, util_max)} (default: none); speed: as work()."""
    clamps = clamps or {}
    per_cpu = {}
    for (pid, cpu), units in work(runtime, length, speed).items():
        lo, hi = clamps.get(pid, power_model.UNCLAMPED)
        per_cpu[cpu] = _join(per_cpu.get(cpu, EMPTY), (units, lo, hi))
    total, over = 0.0, 0
    for cpu, (demand, lo, hi) in per_cpu.items():
        mw, o = power_model.cpu_power(platform.type_of(cpu), platform.capacity(cpu), demand,
                                      (lo, hi))
        total += mw
        over += o
    return total, over


def _buckets(run, sl, t0, t1, bucket_ns):
    """[(start, length, mW as placed, overcommitted CPUs, the oracle's bucket)] in order,
    a bucket being oracle.solve()'s (task_demands, allowed, clamps, bound_allowed)."""
    by_bucket = demands(sl, run.pids, t0, t1, bucket_ns)
    speed = run.speeds
    # Affinity changes where a phase with its own "cpus" begins: known at every such
    # time and on a grid that includes each bucket's start.
    times = np.unique(np.concatenate(
        [np.arange(t0, t1 + 1, bucket_ns // 10, dtype=np.int64)]
        + [phase_starts(run.tables["markers"], p)[0].astype(np.int64) for p in run.pids]))
    masks = allowed_masks(run, times)
    out = []
    for b in sorted(by_bucket):
        runtime = by_bucket[b]
        start = t0 + b * bucket_ns
        length = _bucket_len(b, t0, t1, bucket_ns)
        if length <= 0:
            continue
        middle = start + length // 2
        clamps = {pid: run.uclamp_at(pid, middle) for pid, _ in runtime}
        mw, o = actual_power(run.platform, runtime, length, clamps, speed)
        per_task = {}
        for (pid, _), units in work(runtime, length, speed).items():
            per_task[pid] = per_task.get(pid, 0) + units
        # The search keeps each thread to its affinity at the bucket's middle; the bound
        # allows every CPU it may use at some time of the bucket, and those it ran on.
        mid = max(np.searchsorted(times, middle, side="right") - 1, 0)
        first, last = np.searchsorted(times, [start, start + length], side="left")
        allowed, anywhere = [], []
        for pid in per_task:
            allowed.append(frozenset(np.flatnonzero(masks[pid][mid]).tolist()))
            ran = {cpu for p, cpu in runtime if p == pid}
            anywhere.append(frozenset(np.flatnonzero(
                masks[pid][first:max(last, first + 1)].any(axis=0)).tolist()) | ran)
        out.append((start, length, mw, o, (list(per_task.values()), allowed,
                                           [clamps[pid] for pid in per_task], anywhere)))
    return out


def _total(buckets, solved):
    """estimate()'s dict from _buckets() and oracle.solve()'s (search mW, exact, bound
    mW or None) of each."""
    est = search = bound = est_bounded = 0.0
    over = inexact = cheaper = below = infeasible = 0
    rows = []
    for (start, length, mw, o, _), (smw, exact, bmw) in zip(buckets, solved):
        inexact += not exact
        cheaper += mw < smw * (1 - BELOW)
        est += mw * length / 1e9
        search += smw * length / 1e9
        over += bool(o)
        if bmw is None:
            infeasible += 1
        else:
            below += mw < bmw * (1 - BELOW)
            bound += bmw * length / 1e9
            est_bounded += mw * length / 1e9
        rows.append([int(start), mw, smw, bmw])
    bounded = len(rows) - infeasible
    return {"estimated_mj": est, "oracle_mj": search,
            "ratio": (est / search) if search > 0 else None,
            "bound_mj": bound if bounded else None,
            "estimated_bounded_mj": est_bounded if bounded else None,
            "ratio_to_bound": (est_bounded / bound) if bound > 0 else None,
            "overcommitted_buckets": over, "buckets": len(rows),
            "oracle_inexact_buckets": inexact, "kernel_cheaper_buckets": cheaper,
            "bound_infeasible_buckets": infeasible, "kernel_below_bound_buckets": below,
            "series": rows}


def estimate(run, sl, t0, t1, bucket_ns=BUCKET_NS):
    """{'estimated_mj', 'oracle_mj' (the search's), 'ratio' (estimated / search),
    'bound_mj', 'estimated_bounded_mj' (the estimate over the buckets with a bound),
    'ratio_to_bound', 'overcommitted_buckets', 'buckets', 'oracle_inexact_buckets',
    'kernel_cheaper_buckets', 'bound_infeasible_buckets', 'kernel_below_bound_buckets',
    'series' ([start ns, estimated mW, search mW, bound mW or None] per bucket)}: see
    the module's docstring."""
    buckets = _buckets(run, sl, t0, t1, bucket_ns)
    return _total(buckets, [oracle.solve(run.platform, *b[4]) for b in buckets])


class _Started:
    """The energy metric with its buckets solved in the oracle's process."""

    def __init__(self, ctx):
        self._buckets = _buckets(ctx.run, ctx.slices, ctx.t0, ctx.t1, BUCKET_NS)
        self._solved = oracle.start(ctx.run.platform, [b[4] for b in self._buckets])

    def result(self):
        return _total(self._buckets, self._solved.result()), None


def rows(e):
    """The report's row: the estimate against the search, then against the bound."""
    n = e["buckets"]
    text = (f"{e['estimated_mj']:.1f} / {e['oracle_mj']:.1f}"
            + (f" = {e['ratio']:.3f}" if e["ratio"] else "")
            + f" against the search (inexact in {e['oracle_inexact_buckets']} of {n} buckets; "
            f"the kernel's own placement cheaper in {e['kernel_cheaper_buckets']}); ")
    if e["bound_mj"] is None:
        text += f"lower bound: none (the work does not fit in time in any of the {n} buckets)"
    else:
        text += (f"{e['estimated_bounded_mj']:.1f} / {e['bound_mj']:.1f}"
                 + (f" = {e['ratio_to_bound']:.3f}" if e["ratio_to_bound"] else "")
                 + " against the lower bound, over the "
                 f"{n - e['bound_infeasible_buckets']} of {n} buckets whose work fits in time "
                 f"(the estimate below it in {e['kernel_below_bound_buckets']}: a clamped or "
                 "overcommitted CPU running longer than the bucket)")
    return [(LABEL, text)]


def plot(results, path):
    """Estimated energy per run against the search and the lower bound (reference model)."""
    from .plots import plt, save  # pylint: disable=import-outside-toplevel
    runs = [r.metrics for r in results]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = np.arange(len(runs))
    est = [m["energy"]["estimated_mj"] for m in runs]
    orc = [m["energy"]["oracle_mj"] for m in runs]
    low = [m["energy"]["bound_mj"] or 0.0 for m in runs]
    ax.bar(x - 0.27, est, 0.27, label="as placed")
    ax.bar(x, orc, 0.27, label="search (best placement found)")
    ax.bar(x + 0.27, low, 0.27, label="lower bound (buckets that fit in time)")
    for i, m in enumerate(runs):
        r = m["energy"]["ratio"]
        if r:
            ax.text(i - 0.27, est[i], f"{r:.2f}x", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{m['label']}\n{m['run'][-17:]}" for m in runs], fontsize=7)
    ax.set_ylabel("energy (mJ, reference model)")
    ax.legend(fontsize=7)
    ax.set_title("Energy vs the oracle's search and bound")
    return save(fig, path)


LABEL = "energy as placed / oracle (mJ)"
METRIC = Metric(
    "energy", lambda ctx: (estimate(ctx.run, ctx.slices, ctx.t0, ctx.t1), None), EVENTS,
    rows=rows, label=LABEL, figures=(Figure("energy.png", "energy vs oracle", plot),),
    ab=(compare.Mean("energy (reference model)", ("energy", "estimated_mj"), "mJ"),
        compare.Mean("energy / oracle", ("energy", "ratio")),
        compare.Mean("energy / lower bound", ("energy", "ratio_to_bound"))),
    start=_Started)  # the oracle, the longest metric, in a process of its own
