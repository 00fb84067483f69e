"""The analysis on a synthetic run whose every number was worked out by hand.

Platform e:2:600,p:1:1024: CPUs 0-1 are E-cores (capacity 600), CPU 2 a P-core.
Profile tasks a (pid 100, thread 0) and b (pid 101, thread 1); the profile's
window is [1000, 1200) ms (first "begins loop" to the last "end loop").

  CPU0 (E): a 1000-1020, a 1050-1060, b 1120-1150
  CPU1 (E): kthread 7 990-995 (before the window), a 1071-1081, kthread 7 1130-1132
  CPU2 (P): kthread 7 990-995, b 1000-1100, a 1160-1190, b 1192-1198
  moves:    a 0->1 at 1070 wakeup, b 2->0 at 1110 lb_busy,
            a 1->2 at 1159 active_misfit, b 0->2 at 1191 without a reason
  decisions: a 0->1 at 1068 by spare_tie (unless tie=False); kthread 7 at 990
  wakeups:  a 1049 (runs 1050), a 1068 (1071), b 1118 (1120), a 1156 (1160)
  util:     a 100 from 1000; b 550 from 1000 (fits the P-core only), recorded on CPU2 at
            1000 and on CPU0 at 1120
"""
import json
import os
import subprocess

import pytest

from conftest import run
from inprocess import metrics_of, read_text, report, rows_of
from easlab.synthetic_run import MS, REPORT, Trace, kernel_reasons, make_run, write_em

from easan import causes

E_COSTS, P_COSTS = [104, 105, 106, 107], [130, 131, 132, 133]


def scenario(tmp_path, name="run-a", slack_a=(0, 0, -5, 0), pid_b=101, e_perf=20000,
             record=None, tie=True, untraced=(), moves=(), delayed=()):
    """moves: more (t, pid, src, dst, reason) migrations; delayed: more (t, pid, cpu)
    delayed-dequeue wakeups."""
    t = Trace()
    for move in moves:
        t.migrate(*move)
    for wake in delayed:
        t.delayed(*wake)
    t.decision(990, 7, 2, 1, "spare_tie")
    t.run(1, 7, 990, 995)
    t.run(2, 7, 990, 995)
    t.marker(1000, 100, 0, "begin")
    t.marker(1000, pid_b, 1, "begin")
    t.util(1000, 100, 0, 100)
    t.util(1000, pid_b, 2, 550)
    t.run(0, 100, 1000, 1020)
    t.run(2, pid_b, 1000, 1100)
    t.wakeup(1049, 100, 0)
    t.run(0, 100, 1050, 1060)
    if tie:
        t.decision(1068, 100, 0, 1, "spare_tie")
    t.wakeup(1068, 100, 1)
    t.migrate(1070, 100, 0, 1, "wakeup")
    t.run(1, 100, 1071, 1081)
    t.migrate(1110, pid_b, 2, 0, "lb_busy")
    t.wakeup(1118, pid_b, 0)
    t.util(1120, pid_b, 0, 550)
    t.run(0, pid_b, 1120, 1150)
    t.run(1, 7, 1130, 1132)
    t.wakeup(1156, 100, 2)
    t.migrate(1159, 100, 1, 2, "active_misfit")
    t.run(2, 100, 1160, 1190)
    t.migrate(1191, pid_b, 0, 2, "unknown")
    t.run(2, pid_b, 1192, 1198)
    t.delayed(1195, 100, 2)
    t.marker(1200, 100, 0, "end")
    # perf/run = 2 loops/us everywhere (e_perf / 10000 on the E-cores): speed undistorted.
    logs = {0: [(e_perf, 10000, 1000, slack_a[0]), (e_perf, 10000, 1050, slack_a[1]),
                (e_perf, 10000, 1071, slack_a[2]), (20000, 10000, 1160, slack_a[3])],
            1: [(20000, 10000, 1000, 0), (e_perf, 10000, 1120, 0)]}
    d = make_run(str(tmp_path / name), t, {"a": 1, "b": 1}, "e:2:600,p:1:1024", logs,
                 comms={7: "kworker", 100: "a", pid_b: "b"}, record=record, untraced=untraced)
    write_em(d, [(600, E_COSTS), (600, E_COSTS), (1024, P_COSTS)])
    return d


def run_report(d):
    """The report.md analysis/report writes for run folder d."""
    return read_text(os.path.join(d, "analysis", "report"), "report.md")


@pytest.fixture(name="metrics")
def fixture_metrics(tmp_path):
    return metrics_of(scenario(tmp_path))


def test_window_and_threads(metrics):
    assert metrics["window_ns"] == [1000 * MS, 1200 * MS]
    assert {t["task"] for t in metrics["tasks"].values()} == {"a", "b"}


def test_migrations_by_direction_and_cause(metrics):
    m = metrics["migrations"]
    assert (m["total"], m["same"], m["up"], m["down"]) == (4, 1, 2, 1)
    assert m["by_cause"] == {"wakeup": 1, "load_balance": 1, "misfit": 1, "unknown": 1}
    assert m["by_reason"] == {"active_misfit": 1, "lb_busy": 1, "unknown": 1, "wakeup": 1}
    # a 0->1 (E->E) at wakeup, b 2->0 (P->E) by lb_busy, a 1->2 and b 0->2 (E->P).
    assert m["by_reason_direction"] == {
        "active_misfit": {"same": 0, "up": 1, "down": 0},
        "lb_busy": {"same": 0, "up": 0, "down": 1},
        "unknown": {"same": 0, "up": 1, "down": 0},
        "wakeup": {"same": 1, "up": 0, "down": 0}}
    a = metrics["tasks"]["100"]["migrations"]
    assert (a["same"], a["up"], a["down"]) == (1, 1, 0)


def test_unknown_moves(metrics):
    # b 0->2 at 1191: no eas_migrate_reason announced it.
    assert metrics["unknown_moves"] == 1


def test_unknown_moves_cover_the_whole_trace(tmp_path):
    # Besides b's move at 1191: a's move at 996 (before the window) without a reason
    # and b's at 1205 (after it) with a value the kernel's format did not name count;
    # kthread 7's move, not a profile thread's, does not. The window's counts keep
    # their one unknown move.
    d = scenario(tmp_path, moves=[(996, 100, 2, 0, "unknown"), (997, 7, 0, 1, "unknown"),
                                  (1205, 101, 2, 1, "reason_20")])
    m = metrics_of(d)
    assert m["unknown_moves"] == 3
    assert (m["migrations"]["total"], m["migrations"]["by_cause"]["unknown"]) == (4, 1)
    assert "| moves no cause explains, whole trace | 3 |" in run_report(d)


def test_every_kernel_reason_has_a_cause():
    # Every reason of the series' enum sched_migrate_reason but "unknown" names a
    # cause, and every cause has a place in ORDER (hence a colour), "unknown" last.
    reasons = kernel_reasons("SCHED_MIG")
    assert reasons[0] == "unknown" and {"rt_push", "dl_pull", "scx"} <= set(reasons)
    assert [r for r in reasons if causes.cause_of(r) == "unknown"] == ["unknown"]
    assert set(causes.CAUSES.values()) | {"unknown"} == set(causes.ORDER)
    assert causes.ORDER[-1] == "unknown" and len(set(causes.ORDER)) == len(causes.ORDER)
    assert {r: causes.cause_of(r) for r in ("numa_swap", "rt_pull", "dl_push", "core_steal",
                                            "fair_push", "fair_push_tick")} == {
        "numa_swap": "numa", "rt_pull": "rt_dl", "dl_push": "rt_dl", "core_steal": "other",
        "fair_push": "push", "fair_push_tick": "push"}


def test_every_placement_and_push_reason_has_an_ab_row(tmp_path):
    # Each name of the series' enums sched_placement_reason ("none" aside), of the push
    # decisions' outcomes, whys and triggers, and each migration reason of cause push
    # has its A/B row once the kernel traced the event, though none happened here.
    a = b = scenario(tmp_path, tie=False)
    out = str(tmp_path / "ab")
    report(out, [a], [b])
    rows = rows_of(out)
    reasons = kernel_reasons("SCHED_PLACE")
    assert reasons[0] == "none" and len(reasons) >= 4
    want = [f"placement decisions: {r}" for r in reasons[1:]]
    want += [f"push decisions: {o}" for o in kernel_reasons("SCHED_PUSH_OUTCOMES")]
    want += [f"push decisions by why: {w}" for w in kernel_reasons("SCHED_PUSH_WHYS")]
    want += [f"push decisions by trigger: {t}" for t in kernel_reasons("SCHED_PUSH_TRIGGERS")]
    want += [f"push moves: {r}" for r in kernel_reasons("SCHED_MIG")
             if causes.cause_of(r) == "push"]
    assert "push moves: fair_push_tick" in want
    assert [(rows[n]["a"], rows[n]["b"]) for n in want] == [(0, 0)] * len(want)


def test_new_causes_reach_plots_and_ab(tmp_path):
    # Moves of each new cause in both groups: the A/B rows list them in ORDER and
    # the figures draw them (each cause its own colour).
    extra = [(1002, 100, 0, 1, "numa"), (1003, 100, 1, 0, "rt_push"),
             (1004, 100, 0, 1, "core_steal"), (1005, 100, 1, 0, "fair_push_tick")]
    a, b = scenario(tmp_path, "a", moves=extra), scenario(tmp_path, "b", moves=extra[:2])
    out = tmp_path / "ab"
    report(str(out), [a], [b], plots=True)
    rows = [name for name in rows_of(out) if name.startswith("migrations: ")]
    assert rows == [f"migrations: {c}" for c in ("wakeup", "load_balance", "misfit", "push", "numa",
                                                 "rt_dl", "other", "unknown")]
    assert (out / "causes.png").stat().st_size > 0 and (out / "run0-timeline.png").stat().st_size > 0


def test_report_lists_reasons_with_directions(tmp_path):
    d = scenario(tmp_path)
    metrics_of(d)
    text = run_report(d)
    assert ("| by kernel reason (same / up / down) | active_misfit: 1 (0 / 1 / 0), "
            "lb_busy: 1 (0 / 0 / 1), unknown: 1 (0 / 1 / 0), wakeup: 1 (1 / 0 / 0) |") in text


def test_residency(metrics):
    a, b = metrics["tasks"]["100"]["residency_ns"], metrics["tasks"]["101"]["residency_ns"]
    assert a["cpu"] == {"0": 30 * MS, "1": 10 * MS, "2": 30 * MS}
    assert a["type"] == {"e": 40 * MS, "p": 30 * MS}
    assert b["type"] == {"p": 106 * MS, "e": 30 * MS}
    # 136 of 206 ms of profile run time on the P-core.
    assert metrics["residency_share"] == pytest.approx({"e": 70 / 206, "p": 136 / 206})
    # Work in ns of a capacity-1024 CPU: without capacity-faithful speed every vCPU runs
    # at the host's speed, so b's 106 ms on the P-core and 30 ms on an E-core are 136 ms
    # of work (test_work_under_faithful_speed: 30 x 600/1024 on the E-core with it).
    assert metrics["tasks"]["101"]["work_ns"] == pytest.approx(136 * MS)


def test_work_under_faithful_speed(tmp_path):
    # Capacity-faithful speed: an E-core delivers 600/1024 of the P-core's work per ns.
    m = metrics_of(scenario(tmp_path, "faithful", e_perf=11719, record={"faithful_speed": True}))
    assert m["tasks"]["101"]["work_ns"] == pytest.approx(106 * MS + 30 * MS * 600 / 1024)


def test_outside_share(metrics):
    # kthread 7 ran 2 ms inside the window; profile threads 70 + 136 ms.
    assert metrics["outside"]["outside_ns"] == 2 * MS
    assert metrics["outside"]["share"] == pytest.approx(2 / 208)


def test_wakeup_latency_percentiles(metrics):
    # Latencies 1, 3, 2, 4 ms; "lower" percentiles: p50 = 2, p95 = p99 = 3, max 4.
    lat = metrics["wakeup_latency_ns"]
    assert (lat["n"], lat["p50"], lat["p95"], lat["p99"], lat["max"]) == (4, 2 * MS, 3 * MS, 3 * MS, 4 * MS)
    assert metrics["tasks"]["101"]["wakeup_latency_ns"]["max"] == 2 * MS
    # By profile task: a's 1, 3, 4 ms (p50 = p99 = 3 ms, "lower"), b's 2 ms.
    a, b = (metrics["wakeup_latency_by_task_ns"][k] for k in ("a", "b"))
    assert (a["n"], a["p50"], a["p99"], a["max"]) == (3, 3 * MS, 3 * MS, 4 * MS)
    assert (b["n"], b["p50"], b["max"]) == (1, 2 * MS, 2 * MS)


def test_wakeup_latency_by_path(tmp_path, metrics):
    # a: 1049 (1 ms) and 1156 (4 ms) selected, 1068 (3 ms) placed by spare_tie; b: 1118
    # (2 ms) selected. a's delayed wakeup at 1195 has no wakeup after it: no path.
    a, b = (metrics["wakeup_latency_by_path_ns"][k] for k in ("a", "b"))
    assert (a["selected"]["n"], a["selected"]["p50"], a["selected"]["max"]) == (2, 1 * MS, 4 * MS)
    assert (a["heuristic"]["n"], a["heuristic"]["max"]) == (1, 3 * MS)
    assert a["delayed"]["n"] == 0 and a["delayed"]["p50"] is None
    assert (b["selected"]["n"], b["delayed"]["n"], b["heuristic"]["n"]) == (1, 0, 0)
    # Delayed requeues of b at 1117 (after its switch-in at 1000: its 1118 wakeup) and
    # of a at 1049 (after a's switch-in at 1000) and 1067 (after 1050: the 1068 wakeup,
    # whose spare_tie decision then does not count: no selection ran for it).
    m = metrics_of(scenario(tmp_path, "paths", delayed=[(1117, 101, 0), (1049, 100, 0),
                                                         (1067, 100, 0)]))
    a, b = (m["wakeup_latency_by_path_ns"][k] for k in ("a", "b"))
    assert (b["delayed"]["n"], b["delayed"]["max"], b["selected"]["n"]) == (1, 2 * MS, 0)
    assert (a["delayed"]["n"], a["delayed"]["max"]) == (2, 3 * MS)
    assert (a["selected"]["n"], a["heuristic"]["n"]) == (1, 0)


def test_delayed_wakeups_counted(metrics):
    assert metrics["delayed_wakeups"] == 1
    assert metrics["tasks"]["100"]["delayed_wakeups"] == 1


def test_placement_decisions_counted(metrics):
    # The kthread's decision, outside the profile and the window, is left out.
    assert metrics["placement_decisions"] == {"spare_tie": 1}
    assert metrics["tasks"]["100"]["placement_decisions"] == {"spare_tie": 1}
    assert metrics["tasks"]["101"]["placement_decisions"] == {}


def test_placement_decisions_not_traced(tmp_path):
    # A kernel without eas_placement_decision (base) counts nothing, not zero; an A/B
    # row then has no value on that side rather than a false 0.
    d = scenario(tmp_path, "base", tie=False, untraced=("eas_placement_decision",))
    p = scenario(tmp_path, "patched")
    out = tmp_path / "ab"
    report(str(out), [d], [p])
    with open(out / "metrics.json", encoding="utf-8") as f:
        m = json.load(f)["runs"][0]
    assert m["placement_decisions"] is None
    assert m["tasks"]["100"]["placement_decisions"] is None
    rows = rows_of(out)
    tie = rows["placement decisions: spare_tie"]
    assert (tie["n_a"], tie["b"], tie["n_b"]) == (0, 1, 1)
    # Every heuristic the analysis knows has its row once a kernel traced the event.
    fewer = rows["placement decisions: fewer_runnable"]
    assert (fewer["n_a"], fewer["b"], fewer["n_b"]) == (0, 0, 1)
    with open(out / "report.md", encoding="utf-8") as f:
        assert "| placement heuristics that overrode mainline | not traced by this kernel |" \
            in f.read()


def test_stuck_and_reaction(metrics):
    # b (util 550 fits only the P-core) waits 1118-1120 and runs on E-core CPU0
    # 1120-1150 while CPU2 idles (1100-1160): 2 + 30 ms stuck in one stretch.
    b = metrics["tasks"]["101"]["stuck"]
    assert (b["stuck_ns"], b["longest_stuck_ns"]) == (32 * MS, 32 * MS)
    assert (b["misfit_ns"], b["misfit_stuck_ns"], b["waiting_stuck_ns"]) == (30 * MS, 30 * MS, 2 * MS)
    # Its util event on CPU0 at 1120 crosses that E-core's threshold (550 x 1.25 >= 600);
    # its switch-in there at 1120 does not end the episode, the next on the P-core at
    # 1192 does: 72 ms from the crossing, 192 ms from its phase's start at 1000.
    assert metrics["tasks"]["101"]["reaction"] == [{
        "crossing_ns": 1120 * MS, "cpu": 0, "util": 550.0, "outcome": "reacted",
        "end_ns": 1192 * MS, "to_cpu": 2, "from_crossing_ns": 72 * MS,
        "from_phase_start_ns": 192 * MS}]
    assert metrics["tasks"]["100"]["reaction"] == []
    r = metrics["reaction"]
    assert (r["episodes"], r["reacted"], r["in_place"], r["open"]) == (1, 1, 0, 0)
    assert (r["from_crossing_ns"]["p50"], r["from_phase_start_ns"]["p95"]) == (72 * MS, 192 * MS)
    # a (util 100 fits anywhere) only waits, 1 + 3 + 4 ms after its wakeups, each
    # time with an E-core idle.
    a = metrics["tasks"]["100"]["stuck"]
    assert (a["stuck_ns"], a["longest_stuck_ns"], a["waiting_stuck_ns"]) == (8 * MS, 4 * MS, 8 * MS)


def test_energy_and_oracle(metrics):
    # Buckets [1000, 1100) and [1100, 1200), power in mW (see power_model):
    #   P_E(0.4) = 1100 x 600/1024 x 0.4 x 0.76^2 = 148.9125; P_E(0.6) = 272.86875
    #   P_E(0.8) = 436.425; P_E(1.0) = 644.53125; P_P(0.4) = 462.08; P_P(1.0) = 2000
    # No capacity-faithful speed: work = run time / 100 ms x 1024 on any CPU.
    # as placed: 1: CPU0 307.2 -> 0.85333 x P_E(0.6) = 232.848; CPU1 102.4 -> 0.42667 x P_E(0.4)
    #               = 63.536; CPU2 1024 -> 2000; sum 2296.384
    #            2: CPU0 307.2 -> 232.848; CPU2 368.64 -> 0.9 x P_P(0.4) = 415.872; sum 648.72
    # search:    1: b 1024 must take the P-core, a 409.6 on an E-core: 0.85333 x P_E(0.8)
    #               = 372.416; sum 2372.416
    #            2: a 307.2 and b 368.64 on two E-cores: 232.848 + 0.768 x P_E(0.8) = 568.0224
    # The kernel's placement in bucket 1 splits a over two E-cores at lower points than
    # one would need: cheaper than the search (2296.384 < 2372.416), and counted so; the
    # oracle stays the search's (it used to take the cheaper of the two).
    # bound (the LP: each CPU's work at most f x capacity per point, time shared between
    # points; a unit of work costs P(f) / (f x cap), so a CPU's cheapest way to deliver
    # w units is its points' lower hull, marginal mW/unit: E 0.62047 up to 240, 1.03297
    # to 360, 1.36297 to 480, 1.73422 to 600; P 1.128125 up to 409.6, 1.878125 to
    # 614.4): the tasks' total work filled in at the cheapest marginal costs first.
    #            1: 1433.6 units: 2 x 240 at 0.62047 (297.825), 2 x 120 at 1.03297
    #               (247.9125), 409.6 on P (462.08), 2 x 120 at 1.36297 (327.1125), the
    #               last 64 at 1.73422 (110.99): 1445.92
    #            2: 675.84 units: 297.825 + 195.84 x 1.03297 (202.2966) = 500.1216
    e = metrics["energy"]
    assert e["estimated_mj"] == pytest.approx((2296.384 + 648.72) * 0.1, rel=1e-6)
    assert e["oracle_mj"] == pytest.approx((2372.416 + 568.0224) * 0.1, rel=1e-6)
    assert e["ratio"] == pytest.approx(294.5104 / 294.04384, rel=1e-6)
    assert (e["buckets"], e["kernel_cheaper_buckets"], e["oracle_inexact_buckets"]) == (2, 1, 0)
    assert e["bound_mj"] == pytest.approx((1445.92 + 500.1216) * 0.1, rel=1e-6)
    assert e["estimated_bounded_mj"] == pytest.approx(e["estimated_mj"])
    assert e["ratio_to_bound"] == pytest.approx(294.5104 / 194.60416, rel=1e-6)
    assert (e["bound_infeasible_buckets"], e["kernel_below_bound_buckets"]) == (0, 0)
    assert e["series"] == [[1000 * MS, pytest.approx(2296.384), pytest.approx(2372.416),
                            pytest.approx(1445.92)],
                           [1100 * MS, pytest.approx(648.72), pytest.approx(568.0224),
                            pytest.approx(500.1216)]]


def test_slack_fidelity_and_verdict(metrics):
    assert metrics["slack"]["0"] == {"activations": 4, "negative": 1, "share_negative": 0.25, "missed": 0}
    # A synthetic run has no host samples: steal not measured, the verdict not held
    # back; rt-app's perf/run stays as a diagnostic (tests/host/test_host_steal.py).
    assert metrics["fidelity"]["distorted"] is None
    assert metrics["fidelity"]["reason"] == "no host samples"
    assert metrics["fidelity"]["speed"]["per_cpu"] == {"0": 2.0, "1": 2.0, "2": 2.0}
    # Every clean run took the time its loops were calibrated for (c_duration = perf / 2).
    w = metrics["fidelity"]["work"]
    assert (w["median"], w["off_band"]) == (1.0, False) and w["activations"] >= 5
    v = metrics["verdict"]
    assert v["verdict"] == "fail"
    assert [c["name"] for c in v["checks"] if not c["ok"]] == ["slack"]


def test_faithful_speed_reaches_the_metrics(tmp_path):
    # E-cores at 600/1024 of the P-core's 2 loops/us: 11718.75 loops in 10 ms.
    for name, record, want in (("faithful", {"faithful_speed": True}, True),
                               ("plain", None, False)):
        m = metrics_of(scenario(tmp_path, name, e_perf=11719, record=record))
        assert m["faithful_speed"] is want
        assert m["fidelity"]["speed"]["per_cpu"] == pytest.approx({"0": 1.1719, "1": 1.1719, "2": 2.0})


def test_label_names_the_setup_file(tmp_path):
    # A recorded SETUP file name labels the run; a bare snippet falls back to its lines.
    snippet = "#!/bin/sh\n# comment\necho EAS_SPARE_TIE > f\n"
    for name, record, want in (
            ("named", {"setup": snippet, "setup_name": "eas-spare-tie"},
             "patched [eas-spare-tie]"),
            ("bare", {"setup": snippet}, "patched [echo EAS_SPARE_TIE > f]"),
            ("none", None, "patched")):
        assert metrics_of(scenario(tmp_path, name, record=record))["label"] == want


def test_verdict_passes_without_negative_slack(tmp_path):
    assert metrics_of(scenario(tmp_path, slack_a=(0, 0, 0, 0)))["verdict"]["verdict"] == "pass"


def test_ab_table_with_confidence_interval(tmp_path):
    # analysis/report itself: the A/B table is also printed.
    a = [scenario(tmp_path, f"a{i}") for i in range(2)]
    b = [scenario(tmp_path, f"b{i}", slack_a=(0, 0, 0, 0), tie=False) for i in range(2)]
    out = tmp_path / "ab"
    r = run([REPORT, "-o", str(out), *a, "--vs", *b], timeout=180)
    assert r.returncode == 0, r.stderr
    assert "B - A" in r.stdout and "migrations: misfit" in r.stdout
    with open(out / "comparison.json", encoding="utf-8") as f:
        rows = {row["name"]: row for row in json.load(f)["rows"]}
    # Identical runs: delta 0 and a zero-width interval from two repetitions.
    assert rows["migrations"]["a"] == 4 and rows["migrations"]["delta"] == 0
    assert rows["migrations"]["delta_ci"] == 0
    # A heuristic that never fired in B counts 0 there, not "not measured".
    tie = rows["placement decisions: spare_tie"]
    assert (tie["a"], tie["b"], tie["n_b"], tie["delta"]) == (1, 0, 2, -1)
    for name in ("report.html", "report.md", "metrics.json", "causes.png", "energy.png",
                 "latency.png", "run0-timeline.png"):
        assert (out / name).stat().st_size > 0


def test_perfetto_export(tmp_path):
    out = report(None, [scenario(tmp_path)], perfetto=True).path
    with open(os.path.join(out, "run0-perfetto.json"), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    # a ran 4 times, b 3 times inside the window.
    assert sorted(e["name"] for e in slices).count("a [0]") == 4
    assert [e["name"] for e in events if e["ph"] == "i"].count("migrate misfit") == 1


@pytest.mark.parametrize("breakage, message", [
    ("missing", "no such run folder"),
    ("empty-trace", "empty file"),
    ("garbage-trace", "not a readable trace-cmd file"),
    ("em-mismatch", "tops at performance 1024 in the EM, but its capacity is 600"),
    ("em-missing-cpu", "no perf domain for CPU(s) [2]"),
    ("bad-profile", "tasks.a: unknown key 'peroid'"),
    ("bad-run-json", "malformed run record"),
    ("timed-out", "did not complete (status 'timeout')"),
])
def test_bad_input_is_one_clear_line(tmp_path, breakage, message):
    # analysis/report itself: one error line, exit status 1, nothing written.
    d = scenario(tmp_path)
    if breakage == "missing":
        d = str(tmp_path / "nope")
    elif breakage in ("empty-trace", "garbage-trace"):
        with open(os.path.join(d, "trace.dat"), "wb") as f:
            f.write(b"" if breakage == "empty-trace" else b"\x17\x08\x44tracing6" + b"\0" * 64)
    elif breakage == "em-mismatch":
        with open(os.path.join(d, "energy_model", "cpu2", "cpus"), "w", encoding="utf-8") as f:
            f.write("1\n")
        os.rename(os.path.join(d, "energy_model", "cpu1"), os.path.join(d, "energy_model", "old"))
        subprocess.run(["rm", "-rf", os.path.join(d, "energy_model", "old")], check=True)
    elif breakage == "em-missing-cpu":
        subprocess.run(["rm", "-rf", os.path.join(d, "energy_model", "cpu2")], check=True)
    elif breakage == "bad-profile":
        with open(os.path.join(d, "profile.json"), encoding="utf-8") as f:
            prof = json.load(f)
        prof["tasks"]["a"]["peroid"] = 3
        with open(os.path.join(d, "profile.json"), "w", encoding="utf-8") as f:
            json.dump(prof, f)
    elif breakage == "bad-run-json":
        with open(os.path.join(d, "run.json"), "w", encoding="utf-8") as f:
            f.write("{")
    elif breakage == "timed-out":
        with open(os.path.join(d, "run.json"), "w", encoding="utf-8") as f:
            json.dump({"status": "timeout"}, f)
    out = tmp_path / "out"
    r = run([REPORT, "-o", str(out), d], timeout=120)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert lines[-1].startswith("report: error: ") and message in lines[-1], r.stderr
    assert len([l for l in lines if "error" in l]) == 1
    assert not out.exists(), "a failed report must leave nothing behind"


def test_cost_only_domains_pass_the_em_check(tmp_path):
    """v0.21 domains: one per type, one state with frequency and performance 0."""
    d = scenario(tmp_path)
    subprocess.run(["rm", "-rf", os.path.join(d, "energy_model")], check=True)
    for name, cpus, cost in (("cpu0", "0-1", 100), ("cpu2", "2", 126)):
        ps = os.path.join(d, "energy_model", name, "ps:0")
        os.makedirs(ps)
        with open(os.path.join(d, "energy_model", name, "cpus"), "w", encoding="utf-8") as f:
            f.write(cpus + "\n")
        for key, value in (("performance", 0), ("cost", cost), ("frequency", 0), ("power", 0)):
            with open(os.path.join(ps, key), "w", encoding="utf-8") as f:
                f.write(f"{value}\n")
    assert metrics_of(d)["run"] == "run-a"


def test_sweep_analyses_in_process(tmp_path):
    # A sweep's analysis (sweep.analyse) is easan's pipeline called in the sweep's own
    # process: the same metrics as analysis/report's, written next to the run once.
    from easlab import sweep  # pylint: disable=import-outside-toplevel
    d = scenario(tmp_path)
    m, err = sweep.analyse(d)
    assert err == "" and m["migrations"]["by_reason"] == {
        "active_misfit": 1, "lb_busy": 1, "unknown": 1, "wakeup": 1}
    assert os.path.exists(os.path.join(d, "analysis", "report", "metrics.json"))
    # A run folder the analysis refuses: no metrics, the error in one line, no raise.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "trace.dat").write_bytes(b"")
    m, err = sweep.analyse(str(bad))
    assert m is None and err and "\n" not in err
