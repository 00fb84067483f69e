"""Shared pytest helpers: project paths and running the project's scripts."""
import json
import os
import subprocess

import pytest

from contract.paths import BUILD, TOP, module_env  # noqa: F401  (BUILD, TOP: for the tests)

# A project module as a command: python3 -m NAME (run() gives it module_env()).
PY_MODULE = ["/usr/bin/python3", "-m"]


def run(argv, env=None, timeout=900):
    """Run a project command; return CompletedProcess with text stdout/stderr."""
    full_env = module_env()
    full_env.update(env or {})
    return subprocess.run(argv, cwd=TOP, env=full_env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def stalled_before_init(r):
    """Whether a failed run.sh timed out in a guest that never started its job: under
    TCG a boot once stopped after ACPI's PCI probe (0.76 s) and sat idle until QEMU's
    300 s timeout (CI, 2026-12-07; the same kernel had booted in every other run). No
    job ran, so nothing the test judges was produced; a second boot is made, once."""
    lines = r.stdout.strip().splitlines()
    folder = lines[-1] if lines else ""
    console = os.path.join(folder, "console.log")
    if r.returncode == 0 or not os.path.isfile(os.path.join(folder, "timeout")) or \
            not os.path.isfile(console):
        return False
    with open(console, encoding="utf-8", errors="replace") as f:
        return "guest-init: running job" not in f.read()


def guest_run(profile, kernel="patched", runs=None, kconfig="default", **env):
    """Replay a profile with guest/host/run.sh (into RUNS when given); the run folder."""
    if runs:
        env["RUNS"] = str(runs)
    argv = [os.path.join(TOP, "guest", "host", "run.sh"), profile, kernel, kconfig]
    r = run(argv, env=env, timeout=600)
    if stalled_before_init(r):
        r = run(argv, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip().splitlines()[-1]


def report_metrics(run_dir):
    """analysis/report's metrics of one run folder."""
    rep = run([f"{TOP}/analysis/report", run_dir], timeout=300)
    assert rep.returncode == 0, rep.stderr
    with open(os.path.join(run_dir, "analysis", "report", "metrics.json"), encoding="utf-8") as f:
        return json.load(f)["runs"][0]


def analysed(profile, runs, **env):
    """Replay rt-app-profiles/PROFILE.json (guest_run), run the analysis on it; its metrics."""
    return report_metrics(guest_run(f"{TOP}/rt-app-profiles/{profile}.json", runs=runs, **env))


@pytest.fixture
def top():
    return TOP


@pytest.fixture
def fake_build(tmp_path):
    """A build directory with the two kernels' info.json (no image)."""
    build = tmp_path / "build"
    for k in ("base", "patched"):
        (build / "kernels" / k).mkdir(parents=True)
        (build / "kernels" / k / "info.json").write_text(json.dumps({"kernel": k, "commit": "c" + k}))
    return str(build)
