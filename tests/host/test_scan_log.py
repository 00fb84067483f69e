"""The guest-log scanner flags kernel splats and passes clean logs."""
import os

import pytest

from conftest import TOP, run

SCAN = os.path.join(TOP, "guest", "scan-log.sh")
CLEAN = """[    0.000000] Linux version 6.12.118+
[    1.775459] amd_pstate: the _CPC object is not present in SBIOS or ACPI disabled
guest-init: running job profile.sh
[   10.267382] reboot: Power down
"""


def scan(tmp_path, text):
    log = tmp_path / "console.log"
    log.write_text(text)
    return run([SCAN, str(log)])


def test_clean_log_passes(tmp_path):
    r = scan(tmp_path, CLEAN)
    assert r.returncode == 0
    assert r.stdout == ""


@pytest.mark.parametrize("splat", [
    "[    3.1] WARNING: CPU: 2 PID: 1 at kernel/sched/fair.c:123 foo+0x1/0x2",
    "[    3.1] BUG: sleeping function called from invalid context at mm/slab.c:1",
    "[    3.1] WARNING: possible circular locking dependency detected",
    "[    3.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "[    3.1] Kernel panic - not syncing: Fatal exception",
    "[    3.1] =============================\n[    3.1] WARNING: suspicious RCU usage",
])
def test_splat_is_flagged_with_its_line(tmp_path, splat):
    r = scan(tmp_path, CLEAN + splat + "\n")
    assert r.returncode == 1
    last = splat.splitlines()[-1]
    line_no = len(CLEAN.splitlines()) + len(splat.splitlines())
    assert f"console.log:{line_no}:{last}" in r.stdout


def test_unreadable_log_is_an_error(tmp_path):
    r = run([SCAN, str(tmp_path / "missing.log")])
    assert r.returncode == 2
    assert "cannot read" in r.stderr
