"""The energy metric's oracle: its search (a placement, maybe truncated) and its lower
bound (a linear program that respects time), and work counted in delivered units under
capacity-faithful speed; on synthetic runs and direct calls whose numbers were worked
out by hand.

Reference model (power_model), mW: P_E(f) = 1100 x 600/1024 x f x (0.6 + 0.4 f)^2,
P_P(f) = 2000 x f x (0.6 + 0.4 f)^2:
  P_E(0.4) = 148.9125, P_E(0.6) = 272.86875, P_E(0.8) = 436.425, P_E(1.0) = 644.53125
  P_P(0.4) = 462.08, P_P(0.6) = 846.72, P_P(0.8) = 1354.24, P_P(1.0) = 2000
A CPU delivering w units in a bucket at its cheapest, time shared between points (the
lower hull of its points), costs at the margin (mW per unit):
  E: 0.62047 up to 240, 1.03297 to 360, 1.36297 to 480, 1.73422 to 600
  P: 1.128125 up to 409.6, 1.878125 to 614.4, 2.478125 to 819.2, 3.153125 to 1024
"""
import itertools
import json
import os
import pickle
import random
import subprocess
import sys

import pytest

from contract.paths import module_env
from inprocess import metrics_of, read_text
from easlab.synthetic_run import MS, Trace, make_run, write_em
from easan import energy, oracle, platform, power_model

E_EM, P_EM = (600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])
FAITHFUL = {"faithful_speed": True}


def hogs_run(tmp_path, name, record=None):
    """Eight CPU-bound threads capped at util_max 100 (pids 400-407) on e:1:600,p:1:1024
    through one bucket [1000, 1100): 400-403 take turns on the E-core (CPU0), 404-407 on
    the P-core (CPU1), 25 ms each, never sleeping."""
    t = Trace()
    for i in range(8):
        pid, cpu, k = 400 + i, i // 4, i % 4
        t.marker(1000, pid, i, "begin")
        t.marker(1100, pid, i, "end")
        t.wakeup(1000, pid, cpu, "new")
        start = 1000 + 25 * k
        t.switch(cpu, start, pid - 1 if k else 0, pid, sleeping=False)
        if k == 3:
            t.switch(cpu, 1100, pid, 0, sleeping=False)
    d = make_run(str(tmp_path / name), t, {"hog": 8}, "e:1:600,p:1:1024", {}, record=record,
                 keys={"hog": {"util_max": 100}})
    write_em(d, [E_EM, P_EM])
    return d


def test_capped_hogs_get_a_bound_that_respects_time(tmp_path):
    # Capacity-faithful speed: 25 ms on the E-core is 0.25 x 600 = 150 units, on the
    # P-core 0.25 x 1024 = 256: 600 + 1024 = 1624 units in all, each CPU busy throughout.
    # as placed: E-core 600 units, clamped to its 0.4 point: 600/240 x 148.9125 = 372.28125;
    #            P-core 1024 at its 0.4 point: 1024/409.6 x 462.08 = 1155.2; 1527.48125
    # search:    all 1624 units on the E-core at the clamp's 0.4 point, 1624/240 x
    #            148.9125 = 1007.64125: the E-core would run 6.8 buckets in one. The old
    #            oracle, min(search, as placed), was that: infeasible.
    # bound:     1624 units are all the two CPUs deliver at full speed in the bucket, so
    #            both run at 1.0 all of it: P_E(1.0) + P_P(1.0) = 2644.53125, above the
    #            estimate (its clamped CPUs run 2.5 buckets in one): counted.
    e = metrics_of(hogs_run(tmp_path, "hogs", FAITHFUL))["energy"]
    assert e["estimated_mj"] == pytest.approx(152.748125, rel=1e-6)
    assert e["oracle_mj"] == pytest.approx(100.764125, rel=1e-6)
    assert e["bound_mj"] == pytest.approx(264.453125, rel=1e-6)
    assert e["oracle_mj"] < e["bound_mj"]
    assert e["ratio"] == pytest.approx(1527.48125 / 1007.64125, rel=1e-6)
    assert e["ratio_to_bound"] == pytest.approx(1527.48125 / 2644.53125, rel=1e-6)
    assert (e["buckets"], e["kernel_below_bound_buckets"], e["kernel_cheaper_buckets"],
            e["bound_infeasible_buckets"], e["oracle_inexact_buckets"]) == (1, 1, 0, 0, 0)


def test_work_that_does_not_fit_in_time_has_no_bound(tmp_path):
    # Without capacity-faithful speed each busy CPU delivers 1024 units: 2048 units, more
    # than the 1624 the two can deliver in the bucket. No bound; the search is still a
    # placement (all on the E-core at 0.4: 2048/240 x 148.9125 = 1270.72).
    d = hogs_run(tmp_path, "plain")
    e = metrics_of(d)["energy"]
    assert (e["bound_mj"], e["estimated_bounded_mj"], e["ratio_to_bound"]) == (None, None, None)
    assert (e["bound_infeasible_buckets"], e["kernel_below_bound_buckets"]) == (1, 0)
    assert e["oracle_mj"] == pytest.approx(127.072, rel=1e-6)
    assert e["series"][0][3] is None
    text = read_text(f"{d}/analysis/report", "report.md")
    assert "lower bound: none (the work does not fit in time in any of the 1 buckets)" in text


# Ten threads' run times (ms) in one bucket [1000, 1100) on e:2:600,p:1:1024, by CPU, in
# turn: 10.24 units a ms. The search stops after NODE_LIMIT steps at 1390.8384 mW; the
# exhaustive search finds 1318.6368 (5.5 % less).
TRUNCATED = {0: [7, 7, 4, 19, 15, 7], 1: [23, 4], 2: [23, 23]}


def truncated_run(tmp_path):
    t = Trace()
    thread = 0
    for cpu, runs in TRUNCATED.items():
        start = 1000
        for ms in runs:
            pid = 500 + thread
            t.marker(start, pid, thread, "begin")
            t.marker(start + ms, pid, thread, "end")
            t.run(cpu, pid, start, start + ms)
            start += ms
            thread += 1
    t.marker(1100, 500, 0, "end")
    d = make_run(str(tmp_path / "truncated"), t, {"t": thread}, "e:2:600,p:1:1024", {})
    write_em(d, [E_EM, E_EM, P_EM])
    return d


def test_a_truncated_search_is_counted_and_shown(tmp_path, monkeypatch):
    d = truncated_run(tmp_path)
    m = metrics_of(d)
    e = m["energy"]
    units = [ms * 10.24 for runs in TRUNCATED.values() for ms in runs]
    plat = platform.parse("e:2:600,p:1:1024")
    assert e["oracle_inexact_buckets"] == 1
    assert e["oracle_mj"] == pytest.approx(139.08384, rel=1e-6)
    # Bound: 1351.68 units; 2 x 240 at 0.62047 (297.825), 2 x 120 at 1.03297 (247.9125),
    # the P-core's 409.6 at 1.128125 (462.08), 222.08 at the E-cores' 1.36297 (302.688):
    # 1310.5055, below the exhaustive optimum, as a bound must be.
    assert e["bound_mj"] == pytest.approx(131.05055, rel=1e-6)
    monkeypatch.setattr(oracle, "NODE_LIMIT", 10 ** 7)
    oracle._oracle.cache_clear()    # pylint: disable=protected-access
    best, exact = oracle.oracle_search(plat, units)
    oracle._oracle.cache_clear()    # pylint: disable=protected-access
    assert exact and best == pytest.approx(1318.6368)
    assert e["bound_mj"] * 10 <= best <= e["oracle_mj"] * 10
    text = read_text(f"{d}/analysis/report", "report.md")
    assert "= 1.084 against the search (inexact in 1 of 1 buckets; the kernel's own " \
           "placement cheaper in 0); 150.8 / 131.1 = 1.150 against the lower bound, over the 1 " \
           "of 1 buckets whose work fits in time (the estimate below it in 0: " in text


def test_the_bound_is_below_every_placement_that_fits():
    # Random buckets of 1-6 unclamped tasks on e:2:600,p:1:1024, some pinned: the bound
    # is at most the energy of every one-CPU-per-thread placement that fits (each CPU's
    # work within its capacity: enumerated), and equals none of them only from below;
    # the exact search finds the cheapest of them.
    plat = platform.parse("e:2:600,p:1:1024")
    rng = random.Random(7)
    sets = [frozenset({0, 1, 2}), frozenset({0, 1}), frozenset({2}), frozenset({1, 2})]
    checked = 0
    for _ in range(60):
        n = rng.randint(1, 6)
        demands = [rng.uniform(10, 500) for _ in range(n)]
        allowed = [rng.choice(sets) for _ in range(n)]
        low = oracle.lower_bound(plat, demands, allowed)
        costs = []
        for on in itertools.product(*[sorted(a) for a in allowed]):
            load = {c: sum(d for d, x in zip(demands, on) if x == c) for c in set(on)}
            if all(load[c] <= plat.capacity(c) for c in load):
                costs.append(sum(power_model.cpu_power(plat.type_of(c), plat.capacity(c), w)[0]
                                 for c, w in load.items()))
        if costs:
            checked += 1
            assert low is not None and low <= min(costs) * (1 + 1e-9)
            best, exact = oracle.oracle_search(plat, demands, allowed)
            assert exact and best == pytest.approx(min(costs))
    assert checked > 40


def test_the_worker_process_gives_the_same_answers():
    # oracle.start() solves in a process of its own (python3 -m easan.oracle, scipy
    # imported there) when there are two buckets or more and two CPUs to run on.
    plat = platform.parse("e:2:600,p:1:1024")
    buckets = [([300.0, 700.0], [frozenset({0, 1, 2})] * 2, [(0, 1024)] * 2),
               ([1024.0] * 3, [frozenset({0, 1, 2})] * 3, [(0, 100)] * 3),
               ([1024.0, 1024.0, 1024.0, 400.0], [frozenset({0, 1})] * 4, [(0, 1024)] * 4)]
    started = oracle.start(plat, buckets)
    worker = oracle._Worker    # pylint: disable=protected-access
    assert isinstance(started, worker) or len(os.sched_getaffinity(0)) < 2
    want = [oracle.solve(plat, *b) for b in buckets]
    assert started.result() == want
    # The worker itself, which result() would replace by solving here if it failed.
    data = pickle.dumps((oracle._platform_data(plat), buckets))  # pylint: disable=protected-access
    done = subprocess.run([sys.executable, "-m", "easan.oracle"], input=data, env=module_env(),
                          capture_output=True, check=True)
    assert pickle.loads(done.stdout) == want
    # The third bucket's 3472 units do not fit in the E-cores' 1200: no bound.
    assert oracle.solve(plat, *buckets[2])[2] is None


def test_the_bound_allows_every_cpu_of_the_bucket(tmp_path):
    # Thread 600 on e:2:600,p:1:1024, phase 0 pinned to E-core CPU0, phase 1 (from 1050)
    # to the P-core: it runs 1000-1040 on CPU0 and 1050-1090 on CPU2, 409.6 units each.
    # as placed: CPU0 409.6 at 0.8 (480): 409.6/480 x P_E(0.8) = 372.416; CPU2 at 0.4:
    #            462.08; 834.496
    # search:    its affinity at the middle (1050): the P-core only, 819.2 units at 0.8:
    #            P_P(0.8) = 1354.24
    # bound:     CPUs 0 and 2, which it could use in the bucket: 240 at 0.62047
    #            (148.9125), 120 at 1.03297 (123.95625), the P-core's 409.6 at 1.128125
    #            (462.08), 49.6 at 1.36297 (67.6035): 802.552, below the placement it
    #            ran (with the middle's affinity, 1354.24 would be above it).
    t = Trace()
    t.marker(1000, 600, 0, "begin", 0, 0)
    t.marker(1050, 600, 0, "begin", 0, 1)
    t.marker(1100, 600, 0, "end", 0, 1)
    t.run(0, 600, 1000, 1040)
    t.run(2, 600, 1050, 1090)
    d = make_run(str(tmp_path / "phases"), t, {"w": 1}, "e:2:600,p:1:1024", {})
    write_em(d, [E_EM, E_EM, P_EM])
    path = os.path.join(d, "guest", "rt-app.json")
    with open(path, encoding="utf-8") as f:
        rtapp = json.load(f)
    rtapp["tasks"]["w"] = {"phases": {"e": {"cpus": [0], "run": 40000},
                                      "p": {"cpus": [2], "run": 40000}}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rtapp, f)
    e = metrics_of(d)["energy"]
    assert [row[1:] for row in e["series"]] == [
        [pytest.approx(834.496), pytest.approx(1354.24), pytest.approx(802.552)]]
    assert (e["kernel_cheaper_buckets"], e["kernel_below_bound_buckets"]) == (1, 0)


# Capacity-faithful speed: work, not time -------------------------------------------

def moved_run(tmp_path, name, record=None):
    """One thread (pid 600) on e:1:600,p:1:1024 over [1000, 1200): 50 ms on the E-core
    in the first bucket, 29.296875 ms on the P-core in the second."""
    t = Trace()
    t.marker(1000, 600, 0, "begin")
    t.marker(1200, 600, 0, "end")
    t.run(0, 600, 1000, 1050)
    t.migrate(1099, 600, 0, 1, "wakeup")
    t.run(1, 600, 1100, 1129.296875)
    d = make_run(str(tmp_path / name), t, {"w": 1}, "e:1:600,p:1:1024", {}, record=record)
    write_em(d, [E_EM, P_EM])
    return d


def test_work_is_delivered_units_under_faithful_speed(tmp_path):
    # Faithful: 50 ms on the E-core deliver 0.5 x 600 = 300 units, 29.296875 ms on the
    # P-core 0.29296875 x 1024 = 300: the same work, so the search and the bound are the
    # same in both buckets. Search: 300 units on the E-core at its 0.6 point (360),
    # 300/360 x P_E(0.6) = 227.390625. Bound: the E-core's 0.4 point for 240 units
    # (148.9125), the other 60 at 1.03297 (61.978125): 210.890625. As placed: bucket 1
    # the search's placement; bucket 2 the P-core at its 0.4 point: 300/409.6 x P_P(0.4)
    # = 338.4375.
    e = metrics_of(moved_run(tmp_path, "faithful", FAITHFUL))["energy"]
    assert [row[1:] for row in e["series"]] == [
        [pytest.approx(227.390625), pytest.approx(227.390625), pytest.approx(210.890625)],
        [pytest.approx(338.4375), pytest.approx(227.390625), pytest.approx(210.890625)]]
    assert (e["overcommitted_buckets"], e["kernel_cheaper_buckets"]) == (0, 0)
    # Without it the E-core ran at the host's speed: 512 units in bucket 1, at its top
    # point (512 > 480): 512/600 x P_E(1.0) = 550, and the search's the same.
    e = metrics_of(moved_run(tmp_path, "plain"))["energy"]
    assert [row[1:3] for row in e["series"]] == [[pytest.approx(550.0), pytest.approx(550.0)],
                                                 [pytest.approx(338.4375),
                                                  pytest.approx(227.390625)]]


def test_work_units():
    # 50 ms at 600/1024 of a full CPU's speed and 29.296875 ms at full speed, in a
    # 100 ms bucket: 300 units each; at the host's speed the first is 512.
    runtime = {(1, 0): 50 * MS, (1, 1): 29296875}
    assert energy.work(runtime, 100 * MS, {0: 600 / 1024, 1: 1.0}) == \
        {(1, 0): pytest.approx(300.0), (1, 1): pytest.approx(300.0)}
    assert energy.work(runtime, 100 * MS) == {(1, 0): pytest.approx(512.0),
                                              (1, 1): pytest.approx(300.0)}
