"""The profile checker refuses what rt-app 1.0 would silently misread."""
import json
import os

import pytest

from conftest import PY_MODULE, TOP, run

PROFILE = PY_MODULE + ["contract.rtapp_profile"]
GOOD = {
    "description": "ok",
    "global": {"duration": 2, "calibration": "CPU0"},
    "tasks": {"t": {"run": 1000, "timer": {"ref": "a", "period": 10000}}},
}


def check(tmp_path, prof, raw=None):
    path = tmp_path / "p.json"
    path.write_text(raw if raw is not None else json.dumps(prof))
    return run(PROFILE + ["check", str(path)])


def with_task(**task):
    prof = json.loads(json.dumps(GOOD))
    prof["tasks"]["t"].update(task)
    return prof


def test_good_profile_passes(tmp_path):
    r = check(tmp_path, GOOD)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


@pytest.mark.parametrize("prof,raw,needle", [
    (None, '{"tasks": {', "invalid JSON at line 1"),
    ({"tasks": {}}, None, "tasks: missing or empty"),
    ({**GOOD, "globl": {}}, None, "unknown key 'globl'"),
    (with_task(peroid=3), None, "tasks.t: unknown key 'peroid'"),
    (with_task(util_max=2000), None, "tasks.t.util_max: expected 0..1024"),
    (with_task(util_min=600, util_max=300), None, "util_min is above util_max"),
    (with_task(slice_us=10), None, "slice_us: expected 100..100000"),
    (with_task(run=-1), None, "tasks.t.run: expected a duration >= 0"),
    (with_task(policy="SCHED_FOO"), None, "tasks.t.policy: expected one of"),
    (with_task(priority=30), None, "nice value, -20..19"),
    (with_task(cpus=[]), None, "tasks.t.cpus"),
    (with_task(timer={"ref": "a"}), None, "needs 'ref' and a 'period'"),
    (with_task(instance=True), None, "tasks.t.instance: expected an integer"),
    ({**GOOD, "faithful_speed": "yes"}, None, "top level.faithful_speed: expected true/false"),
    (with_task(uclamp_change=100), None, "tasks.t.uclamp_change: expected an object"),
    (with_task(uclamp_change={"util_max": 100}), None,
     "tasks.t.uclamp_change.after_ms: expected 1..3600000"),
    (with_task(uclamp_change={"after_ms": 0, "util_max": 100}), None,
     "tasks.t.uclamp_change.after_ms: expected 1..3600000"),
    (with_task(uclamp_change={"after_ms": 10}), None, "expected util_min or util_max"),
    (with_task(uclamp_change={"after_ms": 10, "util_max": 2000}), None,
     "tasks.t.uclamp_change.util_max: expected 0..1024"),
    (with_task(uclamp_change={"after_ms": 10, "util_max": "100"}), None,
     "tasks.t.uclamp_change.util_max: expected an integer"),
    (with_task(uclamp_change={"after_ms": 10, "utilmax": 100}), None,
     "tasks.t.uclamp_change: unknown key 'utilmax'"),
    (with_task(util_min=300, uclamp_change={"after_ms": 10, "util_max": 100}), None,
     "util_min would be above util_max after the change"),
])
def test_bad_profiles_are_refused_with_the_key(tmp_path, prof, raw, needle):
    r = check(tmp_path, prof, raw)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert needle in lines[0]
    assert str(tmp_path / "p.json") in lines[0]


def test_long_task_name_is_refused(tmp_path):
    prof = {"tasks": {"a_very_long_task_name": {"run": 10}}}
    r = check(tmp_path, prof)
    assert r.returncode == 1
    assert "longer than 15" in r.stderr


def test_numbered_events_and_phases_pass(tmp_path):
    prof = {"tasks": {"t": {"phases": {
        "p1": {"loop": 3, "run0": 10, "sleep0": 10, "run1": 20},
        "p2": {"cpus": [0, 1], "runtime": 5, "timer": {"ref": "x", "period": 100}},
    }}}}
    r = check(tmp_path, prof)
    assert r.returncode == 0, r.stderr


def test_prepare_splits_extension_keys(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(with_task(util_max=300, slice_us=3000)))
    r = run(PROFILE + ["prepare", str(src), str(tmp_path)])
    assert r.returncode == 0, r.stderr
    rtapp = json.loads((tmp_path / "rt-app.json").read_text())
    attrs = json.loads((tmp_path / "sched-attrs.json").read_text())
    assert "util_max" not in rtapp["tasks"]["t"] and "description" not in rtapp
    assert rtapp["global"]["logdir"] == "/tmp/rt-app-logs"
    assert rtapp["global"]["ftrace"] is True
    assert attrs == {"t": {"util_max": 300, "slice_us": 3000}}


def test_prepare_writes_the_shim_lines(tmp_path):
    """sched-attrs.txt: NAME UTIL_MIN UTIL_MAX SLICE_US AFTER_MS NEW_MIN NEW_MAX, -1 unset."""
    src = tmp_path / "p.json"
    prof = with_task(util_max=300, slice_us=3000)
    prof["tasks"]["u"] = {"run": 1000, "uclamp_change": {"after_ms": 500, "util_max": 100}}
    src.write_text(json.dumps(prof))
    r = run(PROFILE + ["prepare", str(src), str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "sched-attrs.txt").read_text() == \
        "t -1 300 3000 -1 -1 -1\nu -1 -1 -1 500 -1 100\n"
    attrs = json.loads((tmp_path / "sched-attrs.json").read_text())
    assert attrs["u"] == {"uclamp_change": {"after_ms": 500, "util_max": 100}}
    assert "uclamp_change" not in json.loads((tmp_path / "rt-app.json").read_text())["tasks"]["u"]


def test_prepare_leaves_a_flag_for_faithful_speed(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({**GOOD, "faithful_speed": True}))
    r = run(PROFILE + ["prepare", str(src), str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert "faithful_speed" not in json.loads((tmp_path / "rt-app.json").read_text())
    assert (tmp_path / "faithful-speed").read_text() == "1\n"
    # Prepared again without the key: no flag left behind.
    src.write_text(json.dumps({**GOOD, "faithful_speed": False}))
    assert run(PROFILE + ["prepare", str(src), str(tmp_path)]).returncode == 0
    assert not (tmp_path / "faithful-speed").exists()


def test_project_profiles_are_valid_and_described():
    d = os.path.join(TOP, "rt-app-profiles")
    names = sorted(f for f in os.listdir(d) if f.endswith(".json"))
    assert names
    for name in names:
        r = run(PROFILE + ["check", os.path.join(d, name)])
        assert r.returncode == 0, r.stderr
        with open(os.path.join(d, name), encoding="utf-8") as f:
            assert json.load(f).get("description"), f"{name} has no description"
