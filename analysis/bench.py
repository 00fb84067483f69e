#!/usr/bin/python3
"""make bench-analysis: the analysis of a >= 1 M-event trace against `trace-cmd report`.

  analysis/bench.py [RUN_DIR]

Without RUN_DIR, replays guest/bench/churn.json on the patched kernel once and
reuses that run (build/bench/run) afterwards. Times, in one run each, from
trace.dat: `trace-cmd report > /dev/null`; the analysis to metrics.json with
plots excluded (cold: the trace reader runs); the plots alone (tables
cached). Prints the ratio analysis / trace-cmd report and each one's peak RSS.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(TOP, "build", "bench")
MIN_EVENTS = 1_000_000


def timed(argv, stdout=subprocess.DEVNULL):
    """(wall seconds, peak RSS in MiB) of one child process."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, cwd=TOP)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} failed: {err.strip().splitlines()[-1:]}")
    return wall, usage.ru_maxrss / 1024


def bench_run():
    link = os.path.join(BENCH, "run")
    if os.path.isdir(link):
        return os.path.realpath(link)
    print("bench: replaying guest/bench/churn.json on the patched kernel (once)", flush=True)
    r = subprocess.run([os.path.join(TOP, "guest", "run.sh"), os.path.join(TOP, "guest", "bench", "churn.json"),
                        "patched"], capture_output=True, text=True, check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench: the benchmark run failed:\n{r.stderr[-1500:]}")
    os.makedirs(BENCH, exist_ok=True)
    os.symlink(r.stdout.strip().splitlines()[-1], link)
    return os.path.realpath(link)


def count_events(run_dir, reader):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([reader, os.path.join(run_dir, "trace.dat"), tmp], check=True, capture_output=True)
        with open(os.path.join(tmp, "meta.csv"), encoding="utf-8") as f:
            meta = dict(line.strip().split(",", 1) for line in f)
    return int(meta["records"])


def main(argv):
    run_dir = argv[0] if argv else bench_run()
    trace = os.path.join(run_dir, "trace.dat")
    reader = os.path.join(TOP, "build", "analysis", "eas-trace-reader")
    report = os.path.join(TOP, "analysis", "report")
    events = count_events(run_dir, reader)
    print(f"bench: {trace}: {events} events ({os.path.getsize(trace) / 2**20:.0f} MiB)")
    if events < MIN_EVENTS:
        print(f"bench: warning: fewer than {MIN_EVENTS} events; the comparison is less telling")
    with tempfile.TemporaryDirectory() as tmp:
        tc = timed(["trace-cmd", "report", "-i", trace])
        shutil.rmtree(os.path.join(run_dir, "analysis", "tables"), ignore_errors=True)
        an = timed([report, "--no-plots", "-o", os.path.join(tmp, "metrics"), run_dir])
        with_plots = timed([report, "-o", os.path.join(tmp, "full"), run_dir])
    print(f"{'':34}{'wall (s)':>10}{'peak RSS (MiB)':>16}")
    print(f"{'trace-cmd report > /dev/null':34}{tc[0]:10.2f}{tc[1]:16.0f}")
    print(f"{'analysis to metrics.json':34}{an[0]:10.2f}{an[1]:16.0f}")
    print(f"{'plots (tables cached)':34}{max(with_plots[0] - an[0], 0):10.2f}{with_plots[1]:16.0f}")
    ratio = an[0] / tc[0]
    print(f"ratio analysis / trace-cmd report: {ratio:.2f}x (target <= 1.0x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
