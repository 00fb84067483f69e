#!/usr/bin/python3
"""make bench-speed: does hybrid_sim.faithful=1 make an E-core deliver capacity/1024 of the work?

Replays guest/bench/speed.json (a 2 ms periodic task pinned to E-core CPU 1,
capacity 600, and one pinned to P-core CPU 5) with the option off and on,
and prints from rt-app's logs the median duration of a `run`: E over P
(target 1024/600 = 1.71 within 5 %) and the P-core's slowdown from the
option (target under 2 %). REPS (default 3) pairs of boots: a measurement, not a test.
CMDLINE adds kernel parameters to both runs (e.g. hybrid_sim.faithful_period_us=2000).
"""
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan import rtapp  # noqa: E402

PROFILE = os.path.join(TOP, "guest", "bench", "speed.json")
E_CAPACITY = 600


def replay(faithful):
    # CMDLINE from the caller (e.g. hybrid_sim.faithful_period_us=) is kept.
    extra = os.environ.get("CMDLINE", "")
    env = dict(os.environ, CMDLINE=f"{extra} hybrid_sim.faithful={int(faithful)}".strip())
    r = subprocess.run([os.path.join(TOP, "guest", "run.sh"), PROFILE, "patched"], env=env,
                       capture_output=True, text=True, check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench-speed: the run failed:\n{r.stderr[-1500:]}")
    logs = rtapp.read_logs(os.path.join(r.stdout.strip().splitlines()[-1], "rt-app"))
    # Threads 0 (on_e) and 1 (on_p); the first activations include start-up.
    # The mean, not the median: the option gives time away in whole timer periods,
    # so only some runs are hit, and what counts is the work delivered over all.
    return [float(logs[t]["run"].iloc[5:].mean()) for t in (0, 1)]


def spread(values):
    """Mean and sample standard deviation (0 for one value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5


def main():
    # Boots alternate off/on so that slow drifts of the host hit both alike; the
    # host's noise between boots is large, hence several pairs.
    reps = int(os.environ.get("REPS", "3"))
    if reps < 1:
        sys.exit("bench-speed: REPS must be at least 1")
    runs = {False: [], True: []}
    for _ in range(reps):
        for faithful in (False, True):
            runs[faithful].append(replay(faithful))
    want = 1024 / E_CAPACITY
    print(f"{reps} boot(s) each; mean run length in us (sd between boots)")
    print(f"{'':16}{'E-core':>18}{'P-core':>18}{'E / P in a boot':>18}")
    for faithful, name in ((False, "faithful off"), (True, "faithful on")):
        e = spread([r[0] for r in runs[faithful]])
        p = spread([r[1] for r in runs[faithful]])
        ep = spread([r[0] / r[1] for r in runs[faithful]])
        print(f"{name:16}{e[0]:11.0f} ({e[1]:4.0f}){p[0]:11.0f} ({p[1]:4.0f})"
              f"{ep[0]:11.2f} ({ep[1]:.2f})")
    # The fixed calibration gives every boot the same work, so boots compare.
    e_slow = spread([r[0] for r in runs[True]])[0] / spread([r[0] for r in runs[False]])[0]
    p_slow = spread([r[1] for r in runs[True]])[0] / spread([r[1] for r in runs[False]])[0] - 1
    print(f"E-core run with / without the option: {e_slow:.3f}, target {want:.3f} +/- 5 %: "
          f"{'met' if abs(e_slow / want - 1) <= 0.05 else 'NOT met'}")
    print(f"P-core slowdown from the option: {p_slow:+.1%}, target under 2 %: "
          f"{'met' if p_slow < 0.02 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
