#!/usr/bin/python3
"""make bench-speed: does hybrid_sim.faithful=1 make an E-core deliver capacity/1024 of the work?

Replays guest/bench/speed.json (a 2 ms periodic task pinned to E-core CPU 0,
capacity 600, and one pinned to P-core CPU 4) with the option off and on,
and prints from rt-app's logs the median duration of a `run`: E over P
(target 1024/600 = 1.71 within 5 %) and the P-core's slowdown from the
option (target under 2 %). One run each: a measurement, not a test.
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


def main():
    off_e, off_p = replay(False)
    on_e, on_p = replay(True)
    want = 1024 / E_CAPACITY
    ratio = on_e / on_p
    print(f"{'':28}{'E-core run (us)':>16}{'P-core run (us)':>16}{'E / P':>8}")
    print(f"{'faithful off':28}{off_e:16.0f}{off_p:16.0f}{off_e / off_p:8.2f}")
    print(f"{'faithful on':28}{on_e:16.0f}{on_p:16.0f}{ratio:8.2f}")
    print(f"E / P with the option: {ratio:.3f}, target {want:.3f} +/- 5 %: "
          f"{'met' if abs(ratio / want - 1) <= 0.05 else 'NOT met'}")
    slow = on_p / off_p - 1
    print(f"P-core slowdown from the option: {slow:+.1%}, target under 2 %: "
          f"{'met' if slow < 0.02 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
