"""A sweep on Slurm: one job array per experiment (one guest per array task, as many
CPUs per task as the guest has vCPUs), then one job that analyses the sweep when the
arrays are over (--dependency=afterany), all through sbatch. Results go to the build
directory, which every node must see at the same path (BUILD, a shared file system).

Each array task runs `analysis/sweep task PLAN I`, the same code as a local sweep's
worker (sweep.run_one), so the done store, the run folders and the index are the
same whichever way a sweep ran.
"""
import json
import os
import shlex
import shutil
import subprocess
import time

from . import sweep
from contract.paths import TOP

SWEEP = os.path.join(TOP, "analysis", "sweep")
PY = "/usr/bin/python3"


class SlurmError(Exception):
    pass


def _sbatch(args, timeout=60):
    try:
        r = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True,
                           check=False, timeout=timeout)
    except FileNotFoundError:
        raise SlurmError("sbatch not found: run this on a Slurm login node (Debian: make "
                         "deps-slurm installs slurm-wlm and munge)") from None
    if r.returncode != 0:
        lines = (r.stderr.strip() or r.stdout.strip() or "no output").splitlines()
        raise SlurmError(f"sbatch failed: {lines[-1]}")
    return r.stdout.strip().split(";")[0]


def _show(path):
    """A path relative to the project when inside it."""
    rel = os.path.relpath(path, TOP)
    return path if rel.startswith("..") else rel


def submit(experiments_specs, report_args, build=None, partition=None, wait=False,
           timeout=None, out=print):
    """Submit the runs not done yet of [(experiment, specs)] as job arrays and the
    analysis job after them; with wait, block until the analysis is over (scancel
    everything past timeout seconds). Returns the analysis job's id."""
    build = build or sweep.BUILD
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    common = ["--partition", partition] if partition else []
    env = f"BUILD={shlex.quote(build)}"
    arrays = []
    for exp, specs in experiments_specs:
        todo = [s for s in specs if not sweep.done(s, build)]
        out(f"sweep: {exp.name}: {len(specs) - len(todo)} of {len(specs)} runs done already, "
            f"{len(todo)} to submit")
        if not todo:
            continue
        d = os.path.join(sweep.sweeps_dir(build), "slurm", f"{stamp}-{exp.name}")
        plan = os.path.join(d, "tasks.json")
        sweep.write_atomic(plan, json.dumps(todo, indent=1) + "\n")
        vcpus = max(s["vcpus"] for s in todo)
        try:
            # --time: QEMU's own limit, run.sh's margin around it, the run's analysis.
            job = _sbatch([*common, f"--array=0-{len(todo) - 1}", f"--cpus-per-task={vcpus}",
                           f"--time={(sweep.RUN_TIMEOUT + 600 + 1800) // 60}",
                           f"--job-name=eas-{exp.name}", f"--output={d}/task-%a.log",
                           f"--wrap={env} exec {PY} {shlex.quote(SWEEP)} task {shlex.quote(plan)} "
                           f"$SLURM_ARRAY_TASK_ID"])
        except SlurmError:
            shutil.rmtree(d, ignore_errors=True)
            raise
        out(f"sweep: {exp.name}: job array {job} ({len(todo)} tasks, {vcpus} CPUs each), "
            f"logs in {_show(d)}/")
        arrays.append(job)
    d = os.path.join(sweep.sweeps_dir(build), "slurm", f"{stamp}-report")
    os.makedirs(d, exist_ok=True)
    args = [*common, "--job-name=eas-report", f"--output={d}/report.log", "--cpus-per-task=1",
            "--time=120"]
    if arrays:
        args.append("--dependency=afterany:" + ":".join(arrays))
    cmd = f"{env} exec {PY} {shlex.quote(SWEEP)} report " + " ".join(shlex.quote(a) for a in report_args)
    if not wait:
        job = _sbatch([*args, f"--wrap={cmd}"])
        out(f"sweep: analysis job {job} runs when the arrays are over: "
            f"{_show(d)}/report.log, {_show(sweep.reports_dir(build))}/index.html")
        return job
    job = _sbatch([*args, f"--wrap={cmd}"])
    out(f"sweep: analysis job {job}; waiting for it (timeout {timeout} s)")
    try:
        _wait(job, timeout)
    except (SlurmError, subprocess.TimeoutExpired) as e:
        subprocess.run(["scancel", *arrays, job], check=False, capture_output=True, timeout=60)
        raise SlurmError(f"{e}; cancelled jobs {' '.join(arrays + [job])}") from None
    with open(os.path.join(d, "report.log"), encoding="utf-8", errors="replace") as f:
        out(f.read().rstrip())
    state = _state(job)
    if state != "COMPLETED":
        raise SlurmError(f"analysis job {job} ended {state} (see {d}/report.log)")
    return job


def _state(job):
    """A job's state from scontrol (no accounting database needed); '' once forgotten."""
    r = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True, text=True,
                       check=False, timeout=60)
    for word in r.stdout.split():
        if word.startswith("JobState="):
            return word.split("=", 1)[1]
    return ""


def _wait(job, timeout):
    t_end = time.monotonic() + (timeout or 10 ** 9)
    while True:
        state = _state(job)
        if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", ""):
            return state
        if time.monotonic() > t_end:
            raise SlurmError(f"analysis job {job} not over after {timeout} s (state {state})")
        time.sleep(5)
