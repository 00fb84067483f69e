"""`make run` (and the bench scripts) refuse bad arguments before building or booting
(analysis/sweep's: tests/host/test_experiments.py)."""
import json

import pytest

from conftest import PY_MODULE, run


def make_run(tmp_path, **kv):
    args = ["make", "-s", "run"] + [f"{k}={v}" for k, v in kv.items()]
    return run(args, env={"RUNS": str(tmp_path / "runs")}, timeout=120)


def one_error_line(r):
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    assert len(errors) == 1, r.stderr
    return errors[0]


def test_missing_profile(tmp_path):
    r = make_run(tmp_path, PROFILE=tmp_path / "nope.json")
    assert r.returncode != 0
    assert "nope.json not found" in one_error_line(r)
    assert not (tmp_path / "runs").exists()


def test_invalid_json(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"tasks": {"t": {"run": 10,}}}')
    r = make_run(tmp_path, PROFILE=p)
    assert r.returncode != 0
    assert "invalid JSON" in one_error_line(r)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("var,value,needle", [
    ("KERNEL", "vanilla", "unknown KERNEL 'vanilla'"),
    ("KCONFIG", "fast", "unknown KCONFIG 'fast'"),
])
def test_unknown_kernel_or_kconfig(tmp_path, var, value, needle):
    p = tmp_path / "ok.json"
    p.write_text(json.dumps({"tasks": {"t": {"run": 10}}}))
    r = make_run(tmp_path, PROFILE=p, **{var: value})
    assert r.returncode != 0
    assert needle in one_error_line(r)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("module", ["easlab.bench_speed"])
@pytest.mark.parametrize("reps", ["x", "0", "-2"])
def test_bad_reps_is_one_line_before_any_boot(module, reps):
    r = run(PY_MODULE + [module], env={"REPS": reps}, timeout=60)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"REPS={reps}" in lines[0].replace("'", ""), r.stderr


def test_faithful_speed_needs_the_simulated_platform(tmp_path):
    p = tmp_path / "faithful.json"
    p.write_text(json.dumps({"description": "x", "faithful_speed": True,
                             "tasks": {"t": {"run": 1000, "timer": {"ref": "a", "period": 10000}}}}))
    r = make_run(tmp_path, PROFILE=p, PLATFORM="none")
    assert r.returncode != 0
    assert "asks for faithful_speed, which needs a simulated platform" in one_error_line(r)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("env,needle", [
    ({"SETUPS": "guest/vm/setups/push-off.sh nope.sh"}, "SETUPS file nope.sh not found"),
    ({"SETUPS": "guest/vm/setups/push-off.sh", "SETUP": "guest/vm/setups/push-on.sh"},
     "SETUP and SETUPS exclude each other"),
])
def test_bad_setups_are_one_line_before_any_boot(tmp_path, env, needle):
    p = tmp_path / "ok.json"
    p.write_text(json.dumps({"tasks": {"t": {"run": 10}}}))
    r = run(["guest/host/run.sh", "--check-only", str(p), "patched"],
            env={"RUNS": str(tmp_path / "runs"), **env}, timeout=60)
    assert r.returncode != 0
    assert needle in one_error_line(r)
    assert not (tmp_path / "runs").exists()
