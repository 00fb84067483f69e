#!/usr/bin/python3
"""make bench-speed: does hybrid_sim.faithful make an E-core deliver capacity/1024 of the work?

Boots the patched kernel with guest/jobs/speed-ab.sh, which replays
guest/bench/speed.json (a 2 ms / 20 ms task pinned to E-core CPU 1, capacity 600,
then the same on P-core CPU 5, one busy vCPU at a time) with the option switched
off, then on, several times in one boot. Every comparison stays inside a pair of
replays of one boot: between boots this host's speed varies by tens of percent.
Prints, per pair, the mean length of a `run` on each CPU with and without the
option: the E-core's slowdown (target 1024/600 = 1.71 within 5 %) and the
P-core's (target under 2 %); and, from the kernel's own totals, the share of the
E-core's busy time the option gave away (target (1024 - 600)/1024 = 0.414) and
its timer ticks per run. REPS boots (default 1). A measurement, not a test.
CMDLINE adds kernel parameters (e.g. hybrid_sim.faithful_period_us=2000);
SPEED_PROFILE replaces the profile.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan import rtapp  # noqa: E402
from easan.fidelity import read_faithful_stats  # noqa: E402
from easan.compare import stats  # noqa: E402

PROFILE = os.environ.get("SPEED_PROFILE") or os.path.join(TOP, "guest", "bench", "speed.json")
JOB = os.path.join(TOP, "guest", "jobs", "speed-ab.sh")
E_CPU, E_CAPACITY = 1, 600


def given_share(folder, runs):
    """(given/busy, ticks per run) on the E-core during one replay, or (None, None)."""
    try:
        before = read_faithful_stats(os.path.join(folder, "faithful-stats-before.txt"))
        after = read_faithful_stats(os.path.join(folder, "faithful-stats-after.txt"))
    except FileNotFoundError:
        return None, None
    b0, g0, t0 = before.get(E_CPU, (0, 0, 0))
    b1, g1, t1 = after.get(E_CPU, (0, 0, 0))
    if b1 <= b0:
        return None, None
    return (g1 - g0) / (b1 - b0), (t1 - t0) / runs


def boot():
    """One boot of speed-ab.sh; {(on, pair): (E mean, P mean, given share, ticks/run)}."""
    r = subprocess.run([os.path.join(TOP, "guest", "run.sh"), PROFILE, "patched"],
                       env=dict(os.environ, JOB=JOB), capture_output=True, text=True,
                       check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench-speed: the run failed:\n{r.stderr[-1500:]}")
    root = os.path.join(r.stdout.strip().splitlines()[-1], "speed")
    out = {}
    for name in sorted(os.listdir(root)):
        m = re.fullmatch(r"([01])-(\d+)", name)
        if not m:
            continue
        logs = rtapp.read_logs(os.path.join(root, name))
        # Threads 0 (on_e) and 1 (on_p); the first activations include start-up.
        # The mean, not the median: the option gives time away in whole timer
        # periods, so runs are not all hit alike; what counts is the work over all.
        e, p = (logs[t]["run"].iloc[5:] for t in (0, 1))
        out[(m.group(1) == "1", int(m.group(2)))] = (
            float(e.mean()), float(p.mean()), *given_share(os.path.join(root, name), len(e)))
    return out


def main():
    reps = int(os.environ.get("REPS", "1"))
    if reps < 1:
        sys.exit("bench-speed: REPS must be at least 1")
    e_ratio, p_ratio = [], []
    shares = []
    print(f"{'boot/pair':>10}{'E off':>8}{'E on':>8}{'P off':>8}{'P on':>8}"
          f"{'E on/off':>10}{'P on/off':>10}{'E given':>9}{'ticks/run':>10}")
    for b in range(1, reps + 1):
        runs = boot()
        for pair in sorted({k[1] for k in runs}):
            (e0, p0, _, _), (e1, p1, share, ticks) = runs[(False, pair)], runs[(True, pair)]
            e_ratio.append(e1 / e0)
            p_ratio.append(p1 / p0)
            shares.append(share)
            given = "-" if share is None else f"{share:.3f}"
            per_run = "-" if ticks is None else f"{ticks:.2f}"
            print(f"{b:>5}/{pair:<4}{e0:8.0f}{e1:8.0f}{p0:8.0f}{p1:8.0f}"
                  f"{e_ratio[-1]:10.3f}{p_ratio[-1]:10.3f}{given:>9}{per_run:>10}")
    want = 1024 / E_CAPACITY
    # Means with the half-width of their 95 % CI over the pairs (the A/B table's).
    e, e_ci, _ = stats(e_ratio)
    p, p_ci, _ = stats(p_ratio)
    print(f"E-core run with / without the option: {e:.3f} +/- {e_ci:.3f}, target "
          f"{want:.3f} +/- 5 %: {'met' if abs(e / want - 1) <= 0.05 else 'NOT met'}")
    g, g_ci, n = stats(shares)
    if n:
        print(f"E-core busy time given away by the option: {g:.3f} +/- {g_ci:.3f}, "
              f"target {1 - 1 / want:.3f}; the task lost {1 - 1 / e:.3f} of it in all")
    print(f"P-core slowdown from the option: {p - 1:+.1%} +/- {p_ci:.1%}, target under 2 %: "
          f"{'met' if p - 1 < 0.02 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
