"""Sweeps: the runs of experiments, planned, run (locally in parallel, or one per Slurm
array task), resumed and indexed.

A sweep's unit is a run: one boot of guest/host/run.sh for one (experiment, profile, group,
repetition). Its inputs are hashed (the kernel build's build/kernels/ID/info.json,
the profile, the command line, the platform, the setup snippets, the repetition's
number, and the warm-up replays where there are any); a run whose inputs hash to a key
already in the done store (build/sweeps/done/KEY.json, naming an ok run folder) is not
run again, whichever experiment asked for it first. A run that failed leaves build/sweeps/failed/KEY.json
(its status and log) and is tried again next time.

guest/host/run.sh names its run folder in the file RUN_DIR_FILE names, as soon as it
exists: the one channel from run.sh to its callers.

Each experiment's index of its run folders, build/reports/experiments/NAME/runs.json,
is what the report reads.
"""
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from easan.errors import AnalysisError

from contract.constants import kernel_id
from contract.paths import BUILD, TOP

RUN_SH = os.path.join(TOP, "guest", "host", "run.sh")
RUN_TIMEOUT = int(os.environ.get("TIMEOUT", "300") or 300)


def sweeps_dir(build=None):
    return os.path.join(build or BUILD, "sweeps")


def reports_dir(build=None):
    return os.path.join(build or BUILD, "reports", "experiments")


def host_cores():
    return len(os.sched_getaffinity(0))


def default_jobs(vcpus, cores=None):
    """Guests at once: host cores / vCPUs per guest, rounded down, at least 1."""
    return max(1, (cores or host_cores()) // max(1, vcpus))


def _sha_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def setup_file(group, build=None):
    """The snippet a run sources: the group's only one, or its snippets joined in order
    into build/sweeps/setups/LABEL.sh (so that the run is labelled LABEL); '' for none."""
    if not group.setups:
        return ""
    if len(group.setups) == 1:
        return group.setups[0]
    text = "# shellcheck shell=sh\n# " + " then ".join(os.path.relpath(s, TOP) for s in group.setups) + "\n"
    for s in group.setups:
        with open(s, encoding="utf-8") as f:
            text += f"# --- {os.path.relpath(s, TOP)}\n{f.read()}\n"
    path = os.path.join(sweeps_dir(build), "setups", group.setup_label + ".sh")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    write_atomic(path, text)
    return path


def plan(exp, reps=None, build=None):
    """[spec] of an experiment: one dict per run, every profile x group x repetition,
    repetition first: the groups take turns run by run, so that the host's drift over
    a sweep (its load, its caches) falls on every group alike rather than on the
    group that ran last (partc-energy's first batch, blocked by group, 2026-12-07)."""
    reps = reps or exp.repetitions
    out = []
    for rep in range(1, reps + 1):
        for profile in exp.profiles:
            for g in exp.groups.values():
                out.append({
                    "experiment": exp.name, "variant": exp.variant,
                    "profile": profile, "profile_name": exp.profile_name(profile),
                    "group": g.name, "rep": rep, "kernel": g.kernel, "kconfig": g.kconfig,
                    "cmdline": g.cmdline, "platform": g.platform, "vcpus": g.vcpus,
                    "setups": list(g.setups), "setup": setup_file(g, build),
                    "warmup": exp.warmup,
                })
    return out


def inputs(spec, build=None):
    """What decides a run's outcome, as hashes where they are files. Needs the kernel
    built (its info.json)."""
    info = os.path.join(build or BUILD, "kernels", kernel_id(spec["kernel"], spec["kconfig"]),
                        "info.json")
    if not os.path.isfile(info):
        raise FileNotFoundError(f"kernel {kernel_id(spec['kernel'], spec['kconfig'])} not built "
                                f"({info} missing; run 'make kernels')")
    out = {"kernel_build": _sha_file(info), "profile": _sha_file(spec["profile"]),
           "cmdline": spec["cmdline"], "platform": spec["platform"],
           "setup": [_sha_file(s) for s in spec["setups"]], "kconfig": spec["kconfig"],
           "rep": spec["rep"]}
    if spec.get("warmup"):  # absent when 0: the keys of earlier runs stay as they were
        out["warmup"] = spec["warmup"]
    return out


def key_of(inp):
    return hashlib.sha256(json.dumps(inp, sort_keys=True).encode()).hexdigest()[:24]


def with_keys(specs, build=None):
    for s in specs:
        s["inputs"] = inputs(s, build)
        s["key"] = key_of(s["inputs"])
    return specs


def write_atomic(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_status(run_dir):
    rec = _read_json(os.path.join(run_dir, "run.json")) if run_dir else None
    return (rec or {}).get("status", "no-record")


def done(spec, build=None):
    """The ok run folder of a spec's key in the done store, or None."""
    d = _read_json(os.path.join(sweeps_dir(build), "done", spec["key"] + ".json"))
    if d and os.path.isdir(d.get("run", "")) and run_status(d["run"]) == "ok":
        return d["run"]
    return None


def failure(spec, build=None):
    return _read_json(os.path.join(sweeps_dir(build), "failed", spec["key"] + ".json"))


def metrics_path(run_dir):
    return os.path.join(run_dir, "analysis", "report", "metrics.json")


# The analysis runs in this process; its caches (the reader's prefetch, the schema) are
# not made for threads, and under the GIL a second analysis would gain little.
_ANALYSIS = threading.Lock()


def analyse(run_dir, log=None):
    """The run's metrics (easan.analyse, written once next to the run as
    analysis/report's --no-plots would); (metrics or None, error text)."""
    path = metrics_path(run_dir)
    trace = os.path.join(run_dir, "trace.dat")
    if not (os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(trace)):
        def progress(msg):
            if log:
                with open(log, "a", encoding="utf-8") as f:
                    f.write(f"report: {msg}\n")
        # Imported here: planning and submitting a sweep needs no pandas.
        from easan import pipeline  # pylint: disable=import-outside-toplevel
        try:
            with _ANALYSIS:
                results = pipeline.analyse([run_dir], progress=progress)
                pipeline.write_report(os.path.dirname(path), results, plots=False,
                                      progress=progress)
        except AnalysisError as e:
            progress(f"error: {e}")
            return None, str(e)
    m = _read_json(path)
    if not m or not m.get("runs"):
        return None, f"{path}: no metrics"
    return m["runs"][0], ""


def boot(spec, build=None, runs_dir=None, log=None):
    """guest/host/run.sh for a spec (its platform, command line and setup), output to log
    (or discarded); (exit status, run folder or '' if run.sh stopped before making
    one). The folder comes from RUN_DIR_FILE."""
    return _run_sh(spec, [], build, runs_dir, log, RUN_TIMEOUT + 600)


def prepare(spec, runs_dir, build=None, log=None):
    """guest/host/run.sh --prepare-only for a spec: the run folder a lab boots from a per-run
    ramdisk, without booting; (exit status, run folder or '')."""
    return _run_sh(spec, ["--prepare-only"], build, runs_dir, log, 120)


def _run_sh(spec, flags, build, runs_dir, log, timeout):
    build = build or BUILD
    os.makedirs(sweeps_dir(build), exist_ok=True)
    fd, channel = tempfile.mkstemp(dir=sweeps_dir(build), prefix=".run-dir-")
    os.close(fd)
    env = dict(os.environ)
    for var in ("SETUPS", "SETUP", "CPUS", "JOB"):
        env.pop(var, None)
    env.update(PLATFORM=spec["platform"], CMDLINE=spec["cmdline"], RUN_DIR_FILE=channel, BUILD=build)
    warmup = spec.get("warmup", 0)
    if warmup:  # the setup's replay warmup + 1 times in one boot (guest/vm/jobs/replays.sh)
        env["SETUPS"] = " ".join([spec["setup"]] * (warmup + 1))
    elif spec["setup"]:
        env["SETUP"] = spec["setup"]
    if runs_dir:
        env["RUNS"] = runs_dir
    with open(log or os.devnull, "a", encoding="utf-8") as f:
        # run.sh's QEMU has its own hard timeout (TIMEOUT); this one is for the rest.
        try:
            rc = subprocess.run([RUN_SH, *flags, spec["profile"], spec["kernel"], spec["kconfig"]],
                                env=env, stdout=f, stderr=subprocess.STDOUT, check=False,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    with open(channel, encoding="utf-8") as f:
        run_dir = f.read().strip()
    os.unlink(channel)
    if warmup and run_dir and "--prepare-only" not in flags:
        return measured_replay(rc, run_dir, warmup)
    return rc, run_dir


def run_id(run_dir):
    """A run folder's name in a batch: its own, or BOOT/replays/NAME for a replay of a
    SETUPS boot, whose NAME the measured replays of every warm-up boot share."""
    path = os.path.normpath(run_dir)
    parent = os.path.dirname(path)
    if os.path.basename(parent) == "replays":
        return "/".join((os.path.basename(os.path.dirname(parent)), "replays", os.path.basename(path)))
    return os.path.basename(path)


def measured_replay(rc, run_dir, warmup):
    """(exit status, the run folder of the boot's last replay), the one measured after
    warmup replays; a boot with fewer replays fails (the boot's folder then)."""
    replays = sorted(glob.glob(os.path.join(glob.escape(run_dir), "replays", "*", "")))
    if len(replays) != warmup + 1:
        return rc or 1, run_dir
    return rc, replays[-1].rstrip(os.sep)


def run_one(spec, build=None, runs_dir=None):
    """Boot the run of a spec, analyse it and record it in the done store (or the
    failed one). Returns the record: {'status', 'run', 'seconds', 'error', ...}."""
    build = build or BUILD
    os.makedirs(os.path.join(sweeps_dir(build), "logs"), exist_ok=True)
    log = os.path.join(sweeps_dir(build), "logs", spec["key"] + ".log")
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"# {json.dumps({k: spec[k] for k in ('experiment', 'profile', 'group', 'rep', 'key')})}\n")
    t0 = time.monotonic()
    rc, run_dir = boot(spec, build, runs_dir, log)
    seconds = time.monotonic() - t0
    status = run_status(run_dir) if run_dir else "not-started"
    if rc != 0 and status == "ok":  # the boot said ok, the caller did not (too few replays)
        status = "incomplete"
    rec = {"key": spec["key"], "inputs": spec["inputs"], "run": run_dir, "status": status,
           "experiment": spec["experiment"], "profile": spec["profile_name"], "group": spec["group"],
           "rep": spec["rep"], "seconds": round(seconds, 1), "log": log,
           "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if rc != 0 or status != "ok":
        with open(log, encoding="utf-8", errors="replace") as f:
            errors = [l.strip() for l in f if "error:" in l]
        rec["error"] = errors[0] if errors else f"run.sh exited {rc}"
        write_atomic(os.path.join(sweeps_dir(build), "failed", spec["key"] + ".json"),
                     json.dumps(rec, indent=1) + "\n")
        return rec
    _, err = analyse(run_dir, log)
    rec["analysis_error"] = err or None
    write_atomic(os.path.join(sweeps_dir(build), "done", spec["key"] + ".json"),
                 json.dumps(rec, indent=1) + "\n")
    try:
        os.unlink(os.path.join(sweeps_dir(build), "failed", spec["key"] + ".json"))
    except FileNotFoundError:
        pass
    return rec


def _dur(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    """'[done/total] ..., elapsed, estimate' lines on stderr."""

    def __init__(self, total, reused, jobs, out=sys.stderr):
        self.total, self.done, self.jobs, self.out = total, reused, jobs, out
        self.t0 = time.monotonic()
        self.ran, self.failed = 0, 0
        self.lock = threading.Lock()

    def line(self, what):
        with self.lock:
            elapsed = time.monotonic() - self.t0
            left = self.total - self.done
            est = (f", about {_dur(elapsed / self.ran * left / 1)} left" if self.ran and left
                   else "")
            print(f"sweep: [{self.done}/{self.total}] {what}; elapsed {_dur(elapsed)}{est}",
                  file=self.out, flush=True)

    def finished(self, spec, rec):
        with self.lock:
            self.done += 1
            self.ran += 1
            self.failed += rec["status"] != "ok"
        what = (f"{spec['experiment']} {spec['profile_name']} {spec['group']} #{spec['rep']}: "
                f"{rec['status']} in {_dur(rec['seconds'])}"
                + (f" ({rec.get('error')})" if rec["status"] != "ok" else ""))
        self.line(what)


def run_local(specs, jobs, build=None, runs_dir=None, out=sys.stderr):
    """Run the specs not done yet, up to jobs at once. Returns (reused, ran, failed)."""
    todo = [s for s in specs if not done(s, build)]
    reused = len(specs) - len(todo)
    prog = Progress(len(specs), reused, jobs, out)
    prog.line(f"{reused} reused from earlier sweeps, {len(todo)} to run, {jobs} at once")

    def one(spec):
        prog.line(f"starting {spec['experiment']} {spec['profile_name']} {spec['group']} #{spec['rep']}")
        rec = run_one(spec, build, runs_dir)
        prog.finished(spec, rec)
        return rec
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        recs = list(pool.map(one, todo))
    return reused, len(recs), sum(r["status"] != "ok" for r in recs)


def write_index(exp, specs, build=None):
    """build/reports/experiments/NAME/runs.json: every run of the experiment's sweep,
    its folder when it completed, else its last failure."""
    runs = []
    for s in specs:
        folder = done(s, build)
        fail = None if folder else failure(s, build)
        runs.append({"profile": s["profile_name"], "group": s["group"], "rep": s["rep"], "key": s["key"],
                     "run": folder, "status": "ok" if folder else (fail or {}).get("status", "not-run"),
                     "error": None if folder else (fail or {}).get("error")})
    index = {"experiment": exp.name, "file": os.path.relpath(exp.path, TOP), "sha256": exp.sha256,
             "variant": exp.variant, "reps": max((s["rep"] for s in specs), default=0), "runs": runs}
    path = os.path.join(reports_dir(build), exp.name, "runs.json")
    write_atomic(path, json.dumps(index, indent=1) + "\n")
    return path


def read_index(name, build=None):
    return _read_json(os.path.join(reports_dir(build), name, "runs.json"))
