"""make bench-push: what the fair push costs wakeup-heavy work. A measurement, not a test.

One boot of the patched kernel runs guest/vm/jobs/bench-push.sh: hackbench (Debian's
rt-tests) in process mode (sockets) and in pipe mode, and a pipe ping-pong
(guest/vm/helpers/pingpong.c), REPS times under each setting, push on
(guest/vm/setups/push-on.sh: FAIR_PUSH, FAIR_PUSH_TICK, EAS_FEWER_RUNNABLE) and push
off (push-off.sh), interleaved: each repetition runs every workload under both, the
order reversed every other repetition, so that the host's speed drift, which moves
single runs by tens of percent here, falls on both settings alike.

Per workload it prints the mean of the repetitions' on/off time ratios with its
95 % CI (easan.stats.mean_ci: each repetition is a pair measured side by side),
the ratio of the mean times with its delta-method CI (easan.pooling.ratio_of_means,
a cross-check that ignores the pairing) and a verdict against the target of at
most 1 % overhead: "inconclusive" when the CI is wider than +-1 %, else "met"
when the whole CI lies under 1.01 and "not met" when it does not. With run
folders of earlier boots as arguments it analyses those instead; several boots are
pooled by their precision (easan.pooling.pooled).

  REPS (default 10), BENCH_GROUPS and BENCH_LOOPS (hackbench -g/-l, default 4
  and 50), BENCH_ROUNDS (ping-pong round trips, default 1000), TIMEOUT.
"""
import collections
import math
import os
import re
import subprocess
import sys

from contract.paths import TOP
from easan.pooling import pooled, ratio_of_means
from easan.stats import mean_ci, t_quantile

JOB = os.path.join(TOP, "guest", "vm", "jobs", "bench-push.sh")
SETTINGS = ("push-on", "push-off")
WORKLOADS = ("hackbench-process", "hackbench-pipe", "pingpong")
TARGET = 0.01


def positive_int(name, default):
    value = os.environ.get(name, str(default))
    if not re.fullmatch(r"[1-9][0-9]*", value):
        sys.exit(f"bench-push: {name}={value!r}: expected a positive integer")
    return int(value)


def job_copy(reps, groups, loops, rounds, out=os.path.join(TOP, "build", "bench-push")):
    """The job, written to OUT, with its defaults replaced (guest/vm/jobs/bench-push.sh reads
    no environment)."""
    with open(JOB, encoding="utf-8") as f:
        text = f.read()
    for key, value in (("REPS", reps), ("HB_GROUPS", groups), ("HB_LOOPS", loops),
                       ("ROUNDS", rounds)):
        text, n = re.subn(rf"^{key}=\d+$", f"{key}={value}", text, count=1, flags=re.M)
        assert n == 1, key
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "bench-push.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def boot(job):
    setups = " ".join(os.path.join(TOP, "guest", "vm", "setups", f"{s}.sh") for s in SETTINGS)
    env = dict(os.environ, JOB=job, SETUPS=setups, TIMEOUT=os.environ.get("TIMEOUT", "1200"))
    r = subprocess.run([os.path.join(TOP, "guest", "host", "run.sh"),
                        os.path.join(TOP, "rt-app-profiles", "smoke.json"), "patched"],
                       env=env, stdout=subprocess.PIPE, text=True, check=False)
    if r.returncode != 0:
        sys.exit("bench-push: the boot failed (see above)")
    return r.stdout.strip().splitlines()[-1]


def read(folder):
    """{workload: {rep: {setting: seconds}}} from a boot's bench.txt."""
    out = collections.defaultdict(lambda: collections.defaultdict(dict))
    try:
        with open(os.path.join(folder, "bench.txt"), encoding="utf-8") as f:
            for line in f:
                rep, setting, workload, secs = line.split()
                out[workload][int(rep)][setting] = float(secs)
    except (OSError, ValueError) as e:
        sys.exit(f"bench-push: {folder}: no readable bench.txt ({e})")
    return out


def paired(reps):
    """(on/off ratio per repetition, on times, off times) of the complete pairs."""
    pairs = [(r["push-on"], r["push-off"]) for _, r in sorted(reps.items())
             if "push-on" in r and "push-off" in r]
    return [a / b for a, b in pairs], [a for a, _ in pairs], [b for _, b in pairs]


def verdict(mean, half):
    if math.isnan(half) or half > TARGET:
        return "inconclusive"
    return "met" if mean + half <= 1 + TARGET else "not met"


def main(argv):
    folders = argv[1:]
    if not folders:
        reps = positive_int("REPS", 10)
        job = job_copy(reps, positive_int("BENCH_GROUPS", 4), positive_int("BENCH_LOOPS", 50),
                       positive_int("BENCH_ROUNDS", 1000))
        folders = [boot(job)]
    data = [read(f) for f in folders]
    print(f"push on / push off, {len(folders)} boot(s); target: at most "
          f"{TARGET:.0%} overhead, decided when the 95 % CI is within +-{TARGET:.0%}")
    print(f"{'workload':<18} {'pairs':>5}  {'mean of ratios':>22}  {'ratio of means':>22}  "
          f"{'off (s)':>8}  verdict")
    for workload in WORKLOADS:
        per_boot, rom, n_pairs, off_all = [], [], 0, []
        for d in data:
            ratios, on, off = paired(d.get(workload, {}))
            if len(ratios) < 2:
                continue
            mean, half, n = mean_ci(ratios)
            per_boot.append((mean, half / t_quantile(n - 1)))
            rom.append(ratio_of_means(on, off))
            n_pairs += n
            off_all += off
        if not per_boot:
            print(f"{workload:<18} {n_pairs:>5}  fewer than two pairs")
            continue
        if len(per_boot) == 1:
            mean, half, _ = mean_ci(paired(data[0][workload])[0])
            rmean, rse = rom[0]
            rhalf = t_quantile(n_pairs - 1) * rse
        else:
            mean, half, _ = pooled(per_boot)
            rmean, rhalf, _ = pooled(rom)
        print(f"{workload:<18} {n_pairs:>5}  {mean:>10.4f} +- {half:<8.4f}  "
              f"{rmean:>10.4f} +- {rhalf:<8.4f}  {sum(off_all) / len(off_all):>8.3f}  "
              f"{verdict(mean, half)}")
    print("Boot folder(s): " + " ".join(folders))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
