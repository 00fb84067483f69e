"""Push decisions, capped-task placement and energy under uclamp, on synthetic runs
whose every number was worked out by hand.

Platform e:2:600,p:2:1024: CPUs 0-1 E-cores, 2-3 P-cores. Task c (util_max 100) has
three CPU-bound threads, pids 200-202 (threads 0-2); task u (pid 300, thread 3) is
not capped. The window is [1000, 1200) ms.

  CPU0 (E): 202 1000-1200
  CPU1 (E): 201 1150-1200 (pushed there from CPU2 at 1150, fair_push_tick)
  CPU2 (P): 200 1000-1050, 201 1050-1100, 200 1100-1200 (each preempted, still runnable)
  CPU3 (P): 300 1000-1020
  wakeups (new): 200, 201 -> CPU2, 202 -> CPU0, 300 -> CPU3, all at 1000
  push decisions (src, dst, trigger, why, outcome, cost_ns):
    1050.5 200 2 -1 putback stuck_uclamp no_better_cpu 1000
    1100.5 201 2  3 putback stuck_uclamp not_allowed   2000
    1150   201 2  1 tick    stuck_uclamp pushed        3000
    1160   202 0 -1 tick    stuck_capacity raced       4000
    and two left out: 202 at 990 (before the window), kthread 7 at 1120
"""
import json
import os

import pytest

from inprocess import metrics_of, read_text, report, rows_of
from easlab.synthetic_run import MS, Trace, make_run, write_em

PLATFORM = "e:2:600,p:2:1024"
E_EM, P_EM = (600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])
OUTCOMES = ("pushed", "no_better_cpu", "not_allowed", "raced")


def capped_run(tmp_path, name="capped", untraced=(), c_keys=None):
    t = Trace()
    for pid, thread in ((200, 0), (201, 1), (202, 2), (300, 3)):
        t.marker(1000, pid, thread, "begin")
    t.marker(1200, 200, 0, "end")
    for pid, cpu in ((200, 2), (201, 2), (202, 0), (300, 3)):
        t.wakeup(1000, pid, cpu, "new")
    t.switch(2, 1000, 0, 200)
    t.switch(2, 1050, 200, 201, sleeping=False)
    t.switch(2, 1100, 201, 200, sleeping=False)
    t.switch(2, 1200, 200, 0)
    t.migrate(1150, 201, 2, 1, "fair_push_tick")
    t.run(1, 201, 1150, 1200)
    t.run(0, 202, 1000, 1200)
    t.run(3, 300, 1000, 1020)
    if "eas_push" not in untraced:
        t.push(990, 202, 0, -1, "tick", "stuck_uclamp", "no_better_cpu", cost_ns=500)
        t.push(1050.5, 200, 2, -1, "putback", "stuck_uclamp", "no_better_cpu", 1024, 1024, 100,
               cost_ns=1000)
        t.push(1100.5, 201, 2, 3, "putback", "stuck_uclamp", "not_allowed", 1024, 1024, 100,
               cost_ns=2000)
        t.push(1120, 7, 0, 1, "putback", "stuck_capacity", "pushed", cost_ns=8000)
        t.push(1150, 201, 2, 1, "tick", "stuck_uclamp", "pushed", 1024, 1024, 100,
               cost_ns=3000)
        t.push(1160, 202, 0, -1, "tick", "stuck_capacity", "raced", 700, 600, 100,
               cost_ns=4000)
    d = make_run(str(tmp_path / name), t, {"c": 3, "u": 1}, PLATFORM, {},
                 comms={200: "c", 201: "c", 202: "c", 300: "u"}, untraced=untraced,
                 keys={"c": {"util_max": 100, **(c_keys or {})}})
    write_em(d, [E_EM, E_EM, P_EM, P_EM])
    return d


@pytest.fixture(name="metrics", scope="module")
def fixture_metrics(tmp_path_factory):
    return metrics_of(capped_run(tmp_path_factory.mktemp("push")))


def test_push_decisions_counted(metrics):
    # The four decisions about profile threads in the window; 202's at 990 and the
    # kthread's are left out. Every outcome, why and trigger the kernel names is listed.
    # Window 1000-1200 ms: 4 decisions in 0.2 s, for the one push move. Their time:
    # 10 us, 6 on CPU2 and 4 on CPU0, of busy CPU time CPU0 200 ms, CPU1 50, CPU2 200,
    # CPU3 20: 470 ms.
    assert metrics["push"] == {
        "decisions": 4, "decisions_per_s": 20.0, "decisions_per_move": 4.0,
        "cpu_ns": 10000, "cpu_ns_per_decision": 2500.0,
        "cpu_share": pytest.approx(10000 / 470e6),
        "cpu_share_by_cpu": {"0": pytest.approx(4000 / 200e6), "1": 0.0,
                             "2": pytest.approx(6000 / 200e6), "3": 0.0},
        "by_outcome": {"pushed": 1, "no_better_cpu": 1, "not_allowed": 1, "raced": 1},
        "by_why": {"none": 0, "stuck_capacity": 1, "stuck_uclamp": 3, "slice_late": 0},
        "by_trigger": {"putback": 2, "tick": 2, "setattr": 0, "slice": 0},
        "by_trigger_outcome": {
            "putback": {"pushed": 0, "no_better_cpu": 1, "not_allowed": 1, "raced": 0},
            "tick": {"pushed": 1, "no_better_cpu": 0, "not_allowed": 0, "raced": 1},
            "setattr": {"pushed": 0, "no_better_cpu": 0, "not_allowed": 0, "raced": 0},
            "slice": {"pushed": 0, "no_better_cpu": 0, "not_allowed": 0, "raced": 0}},
        "moves": 1, "moves_by_reason": {"fair_push": 0, "fair_push_tick": 1,
                                        "fair_push_setattr": 0, "fair_push_slice": 0}}
    assert metrics["migrations"]["by_cause"] == {"push": 1}
    t201, t300 = metrics["tasks"]["201"]["push"], metrics["tasks"]["300"]["push"]
    assert (t201["decisions"], t201["by_outcome"]["pushed"], t201["by_outcome"]["not_allowed"],
            t201["moves"]) == (2, 1, 1, 1)
    assert (t300["decisions"], t300["moves"], sum(t300["by_outcome"].values())) == (0, 0, 0)
    # A thread's decision time, without shares; none for u, whose kernel records it.
    assert [(t["cpu_ns"], t["cpu_ns_per_decision"], t["cpu_share"], t["cpu_share_by_cpu"])
            for t in (t201, t300)] == [(5000, 2500.0, None, None), (0, None, None, None)]


def test_capped_placement(metrics):
    # Run time: 200 150 ms, all on P; 201 50 on P + 50 on E; 202 200 on E: 200 of 450.
    # Settled (50 ms after the first run: 200 at 1050, 201 at 1100, 202 at 1050): 200's
    # 1100-1200 on P, 201's 1150-1200 and 202's 1050-1200 on E: 100 of 300.
    # Piles: 200 and 201 both on CPU2 (201 queued, then running, then queued) 1000-1150
    # while P-core CPU3 holds no capped thread (u's run there does not count): 150 ms;
    # both settled from 1100: 50 ms. After the push each is alone.
    c = metrics["capped"]
    assert (c["threads"], c["util_max"], c["settle_ns"]) == (3, [100], 50 * MS)
    assert (c["run_ns"], c["p_ns"], c["run_settled_ns"], c["p_settled_ns"]) == \
        (450 * MS, 200 * MS, 300 * MS, 100 * MS)
    assert (c["p_share"], c["p_share_settled"]) == (pytest.approx(4 / 9), pytest.approx(1 / 3))
    assert (c["stacked_ns"], c["stacked_settled_ns"]) == (150 * MS, 50 * MS)
    # Before each one's first run off the P-cores: 200 never left (150), 201 left at
    # 1150 after 50 on CPU2, 202 never ran on one (0).
    assert c["p_first_ns"] == 200 * MS
    t = metrics["tasks"]
    assert [t[p]["capped"]["p_first_ns"] for p in ("200", "201", "202")] == \
        [150 * MS, 50 * MS, 0]
    assert [(t[p]["capped"]["p_share"], t[p]["capped"]["p_share_settled"],
             t[p]["capped"]["stacked_ns"], t[p]["capped"]["stacked_settled_ns"])
            for p in ("200", "201", "202")] == [(1.0, 1.0, 150 * MS, 50 * MS),
                                                (0.5, 0.0, 150 * MS, 50 * MS),
                                                (0.0, 0.0, 0, 0)]
    assert "capped" not in t["300"]


def test_settling_window_is_a_parameter(tmp_path):
    # No settling: every slice counts (4/9 on P); the pile counts from 1050, when 201
    # first ran, to 1150: 100 ms.
    c = metrics_of(capped_run(tmp_path), settle_ms=0)["capped"]
    assert (c["settle_ns"], c["p_share_settled"], c["stacked_settled_ns"]) == \
        (0, pytest.approx(4 / 9), 100 * MS)


def test_a_pile_needs_an_allowed_free_sibling(tmp_path):
    # Pinned to CPUs 0-2, the threads on CPU2 may not use CPU3: no pile.
    c = metrics_of(capped_run(tmp_path, c_keys={"cpus": [0, 1, 2]}))["capped"]
    assert (c["stacked_ns"], c["stacked_settled_ns"]) == (0, 0)


def test_no_capped_tasks_no_figures(tmp_path):
    d = capped_run(tmp_path)
    with open(os.path.join(d, "profile.json"), encoding="utf-8") as f:
        prof = json.load(f)
    del prof["tasks"]["c"]["util_max"]
    with open(os.path.join(d, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    # The analysis reads the attributes the guest was given, not the profile again.
    with open(os.path.join(d, "guest", "sched-attrs.json"), "w", encoding="utf-8") as f:
        json.dump({}, f)
    m = metrics_of(d)
    assert m["capped"] is None and "capped" not in m["tasks"]["200"]


def test_push_not_traced_and_ab_rows(tmp_path):
    # base has no eas_push: nothing counted (null), and the A/B table has a row for
    # every outcome, trigger and why, valued on the patched side only.
    base, patched = capped_run(tmp_path, "base", untraced=("eas_push",)), capped_run(tmp_path)
    out = tmp_path / "ab"
    report(str(out), [base], [patched], plots=True)
    with open(out / "metrics.json", encoding="utf-8") as f:
        m = json.load(f)["runs"][0]
    assert m["push"] is None and m["tasks"]["201"]["push"] is None
    rows = rows_of(out)
    want = {"pushed": 1, "no_better_cpu": 1, "not_allowed": 1, "raced": 1}
    assert {o: (rows[f"push decisions: {o}"]["n_a"], rows[f"push decisions: {o}"]["b"])
            for o in OUTCOMES} == {o: (0, n) for o, n in want.items()}
    assert [n for n in rows if n.startswith("push decisions")] == \
        ["push decisions"] + [f"push decisions: {o}" for o in OUTCOMES] + \
        [f"push decisions by trigger: {t}" for t in ("putback", "tick", "setattr", "slice")] + \
        [f"push decisions by why: {w}"
         for w in ("none", "stuck_capacity", "stuck_uclamp", "slice_late")] + \
        ["push decisions per move", "push decisions per second"]
    # The capped tasks' figures are the same on both sides.
    p = rows["capped tasks: run time on P-cores"]
    assert (p["a"], p["b"], p["delta"]) == (pytest.approx(400 / 9), pytest.approx(400 / 9), 0)
    text = read_text(out, "report.md")
    assert "Push decisions: not traced by this kernel." in text
    assert "| push decision outcome | putback | tick | setattr | slice | all |" in text
    assert "| not_allowed | 1 | 0 | 0 | 0 | 1 |" in text and "| all | 2 | 2 | 0 | 0 | 4 |" in text
    assert ("Moves by push: 1, fair_push: 0, fair_push_tick: 1, fair_push_setattr: 0, "
            "fair_push_slice: 0. "
            "Decisions per move: 4.0.") in text
    assert ("Capped tasks (3 threads with util_max 100): 44.4% of their run time on P-cores, "
            "33.3% from 50 ms after each one's first run; 150.00 ms with two or more on one CPU "
            "while an allowed CPU of the same type held none, 50.00 ms after settling.") in text
    assert "| 1 (pid 201) | c | 50.0% | 0.0% | 150.00 | 50.00 |" in text


def hog_run(tmp_path, name, cpu, util_max=None):
    """One CPU-bound thread (pid 400) on cpu through [1000, 1100): one 100 ms bucket."""
    t = Trace()
    t.marker(1000, 400, 0, "begin")
    t.marker(1100, 400, 0, "end")
    t.run(cpu, 400, 1000, 1100)
    d = make_run(str(tmp_path / name), t, {"hog": 1}, "e:2:600,p:1:1024", {},
                 keys={"hog": {"util_max": util_max}} if util_max is not None else None)
    write_em(d, [E_EM, E_EM, P_EM])
    return d


# The bound of the hog's 1024 units (clamps left out, time respected): the cheapest
# marginal costs first (see test_analysis.test_energy_and_oracle): 2 x 240 on the E-cores
# at 0.62047 mW/unit (297.825), 2 x 120 at 1.03297 (247.9125), then the P-core's 0.4
# point at 1.128125 for the last 304 (342.95): 888.6875 mW, whatever the placement.
HOG_BOUND = 888.6875


@pytest.mark.parametrize("cpu, util_max, est_mw, oracle_mw, kernel_cheaper, below_bound", [
    # Capped at 100, the 1024 units of work select the lowest point everywhere:
    # P-core 409.6 -> 1024/409.6 x P_P(0.4) = 2.5 x 462.08 = 1155.2 mW;
    # E-core 240 -> 1024/240 x P_E(0.4) = 4.2667 x 148.9125 = 635.36 mW, the search's.
    # On the E-core the model runs it 4.27 buckets in one: below the bound.
    (2, 100, 1155.2, 635.36, 0, 0),
    (0, 100, 635.36, 635.36, 0, 1),
    # Uncapped: the P-core at its top point, 2000 mW, is what the search picks (an
    # E-core would overcommit); on an E-core, overcommitted, 1024/600 x P_E(1.0) =
    # 1100 mW, cheaper than any placement the search tries (counted), though not below
    # the bound, which may split the work over the three CPUs.
    (2, None, 2000.0, 2000.0, 0, 0),
    (0, None, 1100.0, 2000.0, 1, 0),
])
def test_energy_respects_uclamp(tmp_path, cpu, util_max, est_mw, oracle_mw, kernel_cheaper,
                                below_bound):
    e = metrics_of(hog_run(tmp_path, "hog", cpu, util_max))["energy"]
    assert e["estimated_mj"] == pytest.approx(est_mw * 0.1, rel=1e-6)
    assert e["oracle_mj"] == pytest.approx(oracle_mw * 0.1, rel=1e-6)
    assert e["bound_mj"] == pytest.approx(HOG_BOUND * 0.1, rel=1e-6)
    # Uncapped, the search's placement fits in time: never below the bound. Capped, it
    # is priced like the estimate, its E-core at the clamp's point for 4.27 buckets in
    # one: below the bound.
    assert (e["oracle_mj"] < e["bound_mj"]) == (util_max is not None)
    assert e["kernel_cheaper_buckets"] == kernel_cheaper
    assert e["kernel_below_bound_buckets"] == below_bound
    assert (e["estimated_mj"] < e["bound_mj"]) == bool(below_bound)


def test_capped_hog_on_a_p_core_fails_the_energy_check(tmp_path):
    # 1155.2 / 635.36 = 1.818 > 1.05.
    m = metrics_of(hog_run(tmp_path, "hog", 2, 100))
    assert m["energy"]["ratio"] == pytest.approx(1155.2 / 635.36, rel=1e-6)
    assert [c["ok"] for c in m["verdict"]["checks"] if c["name"] == "energy"] == [False]


def test_energy_of_the_capped_run(metrics):
    # Buckets [1000, 1100) and [1100, 1200); capped work at the 0.4 point: 148.9125/240 =
    # 0.62046875 mW a unit on an E-core, 462.08/409.6 = 1.128125 on a P-core.
    # as placed: 1: CPU0 202 1024 -> 635.36; CPU2 200 + 201 512 + 512 -> 1155.2; CPU3 u
    #               20 ms = 204.8 uncapped, 0.4 point: 204.8/409.6 x 462.08 = 231.04;
    #               sum 2021.6
    #            2: CPU0 635.36; CPU1 201 512 -> 317.68; CPU2 200 1024 -> 1155.2; sum 2108.24
    # search:    1: u alone on an E-core (with a capped thread its clamp would be lifted
    #               and the CPU overcommitted): 204.8/240 x 148.9125 = 127.072; the 2048
    #               capped units on the other at its 0.4 point: 1270.72; sum 1397.792
    #            2: the 2560 capped units on E-cores: 1588.4
    # bound (clamps left out, time respected; marginal mW/unit as in test_analysis's
    # test_energy_and_oracle, P-cores 2.478125 from 614.4 to 819.2):
    #            1: 2252.8 units: the E-cores' 0.62047 (480: 297.825), 1.03297 (240:
    #               247.9125), the P-cores' 0.4 point (819.2: 924.16), the E-cores' 1.36297
    #               (240: 327.1125) and 1.73422 (240: 416.2125), 233.6 at the P-cores'
    #               1.878125 (438.73): 2651.9525
    #            2: 2560 units: the same to 2019.2 (2213.2225), 409.6 at 1.878125
    #               (769.28), 131.2 at 2.478125 (325.13): 3307.6325
    # The estimate is below the bound in both: the capped CPUs run at 0.4, the model
    # running their 1024 units for 4.27 (E) or 2.5 (P) buckets in one.
    e = metrics["energy"]
    assert e["estimated_mj"] == pytest.approx((2021.6 + 2108.24) * 0.1, rel=1e-6)
    assert e["oracle_mj"] == pytest.approx((1397.792 + 1588.4) * 0.1, rel=1e-6)
    assert e["estimated_mj"] >= e["oracle_mj"]
    assert e["bound_mj"] == pytest.approx((2651.9525 + 3307.6325) * 0.1, rel=1e-6)
    assert [row[1:] for row in e["series"]] == [
        [pytest.approx(x) for x in row] for row in ((2021.6, 1397.792, 2651.9525),
                                                    (2108.24, 1588.4, 3307.6325))]
    assert (e["kernel_cheaper_buckets"], e["kernel_below_bound_buckets"],
            e["bound_infeasible_buckets"], e["oracle_inexact_buckets"]) == (0, 2, 0, 0)
