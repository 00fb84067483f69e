"""Shared pytest helpers: project paths and running the project's scripts."""
import os
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))


def run(argv, env=None, timeout=900):
    """Run a project command; return CompletedProcess with text stdout/stderr."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(argv, cwd=TOP, env=full_env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def guest_run(profile, kernel="patched", runs=None, kconfig="default", **env):
    """Replay a profile with guest/run.sh (into RUNS when given); the run folder."""
    if runs:
        env["RUNS"] = str(runs)
    r = run([os.path.join(TOP, "guest", "run.sh"), profile, kernel, kconfig], env=env,
            timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip().splitlines()[-1]


@pytest.fixture
def top():
    return TOP
