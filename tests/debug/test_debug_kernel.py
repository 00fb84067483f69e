"""The debug kernel (lockdep, DEBUG_PREEMPT, DEBUG_ATOMIC_SLEEP) runs a profile and
walks the cpufreq modes without a splat: run.sh fails a run on any WARNING, BUG,
lockdep report or RCU stall in the console, so a zero exit status is the check."""
import json
import os

from conftest import TOP, run

RUN = os.path.join(TOP, "guest", "run.sh")
SMOKE = os.path.join(TOP, "rt-app-profiles", "smoke.json")


def debug_run(tmp_path, **env):
    r = run([RUN, SMOKE, "patched", "debug"], env={"RUNS": str(tmp_path), **env})
    assert r.returncode == 0, r.stderr
    folder = r.stdout.strip().splitlines()[-1]
    with open(os.path.join(folder, "dmesg.txt"), encoding="utf-8") as f:
        assert "Lock dependency validator" in f.read(), "not a lockdep kernel"
    with open(os.path.join(folder, "run.json"), encoding="utf-8") as f:
        assert json.load(f)["status"] == "ok"
    return folder


def test_profile_on_debug_kernel(tmp_path):
    debug_run(tmp_path)


def test_cpufreq_mode_switches_on_debug_kernel(tmp_path):
    folder = debug_run(tmp_path, JOB=os.path.join(TOP, "guest", "jobs", "cpufreq-modes.sh"),
                       CMDLINE="hybrid_sim.mode=active")
    with open(os.path.join(folder, "modes.txt"), encoding="utf-8") as f:
        assert "failed" not in f.read()
