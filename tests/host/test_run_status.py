"""run.sh names a guest kernel crash: run.json's status and the one-line error, from
the console log (QEMU replaced by a stand-in that only writes a console)."""
import json
import os
import stat

import pytest

from conftest import TOP, run

SMOKE = os.path.join(TOP, "rt-app-profiles", "smoke.json")
BOOT = "[    0.000000] Linux version 6.12.118+\r\nguest-init: running job profile.sh\r\n"
OOPS = ("[   21.804312] Oops: divide error: 0000 [#1] PREEMPT SMP\r\n"
        "[   21.806012] RIP: 0010:hybrid_sim_faithful_tick+0x5d/0x1a0\r\n"
        "[   21.808702] Kernel panic - not syncing: Fatal exception in interrupt\r\n")
PANIC = "[    0.912000] Kernel panic - not syncing: No working init found.\r\n"
# A guest that powers off without a job status and without a crash.
SILENT = "[   10.267382] reboot: Power down\r\n"

# Writes $FAKE_CONSOLE where -serial file:... points, as a guest that reboots
# (panic=-1, -no-reboot) would leave it, and exits 0 like QEMU then.
FAKE_QEMU = """#!/bin/sh
for a in "$@"; do
	case "$a" in file:*) cp "$FAKE_CONSOLE" "${a#file:}" ;; esac
done
exit 0
"""


def boot(tmp_path, console):
    build = tmp_path / "build"
    kdir = build / "kernels" / "patched"
    kdir.mkdir(parents=True)
    (kdir / "bzImage").write_bytes(b"not a kernel")
    (kdir / "info.json").write_text(json.dumps({"kernel": "patched", "release": "6.12.118+"}))
    (build / "initramfs.cpio.gz").write_bytes(b"")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    qemu = bindir / "qemu-system-x86_64"
    qemu.write_text(FAKE_QEMU)
    qemu.chmod(qemu.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "console").write_bytes(console.encode())
    r = run([os.path.join(TOP, "guest", "host", "run.sh"), SMOKE, "patched"], timeout=120, env={
        "BUILD": str(build), "RUNS": str(tmp_path / "runs"), "ACCEL": "tcg",
        "PATH": f"{bindir}:{os.environ['PATH']}", "FAKE_CONSOLE": str(tmp_path / "console")})
    (folder,) = (tmp_path / "runs").iterdir()
    with open(folder / "run.json", encoding="utf-8") as f:
        return r, folder, json.load(f)["status"]


def error_line(r):
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, r.stderr
    return errors[0]


@pytest.mark.parametrize("console, status, message", [
    (BOOT + OOPS, "oops", "guest kernel oops: Oops: divide error: 0000 [#1] PREEMPT SMP"),
    (BOOT + PANIC, "kernel-panic",
     "guest kernel panic: Kernel panic - not syncing: No working init found."),
])
def test_crash_is_the_status_and_the_error(tmp_path, console, status, message):
    r, folder, got = boot(tmp_path, console)
    assert r.returncode != 0
    assert got == status
    assert error_line(r) == f"run.sh: error: {message} (see {folder}/console.log)"
    # The splats are kept as for any other run.
    assert "Kernel panic - not syncing" in (folder / "splats.txt").read_text()


def test_no_crash_keeps_the_old_status(tmp_path):
    r, folder, got = boot(tmp_path, BOOT + SILENT)
    assert r.returncode != 0
    assert got == "no-job-status"
    assert error_line(r) == f"run.sh: error: run failed: no-job-status (see {folder}/console.log)"
