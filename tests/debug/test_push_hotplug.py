"""Issue 15 (e): CPU hotplug while fair pushes fire, on the debug kernel (lockdep,
DEBUG_PREEMPT, DEBUG_ATOMIC_SLEEP, PROVE_RCU): 20 offline/online cycles of E- and
P-cores (guest/vm/jobs/hotplug-push.sh) while capped-hogs is replayed. run.sh fails the
run on any splat, crash or timeout (a hang); the checks (analysis/easlab/hotplug_check.py) ask
for every cycle, every CPU back online and every rt-app thread's log. make soak
runs 200 cycles."""
import os

import pytest

from easlab import hotplug_check
from conftest import BUILD, TOP, guest_run

JOB = os.path.join(TOP, "guest", "vm", "jobs", "hotplug-push.sh")
CAPPED = os.path.join(TOP, "rt-app-profiles", "capped-hogs.json")
CYCLES = 20


def test_hotplug_while_pushing(tmp_path):
    if not os.path.exists(os.path.join(BUILD, "kernels", "patched-debug", "bzImage")):
        pytest.skip("no debug kernel: build/kernels/patched-debug is missing "
                    "(make check-debug builds it with guest/kernel/kernel.sh patched debug)")
    folder = guest_run(CAPPED, "patched", runs=tmp_path, kconfig="debug", JOB=JOB,
                       TIMEOUT="900")
    with open(os.path.join(folder, "dmesg.txt"), encoding="utf-8") as f:
        assert "Lock dependency validator" in f.read(), "not a lockdep kernel"
    summary = hotplug_check.check(folder, CYCLES)
    print(summary)
