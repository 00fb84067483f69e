"""The oracle of energy.py: for each bucket's demands (capacity units of work), under
the reference power model,

- the search (oracle_search()): the cheapest placement it finds, one CPU per thread,
  priced as energy.py prices the placement the kernel chose (clamps and all). It is
  exhaustive up to NODE_LIMIT steps, then returns the best placement found so far
  (exact False), which may cost more than the best one. Like the estimate, it lets a
  clamped CPU run at its clamp's point for longer than the bucket. So it is a
  placement to compare with, not a lower bound: the kernel's own placement, which may
  split a thread over CPUs, can be cheaper.
- the bound (lower_bound()): the optimum of a linear-programming relaxation that
  respects time, at most the energy of every placement that fits in the bucket (see
  lower_bound()); None when the bucket's work cannot fit in time.

solve() gives both. The search is pure Python on purpose (no numpy, no pandas):
energy.start() has a process of its own run a run's buckets (start(), serve()) while
the analysis computes its other metrics, and that process starts fast; the bound's
solver (scipy, with numpy) is imported where it runs, there. That process runs this
same code on the same inputs, so its answers are the ones a call here would give.
"""
import functools
import os
import pickle
import subprocess
import sys
import threading
from types import SimpleNamespace

from contract.paths import module_env

from . import power_model

# A CPU's share of a placement: (demand, largest util_min, largest util_max) of
# the tasks on it; a task is such an entry too.
EMPTY = (0.0, 0, 0)


def _join(a, b):
    return a[0] + b[0], max(a[1], b[1]), max(a[2], b[2])



def oracle_power(platform, task_demands, allowed=None, clamps=None):
    """Total mW of the search's placement of the demands (capacity units), one CPU each:
    the cheapest there is when the search was exact (oracle_search())."""
    return oracle_search(platform, task_demands, allowed, clamps)[0]


def oracle_search(platform, task_demands, allowed=None, clamps=None):
    """(mW, exact) of the cheapest placement of the demands the search finds, one CPU
    each.

    allowed[i] is the set of CPUs task i may use (default: all), clamps[i] its
    (util_min, util_max) (default: none). CPUs with the same type, capacity and
    membership in every allowed set are interchangeable. Placements that
    overcommit a CPU are used only if none fits. The search is exhaustive up to
    NODE_LIMIT steps, then returns the best found so far (exact False): never
    worse than the greedy placement it starts from, but possibly above the best
    placement (by up to 7 % seen with 10-12 tasks). A clamped CPU is priced at its
    clamp's point however much work it holds (power_model.cpu_power()): a placement
    may run longer than the bucket."""
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


def lower_bound(platform, task_demands, allowed=None):
    """mW: a lower bound of the power of every placement of the demands (capacity
    units of work in the bucket) that fits in time, under the reference model; None
    when no placement fits (the relaxation below is infeasible, or the solver gave no
    answer).

    The linear program: x[i, c, k] >= 0 is the work of task i done on CPU c at
    operating point k (f_k in power_model.OPP_FRACTIONS), for c in allowed[i]
    (default: all CPUs);
      sum over c, k of x[i, c, k] = the demand of task i                  (its work)
      sum over i, k of x[i, c, k] / (f_k x cap_c) <= 1 bucket for each CPU c  (time)
    minimising sum x[i, c, k] x e(c, k), e(c, k) = opp_power(c, f_k) / (f_k x cap_c)
    the power per unit of work at that point. A placement whose every CPU delivers its
    work in the bucket at the point the model selects for it (one CPU per thread or
    split, clamped or not) is a feasible point of this program, of the same energy:
    so the optimum is at most its energy. Clamps are left out: dropping a constraint
    can only lower the optimum, which stays a lower bound. Fractional placement and
    CPUs that mix points within the bucket are relaxations of the same kind.

    Tasks with the same allowed CPUs are one task of their total work (without
    clamps only that total matters), and CPUs of the same type and capacity allowed
    to the same tasks are one CPU of their total time: neither changes the optimum.
    The result is certified by weak duality from the solver's duals (_bound()), so the
    solver's tolerances cannot lift it above the optimum (floating-point rounding
    aside)."""
    n = platform.ncpus
    allowed = allowed or [frozenset(range(n))] * len(task_demands)
    work = {}
    for d, a in zip(task_demands, allowed):
        if d > 0:
            a = frozenset(a)
            work[a] = work.get(a, 0.0) + d
    classes = sorted(work.items(), key=lambda kv: sorted(kv[0]))
    groups = {}
    for c in platform.cpus:
        may = tuple(c.cpu in a for a, _ in classes)
        if any(may):
            key = (c.type, c.capacity, may)
            groups[key] = groups.get(key, 0) + 1
    return _bound(tuple((kind, cap, count, may)
                        for (kind, cap, may), count in sorted(groups.items())),
                  tuple(w for _, w in classes))


@functools.lru_cache(maxsize=4096)
def _bound(groups, works):
    """lower_bound() of the tasks' total works over CPU groups (type, capacity, count,
    (may task j use it, for each j)), by scipy's HiGHS. The variables are y[j, g, k],
    the CPU time (in buckets) group g spends at point k on task j, so that x = y x f_k
    x cap_g; y <= count_g holds for every feasible y (the time constraint), which the
    certificate uses: for any duals u (work) and v <= 0 (time), reduced costs r = cost
    - A_eq' u - A_ub' v give cost . y >= works . u / 1024 + counts . v + sum of
    min(r, 0) x count_g over the columns, for every feasible y."""
    if not works:
        return 0.0
    if any(not any(g[3][j] for g in groups) for j in range(len(works))):
        return None    # a task allowed on no CPU
    # pylint: disable=import-outside-toplevel
    import numpy as np
    from scipy.optimize import linprog
    cols = [(j, g, f) for j in range(len(works)) for g, grp in enumerate(groups) if grp[3][j]
            for f in power_model.OPP_FRACTIONS]
    cost = np.array([power_model.opp_power(groups[g][0], groups[g][1], f) for _, g, f in cols])
    a_eq = np.zeros((len(works), len(cols)))
    a_ub = np.zeros((len(groups), len(cols)))
    for col, (j, g, f) in enumerate(cols):
        a_eq[j, col] = f * groups[g][1] / 1024
        a_ub[g, col] = 1.0
    b_eq = np.array(works) / 1024
    b_ub = np.array([float(g[2]) for g in groups])
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None),
                  method="highs")
    if res.status != 0:
        return None    # 2: infeasible, the work does not fit in time
    u = np.asarray(res.eqlin.marginals)
    v = np.minimum(np.asarray(res.ineqlin.marginals), 0.0)
    reduced = cost - a_eq.T @ u - a_ub.T @ v
    top = b_ub[[g for _, g, _ in cols]]
    return float(b_eq @ u + b_ub @ v + np.minimum(reduced, 0.0) @ top)


def solve(platform, task_demands, allowed=None, clamps=None, bound_allowed=None):
    """(search mW, search exact, bound mW or None) of one bucket: oracle_search() and
    lower_bound(), the bound's tasks allowed on bound_allowed (default: allowed)."""
    mw, exact = oracle_search(platform, task_demands, allowed, clamps)
    return mw, exact, lower_bound(platform, task_demands, bound_allowed or allowed)


def _platform_data(platform):
    """What a search reads of a platform, in plain values."""
    return platform.ncpus, [(c.cpu, c.type, c.capacity) for c in platform.cpus]


def _platform_of(data):
    ncpus, cpus = data
    return SimpleNamespace(ncpus=ncpus, cpus=[SimpleNamespace(cpu=c, type=t, capacity=cap)
                                              for c, t, cap in cpus])


class _Here:
    """Buckets solved at once, in this process."""

    def __init__(self, platform, searches):
        self._out = [solve(platform, *s) for s in searches]

    def result(self):
        return self._out


class _Worker:
    """Buckets solved by `python3 -m easan.oracle` (serve()), the inputs pickled to its
    stdin (by a thread, so that starting it never waits) and the results back from
    its stdout."""

    def __init__(self, platform, searches):
        self._platform, self._searches = platform, searches
        self._proc = subprocess.Popen([sys.executable, "-m", "easan.oracle"], env=module_env(),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)
        self._feeder = threading.Thread(
            target=self._feed, args=(pickle.dumps((_platform_data(platform), searches)),),
            daemon=True)
        self._feeder.start()

    def _feed(self, data):
        try:
            with self._proc.stdin:
                self._proc.stdin.write(data)
        except OSError:
            pass  # the worker died: result() solves here instead

    def result(self):
        out = self._proc.stdout.read()
        self._proc.wait()
        self._feeder.join()
        if self._proc.returncode != 0 or not out:
            # Solved here instead: the same answers, or the error that stopped it.
            return _Here(self._platform, self._searches).result()
        return pickle.loads(out)


def start(platform, searches):
    """Begin solving the buckets [(task_demands, allowed, clamps[, bound_allowed])] on
    platform in a process of their own, or here at once where there is a single CPU to
    run on; result() of the returned object is [solve(platform, *s) for s in
    searches]."""
    if len(searches) < 2 or len(os.sched_getaffinity(0)) < 2:
        return _Here(platform, searches)
    try:
        return _Worker(platform, searches)
    except OSError:
        return _Here(platform, searches)


def serve():
    """The worker: buckets from stdin, solve()'s results to stdout (both pickled)."""
    platform, searches = pickle.load(sys.stdin.buffer)
    platform = _platform_of(platform)
    out = [solve(platform, *s) for s in searches]
    sys.stdout.buffer.write(pickle.dumps(out))


if __name__ == "__main__":
    serve()
