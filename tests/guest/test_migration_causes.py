"""Each of mainline's migration causes, provoked by a real guest run and attributed
by the analysis from the kernel's eas_migrate_reason events (patched kernel, default
platform). The fair push is switched off (guest/vm/setups/push-off.sh): it races load
balance for the same moves (in pinned-burst it took the waiting hogs before the idle
CPUs pulled them in one CI run), and tests/guest/test_push.py attributes its moves."""
import os

import pytest

from conftest import TOP, analysed

PUSH_OFF = os.path.join(TOP, "guest", "vm", "setups", "push-off.sh")

CASES = {
    # A hog pinned to E-core CPU 0, then freed: the pinning moves it (affinity), then
    # misfit balance takes it up to a P-core: active balance while it runs, or idle
    # balance if it is found queued. A run under one host busy loop (2026-12-06) had
    # the pinning move just before the window (rt-app pinned it before its first loop
    # began) and nohz idle balance pulling it to CPU 5 12 ms into the free phase, which
    # a running task cannot be: something else ran on CPU 0 then. The hog's move up and
    # its P-core residency are asserted below either way.
    "stuck-hog": {"affinity", "active_misfit", "lb_misfit", "lb_nohz", "lb_idle",
                  "lb_newidle"},
    # Four hogs pinned to CPU 0, then freed: idle CPUs pull the waiting ones.
    "pinned-burst": {"lb_busy", "lb_idle", "lb_newidle", "lb_nohz", "lb_misfit"},
    # Eight small periodic tasks: wakeup placement moves them.
    "many-small": {"wakeup"},
}


@pytest.mark.parametrize("profile", sorted(CASES))
def test_cause_is_attributed(profile, tmp_path):
    m = analysed(profile, tmp_path, SETUP=PUSH_OFF)
    reasons = m["migrations"]["by_reason"]
    assert set(reasons) & CASES[profile], reasons
    # Every move of a profile thread came with the path that made it.
    assert "unknown" not in reasons, reasons
    # With the push's feats off no project heuristic places a task: mainline placement.
    assert m["placement_decisions"] == {}, m["placement_decisions"]
    if profile == "stuck-hog":
        hog = next(iter(m["tasks"].values()))
        assert hog["migrations"]["up"] >= 1
        assert hog["residency_ns"]["type"].get("p", 0) > hog["residency_ns"]["type"].get("e", 0)
