"""Capacity-faithful timers follow run-time capacity changes (guest/vm/jobs/faithful-follow.sh).

Shared by the default kernel's test (tests/guest) and the debug kernel's (tests/debug):
switch capacity-faithful speed on under the background load, raise E-core CPU 1 to
1024, lower P-core CPU 5 to 600, restore both, and read the copies of
faithful_stats the job took a second and two seconds after each step.
"""
import os

from conftest import TOP, guest_run

from easan.fidelity import read_faithful_stats

JOB = os.path.join(TOP, "guest", "vm", "jobs", "faithful-follow.sh")
BACKGROUND = os.path.join(TOP, "tests", "fixtures", "background-load.json")
STEPS = ["start", "raised", "lowered", "restored"]
TICKING = ("running", "idle")


def run(runs, kconfig="default"):
    """Boot the patched kernel with the job; the run folder (guest_run fails the
    test on a splat, a crash or a timeout)."""
    return guest_run(BACKGROUND, "patched", runs=runs, kconfig=kconfig, JOB=JOB)


def snapshots(folder):
    """{step or step-later: {cpu: FaithfulStat}} in the order the job took them."""
    root = os.path.join(folder, "follow")
    out = {}
    for name in sorted(os.listdir(root)):
        step = name.split("-", 1)[1].removesuffix(".txt")
        out[step] = read_faithful_stats(os.path.join(root, name))
    return out


def check(folder):
    """Each timer follows its CPU's capacity (see the module's docstring)."""
    errors = os.path.join(folder, "errors.txt")
    if os.path.exists(errors):
        with open(errors, encoding="utf-8") as f:
            raise AssertionError(f.read())
    # The background load ran (rt-app exits 1 when it cannot open its logs).
    with open(os.path.join(folder, "guest-stats.txt"), encoding="utf-8") as f:
        assert "rtapp_status=0" in f.read().split(), "rt-app failed: see rt-app.stdout"
    s = snapshots(folder)
    assert list(s) == [x for step in STEPS for x in (step, f"{step}-later")], list(s)
    cpu1 = {k: v[1] for k, v in s.items()}
    cpu5 = {k: v[5] for k, v in s.items()}
    # Before: E-core CPU 1 ticks (a busy loop runs there); P-core CPU 5 has no timer.
    for when in ("start", "start-later"):
        assert cpu1[when].capacity == 600 and cpu1[when].timer in TICKING, s[when]
        assert cpu5[when].capacity == 1024 and cpu5[when].timer == "full", s[when]
        assert cpu5[when].ticks == 0 and cpu5[when].given_us == 0, s[when]
    assert cpu1["start-later"].ticks > cpu1["start"].ticks, s
    # CPU 1 raised to 1024: its timer stops at once and stays stopped.
    for when in ("raised", "raised-later", "lowered", "lowered-later"):
        assert cpu1[when].capacity == 1024 and cpu1[when].timer == "full", (when, s[when])
    assert cpu1["raised-later"].ticks == cpu1["raised"].ticks, s
    assert cpu1["lowered-later"].ticks == cpu1["raised"].ticks, s
    assert cpu1["lowered-later"].given_us == cpu1["raised"].given_us, s
    # CPU 5 lowered to 600: a timer starts and gives time away.
    for when in ("lowered", "lowered-later"):
        assert cpu5[when].capacity == 600 and cpu5[when].timer in TICKING, (when, s[when])
    assert 0 < cpu5["lowered"].ticks < cpu5["lowered-later"].ticks, s
    assert 0 < cpu5["lowered"].given_us < cpu5["lowered-later"].given_us, s
    # Both restored: CPU 1 ticks again, CPU 5's timer stops.
    for when in ("restored", "restored-later"):
        assert cpu1[when].capacity == 600 and cpu1[when].timer in TICKING, (when, s[when])
        assert cpu5[when].capacity == 1024 and cpu5[when].timer == "full", (when, s[when])
    assert cpu1["lowered-later"].ticks < cpu1["restored"].ticks < cpu1["restored-later"].ticks, s
    assert cpu5["restored-later"].ticks == cpu5["restored"].ticks, s
