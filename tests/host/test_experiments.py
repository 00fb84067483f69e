"""Experiments as data (analysis/easan/experiment.py) and sweeps (sweep.py): file
validation, claim verdicts on hand-made metrics, resume hashing, the run-folder
channel of guest/host/run.sh, and the LAVA export checked by LAVA's own schema."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import TOP, run

from easlab import claims
from easlab import experiment as ex
from easlab import sweep

SWEEP = os.path.join(TOP, "analysis", "sweep")

GOOD = {
    "description": "test",
    "busy_vcpus": 2,
    "repetitions": 2,
    "profiles": ["smoke"],
    "platform": "e:1:600,p:1:1024",
    "groups": {"a": {"kernel": "base"}, "b": {"cmdline": "x=1", "setup": "push-on"}},
    "metrics": {"moves": {"path": "migrations.same", "default": 0},
                "reaction": {"path": "reaction.list[].from_crossing_ns"}},
    "claims": [{"written": "2026-12-06", "metric": "moves", "lhs": "b", "op": "<", "rhs": "a"}],
}


def write(tmp_path, data, name="exp.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(p)


def with_(**changes):
    d = json.loads(json.dumps(GOOD))
    for k, v in changes.items():
        node, *rest = k.split("__")
        target = d
        keys = [node] + rest
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if v is DELETE:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = v
        else:
            target[last] = v
    return d


DELETE = object()


# ---------------------------------------------------------------- the files

@pytest.mark.parametrize("path", sorted(p for p in os.listdir(os.path.join(TOP, "experiments"))
                                         if p.endswith(".json")))
def test_every_experiment_file_is_valid(path):
    exp = ex.load(os.path.join(TOP, "experiments", path))
    assert exp.claims and exp.groups and exp.busy_vcpus >= 1
    if exp.small:
        small = ex.load(os.path.join(TOP, "experiments", path), small=True)
        assert all(g.platform == exp.small["platform"] for g in small.groups.values())


def test_good_file_loads(tmp_path):
    exp = ex.load(write(tmp_path, GOOD))
    assert exp.groups["a"].kernel == "base" and exp.groups["b"].kernel == "patched"
    assert exp.groups["b"].setups == [os.path.join(TOP, "guest", "vm", "setups", "push-on.sh")]
    assert exp.vcpus == 2 and exp.repetitions == 2


@pytest.mark.parametrize("changes,key,needle", [
    ({"colour": "red"}, "colour", "unknown key"),
    ({"busy_vcpus": DELETE}, "busy_vcpus", "missing"),
    ({"busy_vcpus": 0}, "busy_vcpus", "whole number"),
    ({"repetitions": "3"}, "repetitions", "whole number"),
    ({"platform": "e-4-600"}, "platform", "TYPE:COUNT:CAPACITY"),
    ({"profiles": ["no-such-profile"]}, "profiles[0]", "not found"),
    ({"groups__a__kernel": "vanilla"}, "groups.a.kernel", "not one of"),
    ({"groups__a__setup": "nope"}, "groups.a.setup[0]", "not found"),
    ({"groups__a__cmdline": "hybrid_sim=p:2:1024"}, "groups.a.cmdline", "platform"),
    ({"groups__a__speed": 3}, "groups.a.speed", "unknown key"),
    ({"metrics__moves__path": "a..b"}, "metrics.moves.path", "dotted keys"),
    ({"claims__0__rhs": "c"}, "claims[0].rhs", "not a group"),
    ({"claims__0__op": "=<"}, "claims[0].op", "not one of"),
    ({"claims__0__metric": "nope"}, "claims[0].metric", "not in 'metrics'"),
    ({"claims__0__stat": "p95"}, "claims[0].stat", "percentile needs a metric with a list"),
    ({"claims__0__stat": "median"}, "claims[0].stat", "not mean"),
    ({"claims__0__value": 3}, "claims[0]", "either 'rhs'"),
    ({"claims__0__op": "=="}, "claims[0].op", "needs stat min or max"),
    ({"claims__0__profiles": ["many-small"]}, "claims[0].profiles", "not one of the experiment's"),
    ({"platform": "p:1:1024"}, "groups.a.platform", None),   # smoke calibrates on CPU0: fine
    ({"warmup": -1}, "warmup", "whole number"),
    ({"warmup": 4}, "warmup", "whole number 0..3"),
    ({"warmup": 1}, "groups.a.setup", "warmup replays need a setup"),   # a has none
])
def test_bad_file_is_one_error_naming_file_and_key(tmp_path, changes, key, needle):
    path = write(tmp_path, with_(**changes))
    if needle is None:
        ex.load(path)
        return
    with pytest.raises(ex.ExperimentError) as e:
        ex.load(path)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(os.path.relpath(path)), msg
    assert f": {key}: " in msg and needle in msg, msg


def test_calibration_cpu_outside_the_platform(tmp_path):
    d = with_(profiles=["many-small"])    # calibrates on CPU4
    with pytest.raises(ex.ExperimentError) as e:
        ex.load(write(tmp_path, d))
    assert "groups.a.platform" in str(e.value) and "CPU4" in str(e.value)


def test_small_platform(tmp_path):
    d = with_(platform="e:4:600,p:2:1024", busy_vcpus=6)
    d["small"] = {"platform": "e:1:600,p:1:1024", "busy_vcpus": 2, "why": "fits"}
    d["groups"]["a"]["platform"] = "e:2:600,p:2:1024"
    exp = ex.load(write(tmp_path, d), small=True)
    assert {g.platform for g in exp.groups.values()} == {"e:1:600,p:1:1024"}
    assert exp.busy_vcpus == 2 and exp.variant == "small"
    with pytest.raises(ex.ExperimentError, match="small: this experiment offers no smaller"):
        ex.load(write(tmp_path, GOOD, "plain.json"), small=True)


def test_invalid_json_and_cli_errors(tmp_path):
    with pytest.raises(ex.ExperimentError, match="invalid JSON"):
        ex.load(write(tmp_path, "{", "broken.json"))
    r = run([SWEEP, "plan", "no-such-experiment"], timeout=60)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown experiment 'no-such-experiment'" in lines[0], r.stderr
    bad = write(tmp_path, with_(claims__0__op="~"), "bad.json")
    r = run([SWEEP, "plan", bad], timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and "claims[0].op" in lines[0], r.stderr


@pytest.mark.parametrize("reps", ["x", "0", "-2"])
def test_bad_reps_is_one_line_before_any_boot(reps):
    r = run([SWEEP, "run", "smoke"], env={"REPS": reps}, timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and f"REPS={reps}" in lines[0], r.stderr


# ---------------------------------------------------------------- claims

MOVES = ex.MetricSpec("moves", "migrations.same", default=0)
REACTION = ex.MetricSpec("reaction", "reaction.list[].t")


def runs(*values, distorted=()):
    out = []
    for i, v in enumerate(values):
        m = {"run": f"r{i}", "migrations": {} if v is None else {"same": v},
             "fidelity": {"distorted": i in distorted, "reason": "E-cores at 40 % of the P-cores"
                          if i in distorted else None}}
        out.append(m)
    return out


def reaction_runs(*lists):
    return [{"run": f"r{i}", "reaction": {"list": [{"t": x} for x in xs]}, "fidelity": {}}
            for i, xs in enumerate(lists)]


def claim(**kw):
    base = {"text": "t", "metric": "moves", "lhs": "b", "op": "<", "rhs": "a"}
    base.update(kw)
    return ex.Claim(**base)


def test_mean_difference_held_failed_inconclusive():
    a = runs(100, 110, 120, 105, 115)
    b_low = runs(10, 12, 9, 11, 13)
    b_high = runs(200, 210, 190, 205, 195)
    b_close = runs(90, 140, 100, 130, 95)
    assert claims.evaluate(claim(), MOVES, {"a": a, "b": b_low})["verdict"] == claims.HELD
    assert claims.evaluate(claim(), MOVES, {"a": a, "b": b_high})["verdict"] == claims.FAILED
    r = claims.evaluate(claim(), MOVES, {"a": a, "b": b_close})
    assert r["verdict"] == claims.INCONCLUSIVE and "straddles" in r["detail"]
    # Welch by hand for a vs b_low: means 110 and 11, variances 62.5 and 2.5, n = 5.
    d = claims.evaluate(claim(), MOVES, {"a": a, "b": b_low})["delta"]
    assert d["value"] == pytest.approx(-99.0)
    se = (62.5 / 5 + 2.5 / 5) ** 0.5
    df = (62.5 / 5 + 2.5 / 5) ** 2 / ((62.5 / 5) ** 2 / 4 + (2.5 / 5) ** 2 / 4)
    from scipy import stats  # pylint: disable=import-outside-toplevel
    half = stats.t.ppf(0.975, df) * se
    assert d["lo"] == pytest.approx(-99 - half) and d["hi"] == pytest.approx(-99 + half)


def test_factor_and_offset():
    a = runs(100, 100.1, 99.9, 100.05, 99.95)
    b = runs(101, 101.1, 100.9, 101.05, 100.95)     # +1 %
    # b <= 1.02 x a: b - 1.02 a = 101 - 102 = -1 +- small
    assert claims.evaluate(claim(op="<=", factor=1.02), MOVES, {"a": a, "b": b})["verdict"] == claims.HELD
    assert claims.evaluate(claim(op="<=", factor=1.0), MOVES, {"a": a, "b": b})["verdict"] == claims.FAILED
    # b >= a + offset: b - (a + 0.5) = 0.5 > 0
    assert claims.evaluate(claim(op=">=", offset=0.5), MOVES, {"a": a, "b": b})["verdict"] == claims.HELD
    assert claims.evaluate(claim(op=">=", offset=2), MOVES, {"a": a, "b": b})["verdict"] == claims.FAILED


def test_value_claim_uses_the_t_interval():
    b = runs(0.02, 0.03, 0.01, 0.02, 0.025)
    assert claims.evaluate(claim(rhs=None, value=0.05), MOVES, {"b": b})["verdict"] == claims.HELD
    assert claims.evaluate(claim(rhs=None, value=0.0), MOVES, {"b": b})["verdict"] == claims.FAILED
    wide = runs(0.0, 0.1, 0.0, 0.1, 0.05)
    assert claims.evaluate(claim(rhs=None, value=0.05), MOVES, {"b": wide})["verdict"] == claims.INCONCLUSIVE


def test_too_few_runs_and_no_runs_are_inconclusive():
    r = claims.evaluate(claim(), MOVES, {"a": runs(100), "b": runs(1)})
    assert r["verdict"] == claims.INCONCLUSIVE and "fewer than 5 runs" in r["detail"]
    r = claims.evaluate(claim(), MOVES, {"a": runs(100, 101), "b": []})
    assert r["verdict"] == claims.INCONCLUSIVE and "no run of b" in r["detail"]
    # A metric the kernel did not trace (null) is missing, not a 0.
    r = claims.evaluate(claim(), MOVES, {"a": runs(100, 101), "b": [{"run": "x", "migrations": None}]})
    assert r["verdict"] == claims.INCONCLUSIVE


def test_point_mode_judges_single_runs():
    assert claims.evaluate(claim(), MOVES, {"a": runs(100), "b": runs(1)}, point=True)["verdict"] == claims.HELD
    assert claims.evaluate(claim(), MOVES, {"a": runs(1), "b": runs(100)}, point=True)["verdict"] == claims.FAILED


def test_distorted_runs_are_dropped_and_said():
    # The drops do not decide here: b < a on all runs and on the passing ones.
    a = runs(100, 110, 120, 105, 115, 90, distorted=(5,))
    b = runs(10, 12, 30, 11, 13, 9, distorted=(2,))
    r = claims.evaluate(claim(), MOVES, {"a": a, "b": b})
    assert r["verdict"] == claims.HELD
    assert "2 distorted runs dropped" in r["detail"] and "E-cores at 40 %" in r["detail"]
    assert r["lhs"]["n"] == 5 and r["rhs"]["n"] == 5
    assert r["views"][claims.ALL]["lhs"]["n"] == 6
    # Kept when asked (the guest tests judge the runs they have).
    r = claims.evaluate(claim(), MOVES, {"a": a, "b": b}, drop_distorted=False)
    assert r["lhs"]["n"] == 6 and not r["dropped"]
    everything = runs(5, 6, 7, 8, 9, distorted=(0, 1, 2, 3, 4))
    r = claims.evaluate(claim(), MOVES, {"a": a, "b": everything})
    assert r["verdict"] == claims.INCONCLUSIVE and "no run of b" in r["detail"]
    assert "6 distorted runs dropped" in r["detail"]


def test_min_max_are_per_run_and_default_counts_missing_keys():
    ties = ex.MetricSpec("ties", "placement_decisions.spare_tie", default=0)
    v03 = [{"placement_decisions": {}}] * 5
    v021 = [{"placement_decisions": {"spare_tie": n}} for n in (3, 0, 2, 5, 1)]
    c = claim(metric="ties", stat="max", lhs="v03", op="==", rhs=None, value=0)
    assert claims.evaluate(c, ties, {"v03": v03})["verdict"] == claims.HELD
    c = claim(metric="ties", stat="min", lhs="v021", op=">=", rhs=None, value=1)
    assert claims.evaluate(c, ties, {"v021": v021})["verdict"] == claims.FAILED
    c = claim(metric="ties", stat="max", lhs="v021", op=">=", rhs=None, value=1)
    assert claims.evaluate(c, ties, {"v021": v021})["verdict"] == claims.HELD


def test_percentile_claims_pool_runs_with_a_bootstrap_interval():
    fast = reaction_runs([1.0, 2.0, 2.5, 3.0], [1.5, 2.0, 2.5, 3.5], [1.0, 1.5, 2.0, 3.0],
                         [2.0, 2.5, 3.0, 3.5], [1.0, 2.0, 2.0, 3.0])
    slow = reaction_runs([9, 10, 12, 11, 9, 10], [10, 11, 9, 12, 10, 10], [9, 9, 11, 10, 12, 10],
                         [10, 9, 11, 12, 10, 9], [11, 10, 9, 10, 12, 11])
    c = claim(metric="reaction", stat="p95", op="<=", rhs=None, value=4)
    r = claims.evaluate(c, REACTION, {"b": fast})
    # 20 values pooled; type 8: h = (20 + 1/3) x 0.95 + 1/3 = 19.65, between the 19th
    # and 20th smallest, both 3.5.
    assert r["verdict"] == claims.HELD and r["lhs"]["value"] == 3.5 and r["lhs"]["hi"] <= 4
    assert r["lhs"]["lo"] < r["lhs"]["hi"]
    assert claims.evaluate(c, REACTION, {"b": slow})["verdict"] == claims.FAILED
    c = claim(metric="reaction", stat="p95", op="<=", rhs="a", offset=1)
    assert claims.evaluate(c, REACTION, {"b": fast, "a": slow})["verdict"] == claims.HELD
    assert claims.evaluate(c, REACTION, {"b": slow, "a": fast})["verdict"] == claims.FAILED
    # Two slow runs in five: resamples with neither put the p95 far below the bound.
    mixed = reaction_runs([1, 2, 12], [2, 11, 1], [1, 2, 2], [3, 1, 2], [2, 1, 4])
    c = claim(metric="reaction", stat="p95", op="<=", rhs=None, value=10)
    assert claims.evaluate(c, REACTION, {"b": mixed})["verdict"] == claims.INCONCLUSIVE


def test_max_half_width():
    a = runs(100, 110, 120, 105, 115)
    b = runs(10, 12, 9, 11, 13)
    r = claims.evaluate(claim(max_half_width=1.0), MOVES, {"a": a, "b": b})
    assert r["verdict"] == claims.INCONCLUSIVE and "wider than" in r["detail"]


def test_judge_applies_claims_per_profile(tmp_path):
    d = with_(profiles=["smoke", "uclamp-lowered"])
    d["claims"].append({"written": "2026-12-06", "metric": "moves", "lhs": "a", "op": ">", "value": 0,
                        "profiles": ["smoke"]})
    exp = ex.load(write(tmp_path, d))
    by = {"smoke": {"a": runs(50, 51, 52, 50, 53), "b": runs(1, 2, 1, 1, 2)},
          "uclamp-lowered": {"a": runs(50, 51, 52, 50, 53)}}
    out = claims.judge(exp, by)
    assert [(v["profile"], v["verdict"]) for v in out] == [
        ("smoke", claims.HELD), ("smoke", claims.HELD), ("uclamp-lowered", claims.INCONCLUSIVE)]


def test_extract_paths():
    m = {"a": {"b": 2, "n": None}, "l": {"list": [{"x": 1}, {"x": None}, {"x": 3}]}}
    assert ex.extract(m, "a.b") == 2.0
    assert ex.extract(m, "a.c", default=0) == 0
    assert ex.extract(m, "a.n", default=0) is None
    assert ex.extract(m, "l.list[].x") == [1.0, 3.0]
    assert ex.extract({"l": None}, "l.list[].x") is None


# ---------------------------------------------------------------- sweeps

def keys(exp, build, reps=None):
    return [s["key"] for s in sweep.with_keys(sweep.plan(exp, reps, build), build)]


def test_plan_and_keys(tmp_path, fake_build):
    exp = ex.load(write(tmp_path, GOOD))
    specs = sweep.with_keys(sweep.plan(exp, None, fake_build), fake_build)
    # The groups take turns, so that drift over a sweep weighs on both alike.
    assert [(s["group"], s["rep"]) for s in specs] == [("a", 1), ("b", 1), ("a", 2), ("b", 2)]
    assert len({s["key"] for s in specs}) == 4
    assert keys(exp, fake_build) == [s["key"] for s in specs]       # stable
    assert keys(exp, fake_build, reps=3)[:4] == [s["key"] for s in specs]   # more reps: appended
    assert all(s["vcpus"] == 2 for s in specs)


@pytest.mark.parametrize("change", ["kernel", "profile", "cmdline", "setup", "platform"])
def test_a_changed_input_changes_the_key(tmp_path, fake_build, change):
    prof = tmp_path / "p.json"
    shutil.copy(os.path.join(TOP, "rt-app-profiles", "smoke.json"), prof)
    setup = tmp_path / "s.sh"
    setup.write_text("echo 1\n")
    d = with_(profiles=[str(prof)], groups__b__setup=str(setup))
    exp = ex.load(write(tmp_path, d))
    before = keys(exp, fake_build)
    if change == "kernel":
        with open(os.path.join(fake_build, "kernels", "patched", "info.json"), "a", encoding="utf-8") as f:
            f.write(" ")
    elif change == "profile":
        prof.write_text(prof.read_text().replace('"duration": 2', '"duration": 3'))
    elif change == "setup":
        setup.write_text("echo 2\n")
    elif change == "cmdline":
        d["groups"]["b"]["cmdline"] = "x=2"
    elif change == "platform":
        d["groups"]["b"]["platform"] = "e:1:600,p:1:512"
    exp = ex.load(write(tmp_path, d))
    after = keys(exp, fake_build)
    # The groups take turns: a, b, a, b.
    if change != "profile":                 # both groups replay the profile
        assert before[0::2] == after[0::2]  # group a (base, no setup) untouched
    changed = slice(0, 4) if change == "profile" else slice(1, 4, 2)
    assert not set(before[changed]) & set(after[changed])


def test_warmup_replays_the_setup_and_measures_the_last(tmp_path, fake_build, monkeypatch):
    """warmup: the key changes only where it is asked for (so the done store keeps every
    earlier run), run.sh gets the setup warmup + 1 times in SETUPS, and the run the
    sweep records is the boot's last replay; a boot short of replays fails."""
    d = with_(groups__a__kernel="patched", groups__a__setup="push-off")
    plain = keys(ex.load(write(tmp_path, d)), fake_build)
    d["warmup"] = 1
    exp = ex.load(write(tmp_path, d, "warm.json"))
    assert exp.warmup == 1
    specs = sweep.with_keys(sweep.plan(exp, None, fake_build), fake_build)
    assert not set(plain) & {s["key"] for s in specs}
    del d["warmup"]
    assert keys(ex.load(write(tmp_path, d, "cold.json")), fake_build) == plain
    boot_dir = tmp_path / "boot"
    seen = {}

    def fake_run(cmd, env, **kw):
        seen.update(SETUPS=env.get("SETUPS"), SETUP=env.get("SETUP"))
        for name in ("01-push-off", "02-push-off")[:seen.get("replays", 2)]:
            (boot_dir / "replays" / name).mkdir(parents=True, exist_ok=True)
        with open(env["RUN_DIR_FILE"], "w", encoding="utf-8") as f:
            f.write(str(boot_dir))
        return subprocess.CompletedProcess(cmd, 0)
    monkeypatch.setattr(sweep.subprocess, "run", fake_run)
    rc, folder = sweep.boot(specs[0], fake_build)
    assert seen["SETUPS"] == " ".join([specs[0]["setup"]] * 2) and seen["SETUP"] is None
    assert (rc, folder) == (0, str(boot_dir / "replays" / "02-push-off"))
    shutil.rmtree(boot_dir)
    seen["replays"] = 1
    assert sweep.boot(specs[0], fake_build) == (1, str(boot_dir))


def test_missing_kernel_is_one_clear_error(tmp_path):
    exp = ex.load(write(tmp_path, GOOD))
    with pytest.raises(FileNotFoundError, match="kernel base not built"):
        sweep.with_keys(sweep.plan(exp, None, str(tmp_path)), str(tmp_path))


def fake_run(tmp_path, status):
    d = tmp_path / "runs" / f"r-{status}"
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"status": status}))
    return str(d)


def test_done_store_and_resume(tmp_path, fake_build, monkeypatch):
    exp = ex.load(write(tmp_path, GOOD))
    specs = sweep.with_keys(sweep.plan(exp, None, fake_build), fake_build)
    ok, bad = fake_run(tmp_path, "ok"), fake_run(tmp_path, "timeout")
    store = os.path.join(fake_build, "sweeps", "done")
    os.makedirs(store)
    for s, folder in ((specs[0], ok), (specs[1], bad)):
        with open(os.path.join(store, s["key"] + ".json"), "w", encoding="utf-8") as f:
            json.dump({"run": folder}, f)
    assert sweep.done(specs[0], fake_build) == ok
    assert sweep.done(specs[1], fake_build) is None      # not ok: run again
    assert sweep.done(specs[2], fake_build) is None
    ran = []

    def fake_one(spec, build=None, runs_dir=None):
        ran.append(spec["key"])
        return {"status": "ok" if spec is not specs[3] else "timeout", "seconds": 1.0, "error": "x"}
    monkeypatch.setattr(sweep, "run_one", fake_one)
    lines = []

    class Out:
        @staticmethod
        def write(s):
            lines.append(s)

        @staticmethod
        def flush():
            pass
    reused, n, failed = sweep.run_local(specs, 1, fake_build, out=Out)
    assert (reused, n, failed) == (1, 3, 1)
    assert ran == [s["key"] for s in specs[1:]]
    text = "".join(lines)
    assert "[1/4] 1 reused from earlier sweeps, 3 to run, 1 at once" in text
    assert "[4/4]" in text and "left" in text and "elapsed" in text
    path = sweep.write_index(exp, specs, fake_build)
    with open(path, encoding="utf-8") as f:
        idx = json.load(f)
    assert [r["run"] for r in idx["runs"]] == [ok, None, None, None]


def test_default_jobs():
    assert sweep.default_jobs(6, cores=2) == 1
    assert sweep.default_jobs(2, cores=2) == 1
    assert sweep.default_jobs(2, cores=16) == 8
    assert sweep.default_jobs(6, cores=16) == 2


def test_several_setups_join_in_order(tmp_path, fake_build):
    d = with_(groups__b__setup=["push-off", "eas-spare-tie"])
    exp = ex.load(write(tmp_path, d))
    path = sweep.setup_file(exp.groups["b"], fake_build)
    assert os.path.basename(path) == "push-off+eas-spare-tie.sh"
    text = open(path, encoding="utf-8").read()
    assert text.index("FAIR_PUSH") < text.index("EAS_SPARE_TIE")


def test_run_dir_channel_and_a_failed_run(tmp_path, fake_build):
    """guest/host/run.sh names its run folder in RUN_DIR_FILE as soon as it exists, even when
    the boot then fails (here: no initramfs in the fake build, so QEMU never starts);
    the sweep records the failure and does not count the run as done."""
    open(os.path.join(fake_build, "kernels", "base", "bzImage"), "w").close()
    exp = ex.load(write(tmp_path, GOOD))
    spec = sweep.with_keys(sweep.plan(exp, 1, fake_build), fake_build)[0]
    channel = tmp_path / "run-dir"
    r = run([os.path.join(TOP, "guest", "host", "run.sh"), spec["profile"], "base"],
            env={"BUILD": fake_build, "RUN_DIR_FILE": str(channel), "PLATFORM": spec["platform"]},
            timeout=120)
    assert r.returncode != 0
    folder = channel.read_text().strip()
    assert folder.startswith(os.path.join(fake_build, "runs", "smoke-base-")) and os.path.isdir(folder)
    rec = sweep.run_one(spec, fake_build)
    assert rec["status"] == "qemu-failed" and "initramfs" in rec["error"], rec
    assert os.path.isdir(rec["run"]) and sweep.done(spec, fake_build) is None
    assert sweep.failure(spec, fake_build)["status"] == "qemu-failed"


# ---------------------------------------------------------------- LAVA

def test_lava_jobs_of_every_experiment_validate(tmp_path):
    pytest.importorskip("lava_common", reason="lava-common (Debian) not installed: make deps")
    r = run([SWEEP, "lava", "--reps", "1", "--artifacts", "https://lab.example/eas",
             "--out", str(tmp_path / "qemu")], timeout=300)
    assert r.returncode == 0, r.stderr
    r = run([SWEEP, "lava", "--reps", "1", "--device", "x86", "--artifacts", "https://lab.example/eas",
             "--out", str(tmp_path / "x86")], timeout=300)
    assert r.returncode == 0, r.stderr
    import yaml  # pylint: disable=import-outside-toplevel
    from lava_common import schemas  # pylint: disable=import-outside-toplevel
    n = 0
    for root, _, files in os.walk(tmp_path):
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                job = yaml.safe_load(fh)
            schemas.validate(job, strict=True)   # LAVA's own check, again, from the files
            assert job["device_type"] in ("qemu", "x86")
            n += 1
    assert n >= 2 * len(os.listdir(os.path.join(TOP, "experiments")))
    with open(os.path.join(tmp_path, "qemu", "smoke", "smoke-smoke-base-1-qemu.yaml"), encoding="utf-8") as fh:
        job = yaml.safe_load(fh)
    kernel = job["actions"][0]["deploy"]["images"]["kernel"]
    assert "hybrid_sim=e:1:600,p:1:1024" in kernel["image_arg"]
    assert kernel["url"] == "https://lab.example/eas/kernels/base/bzImage"
    assert job["context"]["extra_options"][:2] == ["-smp", "2"]


def test_lava_schema_refuses_a_broken_job():
    pytest.importorskip("lava_common", reason="lava-common (Debian) not installed: make deps")
    import voluptuous  # pylint: disable=import-outside-toplevel
    from easlab import lava  # pylint: disable=import-outside-toplevel
    spec = {"experiment": "e", "profile_name": "p", "group": "g", "rep": 1, "kernel": "patched",
            "kconfig": "default", "cmdline": "", "platform": "e:1:600,p:1:1024", "vcpus": 2, "key": "k"}
    job = lava.job(spec, "https://lab.example")
    lava.validate(job)
    job["actions"][1]["boot"]["media"] = "nfs"
    with pytest.raises(voluptuous.Invalid):
        lava.validate(job)
    with pytest.raises(ValueError, match="patched kernel only"):
        lava.job({**spec, "kernel": "base"}, "https://lab.example", "x86")


def test_index_from_fake_runs(tmp_path, fake_build):
    """The report of a sweep: run folders with their metrics.json (as analysis/report
    writes them), one failed run, one distorted run; claims, tables, plots, index."""
    from easlab import experiment_report  # pylint: disable=import-outside-toplevel
    exp = ex.load(write(tmp_path, with_(repetitions=6)))
    specs = sweep.with_keys(sweep.plan(exp, None, fake_build), fake_build)
    done_dir = os.path.join(fake_build, "sweeps", "done")
    os.makedirs(done_dir)
    for s in specs[:-1]:
        # Numbered as if group a ran first (the plan alternates the groups).
        i = {"a": 0, "b": 6}[s["group"]] + s["rep"] - 1
        d = tmp_path / "runs" / s["key"]
        (d / "analysis" / "report").mkdir(parents=True)
        (d / "trace.dat").write_text("")
        (d / "run.json").write_text(json.dumps({"status": "ok"}))
        same = {"a": 100 + i, "b": 10 + i}[s["group"]]
        m = {"run": s["key"], "migrations": {"same": same},
             "reaction": {"list": [{"from_crossing_ns": 1e6 * (i + 1)}]},
             "fidelity": {"distorted": i == 1, "reason": "CPU 2 ran at 40% of the fastest" if i == 1 else ""}}
        (d / "analysis" / "report" / "metrics.json").write_text(json.dumps({"runs": [m]}))
        with open(os.path.join(done_dir, s["key"] + ".json"), "w", encoding="utf-8") as f:
            json.dump({"run": str(d)}, f)
    fail_dir = os.path.join(fake_build, "sweeps", "failed")
    os.makedirs(fail_dir)
    with open(os.path.join(fail_dir, specs[-1]["key"] + ".json"), "w", encoding="utf-8") as f:
        json.dump({"status": "timeout", "error": "run.sh: error: run timed out"}, f)
    sweep.write_index(exp, specs, fake_build)
    lines = []
    path, results, missing = experiment_report.build([exp], fake_build, out=lines.append)
    (v,) = results["exp"]
    # a: 100, 102..105 (101 dropped as distorted); b: 16..20 (the sixth timed out).
    assert v["verdict"] == claims.HELD and v["lhs"]["n"] == 5 and v["rhs"]["n"] == 5, v
    assert missing["exp"] == ["smoke b #6: timeout (run.sh: error: run timed out)"]
    assert "exp: 11 runs analysed, 1 dropped as distorted by the fidelity check, 1 missing" in lines[0]
    assert "dropped (1): CPU 2 ran at 40% of the fastest" in lines[1]
    page = open(path, encoding="utf-8").read()
    assert "held" in page and 'src="exp/smoke.png"' in page and "run timed out" in page
    assert os.path.getsize(os.path.join(os.path.dirname(path), "exp", "smoke.png")) > 1000
    with open(os.path.join(os.path.dirname(path), "exp", "claims.json"), encoding="utf-8") as f:
        judged = json.load(f)
    row = [r for r in judged["metrics"] if r["metric"] == "moves" and r["group"] == "a"][0]
    assert row["value"] == pytest.approx(102.8) and row["n"] == 5 and row["dropped"] == 1
