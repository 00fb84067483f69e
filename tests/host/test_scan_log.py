"""The guest-log scanner flags kernel splats and passes clean logs."""
import os

import pytest

from conftest import TOP, run

SCAN = os.path.join(TOP, "guest", "host", "scan-log.sh")
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


# The real-world shape (issue 14): the patched guest with hybrid_sim.faithful=1 and an
# E-core raised to 1024, as the serial console wrote it (CR LF line ends).
DIVIDE_ERROR = """[   21.804312] Oops: divide error: 0000 [#1] PREEMPT SMP
[   21.804980] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Not tainted 6.12.118+ #1
[   21.805460] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   21.806012] RIP: 0010:hybrid_sim_faithful_tick+0x5d/0x1a0
[   21.806398] Code: 48 8b 43 10 48 29 c8 48 f7 f6 <48> 89 c6 e8 00 00 00 00
[   21.807105] Call Trace:
[   21.807212]  <IRQ>
[   21.807390]  __hrtimer_run_queues+0x10f/0x2a0
[   21.807590]  hrtimer_interrupt+0xf6/0x230
[   21.808120]  </IRQ>
[   21.808702] Kernel panic - not syncing: Fatal exception in interrupt
[   21.809011] Kernel Offset: disabled
""".replace("\n", "\r\n")


def crash(tmp_path, text):
    log = tmp_path / "console.log"
    log.write_bytes(text.encode())
    return run([SCAN, "--crash", str(log)])


@pytest.mark.parametrize("text, kind, first", [
    (CLEAN + DIVIDE_ERROR, "oops", "Oops: divide error: 0000 [#1] PREEMPT SMP"),
    # A NULL dereference: the BUG line comes first, then the die() header.
    (CLEAN + "[    5.1] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
     "[    5.1] #PF: supervisor read access in kernel mode\n"
     "[    5.1] Oops: Oops: 0000 [#1] PREEMPT SMP\n"
     "[    5.1] RIP: 0010:em_cpu_get+0x12/0x40\n"
     "[    5.2] Kernel panic - not syncing: Fatal exception\n",
     "oops", "BUG: kernel NULL pointer dereference, address: 0000000000000008"),
    # BUG_ON(): "kernel BUG at", then "Oops: invalid opcode".
    (CLEAN + "[    5.1] kernel BUG at kernel/sched/core.c:123!\n"
     "[    5.1] Oops: invalid opcode: 0000 [#1] PREEMPT SMP\n"
     "[    5.2] Kernel panic - not syncing: Fatal exception\n",
     "oops", "kernel BUG at kernel/sched/core.c:123!"),
    # Older kernels print the die() header without "Oops: ".
    (CLEAN + "[    5.1] divide error: 0000 [#1] SMP\n"
     "[    5.2] Kernel panic - not syncing: Fatal exception in interrupt\n",
     "oops", "divide error: 0000 [#1] SMP"),
    # A panic with no oops before it.
    (CLEAN.replace("guest-init: running job profile.sh\n", "")
     + "[    0.9] Kernel panic - not syncing: No working init found.\n",
     "kernel-panic", "Kernel panic - not syncing: No working init found."),
    # An earlier splat is the first line shown: what went wrong first.
    (CLEAN + "[    4.0] WARNING: CPU: 1 PID: 9 at drivers/cpufreq/hybrid_sim.c:400 f+0x1/0x2\n"
     + DIVIDE_ERROR,
     "oops", "WARNING: CPU: 1 PID: 9 at drivers/cpufreq/hybrid_sim.c:400 f+0x1/0x2"),
])
def test_crash_is_named_with_its_first_splat_line(tmp_path, text, kind, first):
    r = crash(tmp_path, text)
    assert r.returncode == 1, r.stderr
    assert r.stdout == f"{kind}\t{first}\n"


@pytest.mark.parametrize("text", [
    CLEAN,
    # A splat is not a crash; nor is the command line's oops=panic.
    CLEAN + "[    3.1] WARNING: CPU: 2 PID: 1 at kernel/sched/fair.c:123 foo+0x1/0x2\n",
    "[    0.1] Kernel command line: console=ttyS0 panic=-1 oops=panic loglevel=6\n" + CLEAN,
])
def test_no_crash_prints_nothing(tmp_path, text):
    r = crash(tmp_path, text)
    assert (r.returncode, r.stdout) == (0, "")


def test_oops_is_a_splat_too(tmp_path):
    r = scan(tmp_path, CLEAN + DIVIDE_ERROR)
    assert r.returncode == 1
    assert "console.log:5:[   21.804312] Oops: divide error: 0000 [#1] PREEMPT SMP" in r.stdout


def test_crash_of_an_unreadable_log_is_an_error(tmp_path):
    r = run([SCAN, "--crash", str(tmp_path / "missing.log")])
    assert r.returncode == 2
    assert "cannot read" in r.stderr


# The oops of a CI run of 2026-12-06: an int3 trap in __schedule at the sched_switch
# tracepoint's static call, whose Code: line shows e8 (call) back where the int3 was.
INT3 = """[   18.348276] Oops: int3: 0000 [#1] PREEMPT SMP
[   18.348917] RIP: 0010:__schedule+0x3c4/0x5ca
[   18.349480] Code: 05 b9 91 cd 7e 48 8b 05 0a 06 5d 00 48 85 c0 74 1d 31 f6 48 89 da e8 <6c> db d9 ff 65 ff 0d
"""


@pytest.mark.parametrize("text, stale", [
    (CLEAN + INT3, True),
    # The breakpoint is still in memory: a kernel that left one there, not QEMU.
    (CLEAN + INT3.replace("48 89 da e8 <6c>", "48 89 da cc <6c>"), False),
    # The first oops is another one.
    (CLEAN + DIVIDE_ERROR + INT3, False),
    (CLEAN, False),
])
def test_stale_int3_is_told_from_a_real_one(tmp_path, text, stale):
    log = tmp_path / "console.log"
    log.write_text(text)
    r = run([SCAN, "--stale-int3", str(log)])
    assert r.returncode == (0 if stale else 1), r.stderr
