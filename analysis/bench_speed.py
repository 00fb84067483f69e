#!/usr/bin/python3
"""make bench-speed: does hybrid_sim.faithful make an E-core deliver capacity/1024 of the work?

Boots the patched kernel with guest/jobs/speed-ab.sh, which replays
guest/bench/speed.json (a 2 ms periodic task pinned to E-core CPU 1, capacity
600, and one pinned to P-core CPU 5, started together) with the option switched
off, then on, several times in one boot. Every comparison stays inside a pair of
replays of one boot: between boots this host's speed varies by tens of percent.
Prints, per pair, the mean length of a `run` on each CPU with and without the
option: the E-core's slowdown (target 1024/600 = 1.71 within 5 %) and the
P-core's (target under 2 %). REPS boots (default 1). A measurement, not a test.
CMDLINE adds kernel parameters (e.g. hybrid_sim.faithful_period_us=2000).
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan import rtapp  # noqa: E402
from easan.compare import stats  # noqa: E402

PROFILE = os.path.join(TOP, "guest", "bench", "speed.json")
JOB = os.path.join(TOP, "guest", "jobs", "speed-ab.sh")
E_CAPACITY = 600


def boot():
    """One boot of speed-ab.sh; {(on, pair): (E mean, P mean)} in us."""
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
        # periods, so only some runs are hit; what counts is the work over all.
        out[(m.group(1) == "1", int(m.group(2)))] = tuple(
            float(logs[t]["run"].iloc[5:].mean()) for t in (0, 1))
    return out


def main():
    reps = int(os.environ.get("REPS", "1"))
    if reps < 1:
        sys.exit("bench-speed: REPS must be at least 1")
    e_ratio, p_ratio = [], []
    print(f"{'boot/pair':>10}{'E off':>8}{'E on':>8}{'P off':>8}{'P on':>8}"
          f"{'E on/off':>10}{'P on/off':>10}")
    for b in range(1, reps + 1):
        runs = boot()
        for pair in sorted({k[1] for k in runs}):
            (e0, p0), (e1, p1) = runs[(False, pair)], runs[(True, pair)]
            e_ratio.append(e1 / e0)
            p_ratio.append(p1 / p0)
            print(f"{b:>5}/{pair:<4}{e0:8.0f}{e1:8.0f}{p0:8.0f}{p1:8.0f}"
                  f"{e_ratio[-1]:10.3f}{p_ratio[-1]:10.3f}")
    want = 1024 / E_CAPACITY
    # Means with the half-width of their 95 % CI over the pairs (the A/B table's).
    e, e_ci, _ = stats(e_ratio)
    p, p_ci, _ = stats(p_ratio)
    print(f"E-core run with / without the option: {e:.3f} +/- {e_ci:.3f}, target "
          f"{want:.3f} +/- 5 %: {'met' if abs(e / want - 1) <= 0.05 else 'NOT met'}")
    print(f"P-core slowdown from the option: {p - 1:+.1%} +/- {p_ci:.1%}, target under 2 %: "
          f"{'met' if p - 1 < 0.02 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
