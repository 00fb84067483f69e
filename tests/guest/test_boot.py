"""Boot tests: each boots a guest once. They need `make kernels initramfs`."""
import json
import os
import re
import subprocess

import pytest

from conftest import TOP, run
from contract import run_folder

RUN = os.path.join(TOP, "guest", "host", "run.sh")
SMOKE = os.path.join(TOP, "rt-app-profiles", "smoke.json")
CPUS = 6


def run_profile(tmp_path, profile, kernel, **env):
    env = {"RUNS": str(tmp_path), "CPUS": str(CPUS), **env}
    r = run([RUN, profile, kernel], env=env)
    folder = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else None
    return r, folder


def report(trace):
    out = subprocess.run(["trace-cmd", "report", "-i", trace], capture_output=True,
                         text=True, check=True)
    return out.stdout


@pytest.mark.parametrize("kernel", ["base", "patched"])
def test_smoke_run_brings_home_a_readable_trace(tmp_path, kernel):
    r, folder = run_profile(tmp_path, SMOKE, kernel)
    assert r.returncode == 0, r.stderr
    for name in ("trace.dat", "console.log", "dmesg.txt", "sched_debug.txt", "run.json"):
        assert os.path.getsize(os.path.join(folder, name)) > 0, name
    logs = os.listdir(os.path.join(folder, "rt-app"))
    assert sorted(logs) == ["rt-app-small-0.log", "rt-app-small-1.log"]
    # The run folder holds what the contract's table names, nothing else.
    assert run_folder.unknown_entries(folder) == []

    text = report(os.path.join(folder, "trace.dat"))
    cpus = {int(m) for m in re.findall(r"\[(\d{3})\]\s+[\d.]+: sched_switch:", text)}
    assert cpus == set(range(CPUS)), f"sched_switch seen on CPUs {sorted(cpus)}"
    # rt-app's own threads ran and its trace markers were recorded.
    assert re.search(r"sched_switch:.*==> small:\d+", text)
    assert re.search(r"print: +\S+: main creates threads", text)
    assert re.search(r"small-\d+ +\[\d{3}\] +[\d.]+: print: +\S+: \[0\] begins loop 0", text)

    # The load-tracking events are there, the per-task ones for the profile only,
    # and EAS evaluated wakeups on the simulated hybrid platform.
    assert re.search(r"eas_pelt_cfs: +cpu=\d+ util=\d+", text)
    assert re.search(r"eas_cpu_capacity: +cpu=4 capacity=\d+ capacity_orig=1024", text)
    assert re.search(r"eas_cpu_capacity: +cpu=0 capacity=\d+ capacity_orig=600", text)
    se_comms = set(re.findall(r"eas_pelt_se: +comm=(\S+)", text))
    assert se_comms == {"small"}
    assert re.search(r"eas_compute_energy: +comm=small pid=\d+ dst_cpu=\d", text)

    with open(os.path.join(folder, "run.json"), encoding="utf-8") as f:
        rec = json.load(f)
    assert rec["status"] == "ok"
    assert rec["rtapp_exit_status"] == 0
    assert rec["lost_events"] == 0
    assert rec["kernel"] == kernel
    assert rec["outside_profile_cpu"] is not None
    assert "-smp" in rec["qemu_args"]


def test_guest_that_never_powers_off_is_killed(tmp_path):
    hang = os.path.join(TOP, "tests", "fixtures", "hang-job.sh")
    r, folder = run_profile(tmp_path, SMOKE, "base", JOB=hang, TIMEOUT="45")
    assert r.returncode != 0
    assert "did not power off within 45s; QEMU killed" in r.stderr
    assert "run timed out" in r.stderr
    assert os.path.exists(os.path.join(folder, "timeout"))
    with open(os.path.join(folder, "run.json"), encoding="utf-8") as f:
        assert json.load(f)["status"] == "timeout"
