"""make bench-trace: what the project's trace events cost while they are off.
A measurement, not a test.

Two kernels alike but for the trace patches: base (the simulated platform, the
trace events and the migration reasons, with mainline scheduling) and notrace (the
series cut at "# notrace-end": the same platform without them). Each repetition
boots both, one after the other, the order reversed every other repetition so that
a drift of the host's speed falls on both alike; each boot runs the workloads of
guest/vm/jobs/bench-push.sh (hackbench in process and pipe mode, a pipe ping-pong)
INNER times with every event off (guest/vm/setups/events-off.sh) and keeps their mean.
Per workload it prints the mean of the repetitions' base/notrace ratios with its
95 % CI and a verdict against a target of at most 1 % overhead ("inconclusive"
when the CI is wider than that). With pairs of boot folders (base notrace ...) as
arguments it analyses those instead.

  REPS (pairs of boots, default 10), INNER (runs per boot, default 3),
  BENCH_GROUPS, BENCH_LOOPS, BENCH_ROUNDS (as make bench-push), TIMEOUT.
"""
import os
import subprocess
import sys

from contract.paths import TOP
from easan.stats import mean_ci
from easlab.bench_push import WORKLOADS, job_copy, positive_int, read, verdict

KERNELS = ("base", "notrace")
SETUP = os.path.join(TOP, "guest", "vm", "setups", "events-off.sh")


def boot(job, kernel):
    env = dict(os.environ, JOB=job, SETUPS=SETUP, TIMEOUT=os.environ.get("TIMEOUT", "900"))
    r = subprocess.run([os.path.join(TOP, "guest", "host", "run.sh"),
                        os.path.join(TOP, "rt-app-profiles", "smoke.json"), kernel],
                       env=env, stdout=subprocess.PIPE, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"bench-trace: the boot of {kernel} failed (see above)")
    return r.stdout.strip().splitlines()[-1]


def boot_means(folder):
    """{workload: mean seconds} of one boot's runs."""
    out = {}
    for workload, reps in read(folder).items():
        times = [t for r in reps.values() for t in r.values()]
        if times:
            out[workload] = sum(times) / len(times)
    return out


def main(argv):
    folders = argv[1:]
    if len(folders) % 2:
        sys.exit("bench-trace: give boot folders in pairs: BASE NOTRACE [BASE NOTRACE ...]")
    if not folders:
        reps = positive_int("REPS", 10)
        job = job_copy(positive_int("INNER", 3), positive_int("BENCH_GROUPS", 4),
                       positive_int("BENCH_LOOPS", 50), positive_int("BENCH_ROUNDS", 1000),
                       out=os.path.join(TOP, "build", "bench-trace"))
        for rep in range(reps):
            order = KERNELS if rep % 2 == 0 else KERNELS[::-1]
            print(f"bench-trace: repetition {rep + 1}/{reps}: {' then '.join(order)}",
                  file=sys.stderr, flush=True)
            pair = {k: boot(job, k) for k in order}
            folders += [pair["base"], pair["notrace"]]
    pairs = [(boot_means(a), boot_means(b)) for a, b in zip(folders[::2], folders[1::2])]
    print(f"base (trace events off) / notrace, {len(pairs)} pair(s) of boots; target: at "
          "most 1 % overhead, decided when the 95 % CI is within +-1 %")
    print(f"{'workload':<18} {'pairs':>5}  {'mean of ratios':>22}  {'notrace (s)':>11}  verdict")
    for workload in WORKLOADS:
        ratios = [a[workload] / b[workload] for a, b in pairs if workload in a and workload in b]
        if len(ratios) < 2:
            print(f"{workload:<18} {len(ratios):>5}  fewer than two pairs")
            continue
        mean, half, n = mean_ci(ratios)
        off = sum(b[workload] for _, b in pairs if workload in b) / n
        print(f"{workload:<18} {n:>5}  {mean:>10.4f} +- {half:<8.4f}  {off:>11.3f}  "
              f"{verdict(mean, half)}")
    print("Boot folders (base notrace ...): " + " ".join(folders))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
