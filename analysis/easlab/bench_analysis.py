"""make bench-analysis: the analysis of a >= 1 M-event trace against `trace-cmd report`.

  make bench-analysis [BENCH_RUN=RUN_DIR|synthetic]   (python3 -m easlab.bench_analysis [RUN_DIR | --synthetic])

Without RUN_DIR, replays rt-app-profiles/bench/churn.json on the patched kernel once and
reuses that run (build/bench/run) afterwards; --synthetic writes a run of the same
kind instead (build/bench/synthetic, once: easlab.synthetic_run.churn_run(), 50 s
of 16 threads, about 1.1 M events), for a machine without the kernels. Times, in
one run each, from trace.dat: `trace-cmd report > /dev/null`; the analysis to
metrics.json with plots excluded (cold: the trace reader runs); the plots alone
(tables cached). Prints each one's wall and CPU time (user + system, its child
processes included) and peak RSS, and the ratio analysis / trace-cmd report of
both: the wall ratio is the target's, the CPU one says how much of it the second
core made (and is steadier on a busy machine).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from contract.paths import TOP, module_env
BENCH = os.path.join(TOP, "build", "bench")
MIN_EVENTS = 1_000_000


def timed(argv, stdout=subprocess.DEVNULL):
    """(wall seconds, CPU seconds, peak RSS in MiB) of one child process (and those it
    waited for)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, cwd=TOP)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} failed: {err.strip().splitlines()[-1:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def bench_run():
    link = os.path.join(BENCH, "run")
    if os.path.isdir(link):
        return os.path.realpath(link)
    print("bench: replaying rt-app-profiles/bench/churn.json on the patched kernel (once)", flush=True)
    r = subprocess.run([os.path.join(TOP, "guest", "host", "run.sh"), os.path.join(TOP, "rt-app-profiles", "bench", "churn.json"),
                        "patched"], capture_output=True, text=True, check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench: the benchmark run failed:\n{r.stderr[-1500:]}")
    os.makedirs(BENCH, exist_ok=True)
    os.symlink(r.stdout.strip().splitlines()[-1], link)
    return os.path.realpath(link)


def synthetic_run():
    run_dir = os.path.join(BENCH, "synthetic")
    if os.path.isfile(os.path.join(run_dir, "trace.dat")):
        return run_dir
    print("bench: writing a synthetic churn run (once)", flush=True)
    os.makedirs(BENCH, exist_ok=True)
    shutil.rmtree(run_dir, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix=".synthetic-", dir=BENCH)
    try:
        # In a process of its own: a child's peak RSS counts its parent's at fork time.
        subprocess.run([sys.executable, "-m", "easlab.synthetic_run", "churn", os.path.join(tmp, "run")],
                       check=True, cwd=TOP, env=module_env())
        os.replace(os.path.join(tmp, "run"), run_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return run_dir


def count_events(run_dir, reader):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([reader, os.path.join(run_dir, "trace.dat"), tmp], check=True, capture_output=True)
        with open(os.path.join(tmp, "meta.csv"), encoding="utf-8") as f:
            meta = dict(line.strip().split(",", 1) for line in f)
    return int(meta["records"])


def main(argv):
    if argv == ["--synthetic"]:
        run_dir = synthetic_run()
    elif len(argv) == 1 and not argv[0].startswith("-"):
        run_dir = argv[0]
    elif not argv:
        run_dir = bench_run()
    else:
        sys.exit(__doc__.split("\n\n")[1])
    trace = os.path.join(run_dir, "trace.dat")
    reader = os.path.join(TOP, "build", "analysis", "eas-trace-reader")
    report = os.path.join(TOP, "analysis", "report")
    events = count_events(run_dir, reader)
    print(f"bench: {trace}: {events} events ({os.path.getsize(trace) / 2**20:.0f} MiB), "
          f"{len(os.sched_getaffinity(0))} CPUs")
    if events < MIN_EVENTS:
        print(f"bench: warning: fewer than {MIN_EVENTS} events; the comparison is less telling")
    with tempfile.TemporaryDirectory() as tmp:
        tc = timed(["trace-cmd", "report", "-i", trace])
        shutil.rmtree(os.path.join(run_dir, "analysis", "tables"), ignore_errors=True)
        an = timed([report, "--no-plots", "-o", os.path.join(tmp, "metrics"), run_dir])
        with_plots = timed([report, "-o", os.path.join(tmp, "full"), run_dir])
    print(f"{'':34}{'wall (s)':>10}{'CPU (s)':>10}{'peak RSS (MiB)':>16}")
    print(f"{'trace-cmd report > /dev/null':34}{tc[0]:10.2f}{tc[1]:10.2f}{tc[2]:16.0f}")
    print(f"{'analysis to metrics.json':34}{an[0]:10.2f}{an[1]:10.2f}{an[2]:16.0f}")
    print(f"{'plots (tables cached)':34}{max(with_plots[0] - an[0], 0):10.2f}"
          f"{max(with_plots[1] - an[1], 0):10.2f}{with_plots[2]:16.0f}")
    print(f"ratio analysis / trace-cmd report: {an[0] / tc[0]:.2f}x wall (target <= 1.0x), "
          f"{an[1] / tc[1]:.2f}x CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
