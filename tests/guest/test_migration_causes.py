"""Each migration cause, provoked by a real guest run and attributed by the analysis
from the kernel's eas_migrate_reason events (patched kernel, default platform)."""
import json
import os

import pytest

from conftest import TOP, guest_run, run

CASES = {
    # A hog pinned to E-core CPU 0, then freed: the pinning moves it (affinity), then
    # misfit active balance takes it up to a P-core.
    "stuck-hog": {"affinity", "active_misfit"},
    # Four hogs pinned to CPU 0, then freed: idle CPUs pull the waiting ones.
    "pinned-burst": {"lb_busy", "lb_idle", "lb_newidle", "lb_nohz", "lb_misfit"},
    # Eight small periodic tasks: wakeup placement moves them.
    "many-small": {"wakeup"},
}


def analysed(profile, runs):
    run_dir = guest_run(f"{TOP}/rt-app-profiles/{profile}.json", runs=runs)
    rep = run([f"{TOP}/analysis/report", run_dir], timeout=300)
    assert rep.returncode == 0, rep.stderr
    with open(os.path.join(run_dir, "analysis", "report", "metrics.json"), encoding="utf-8") as f:
        return json.load(f)["runs"][0]


@pytest.mark.parametrize("profile", sorted(CASES))
def test_cause_is_attributed(profile, tmp_path):
    m = analysed(profile, tmp_path)
    reasons = m["migrations"]["by_reason"]
    assert set(reasons) & CASES[profile], reasons
    # Every move of a profile thread came with the path that made it.
    assert "unknown" not in reasons, reasons
    if profile == "stuck-hog":
        hog = next(iter(m["tasks"].values()))
        assert hog["migrations"]["up"] >= 1
        assert hog["residency_ns"]["type"].get("p", 0) > hog["residency_ns"]["type"].get("e", 0)
