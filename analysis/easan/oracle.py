"""The oracle: the cheapest placement of a bucket's demands, one CPU per thread
(energy.py's estimate), under the reference power model.

Pure Python on purpose (no numpy, no pandas): energy.start() has a process of its
own run the searches of a run's buckets (start(), serve()) while the analysis
computes its other metrics. That process runs this same code on the same
inputs, so its answers are the ones a search here would give.
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


def _platform_data(platform):
    """What a search reads of a platform, in plain values."""
    return platform.ncpus, [(c.cpu, c.type, c.capacity) for c in platform.cpus]


def _platform_of(data):
    ncpus, cpus = data
    return SimpleNamespace(ncpus=ncpus, cpus=[SimpleNamespace(cpu=c, type=t, capacity=cap)
                                              for c, t, cap in cpus])


class _Here:
    """Searches done at once, in this process."""

    def __init__(self, platform, searches):
        self._out = [oracle_search(platform, *s) for s in searches]

    def result(self):
        return self._out


class _Worker:
    """Searches done by `python3 -m easan.oracle` (serve()), the inputs pickled to its
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
            pass  # the worker died: result() searches here instead

    def result(self):
        out = self._proc.stdout.read()
        self._proc.wait()
        self._feeder.join()
        if self._proc.returncode != 0 or not out:
            # Searched here instead: the same answers, or the error that stopped it.
            return _Here(self._platform, self._searches).result()
        return pickle.loads(out)


def start(platform, searches):
    """Begin the searches [(task_demands, allowed, clamps)] on platform in a process of
    their own, or here at once where there is a single CPU to run on; result() of the
    returned object is [oracle_search(platform, *s) for s in searches]."""
    if len(searches) < 2 or len(os.sched_getaffinity(0)) < 2:
        return _Here(platform, searches)
    try:
        return _Worker(platform, searches)
    except OSError:
        return _Here(platform, searches)


def serve():
    """The worker: searches from stdin, results to stdout (both pickled)."""
    platform, searches = pickle.load(sys.stdin.buffer)
    platform = _platform_of(platform)
    out = [oracle_search(platform, *s) for s in searches]
    sys.stdout.buffer.write(pickle.dumps(out))


if __name__ == "__main__":
    serve()
