"""How faithful the run was to the platform it models: how long the host kept each
busy vCPU waiting, measured on the host (steal).

Under TCG a vCPU makes progress only while the host runs its QEMU thread, and the
guest's clocks follow the host's: a vCPU thread that wanted a host CPU and waited
for one delivered that much less work in the guest's time than the model (every
vCPU a whole CPU) assumes. Busy vCPUs share the host's cores, so a contended run
says little about placement.

The source is the run folder's host-vcpu.tsv (contract.run_folder.HOST_VCPU, whose
comment gives the format): guest/host/vcpu-sampler.c reads every 5 ms, for each
vCPU thread, the time it ran and the time it waited on a host runqueue
(/proc/PID/task/TID/schedstat). Per vCPU over a window of host time:

    wanted = delta(run) + delta(wait);   steal = delta(wait) / wanted
    busy share = wanted / window length; busy when it is >= BUSY_SHARE

The window is the one the metrics use (catalog.Context t0..t1, the guest's trace
clock) mapped to host time: offset = the host time the sampler saw the guest's
replay-start file (the sample that saw it, less half a period) - the trace time of
the "eas: replay start" marker written just before it (guest/vm/vm-lib.sh). The
replay-end file gives the same at the end: the difference between the two offsets
is reported (align_error_ns), not used. A replay of a SETUPS boot
(RUN/replays/NN-SETUP/) reads RUN's file and its own marks. Without the marks
(an older guest library) the samples are used over the whole run, unaligned: said
in the reason and by "aligned": false.

The run is distorted when a busy vCPU's steal is above MAX_STEAL: a vCPU that
waited a quarter of the time it wanted delivered 25 % less work than the model
assumes, as the earlier rule said of speeds (a CPU under 75 % of the fastest).
Without host samples (older run folders, synthetic runs), or with a file that says
sampling failed or cannot be read, steal is not measured: distorted None and the
reason says why ("no host samples", "not measured: ...").

A vCPU the host ran without making it wait can still deliver less work than the
model assumes: under TCG the host's own speed changes with what else it runs (a CI
host ran a calibrated profile at about twice its size with steal at 16 %). rt-app
sizes a `run` event in loops by its calibration, and logs the run time it asked for
(c_duration) beside the time the loops took (run): for an activation never
preempted, c_duration / run, divided by the CPU's expected speed, is the work the
CPU delivered against what the calibration promised ("work", the median over all
such activations; fewer than MIN_ACTIVATIONS are not summarised). It is reported,
with "off_band" where it is outside [MIN_WORK, MAX_WORK] (a task that took 4/3 of
its time is a third bigger than the profile says), and does not set distorted yet:
a first survey of 13 run folders on this machine (issue 22's notes) found 7 outside
that band, from 0.59 to 3.19, before the mechanism was known (a calibration taken
when fewer vCPUs were busy is one candidate); a verdict that drops half the runs
would need it first.

rt-app's perf/run is kept as a diagnostic only ("speed"; it never sets distorted):
for a `runtime` event it is the task's share of its CPU, not the CPU's speed, and a
preempted activation's is the share it got. So only activations of tasks whose
events are `run` (never `runtime`), never preempted (no sched_switch of the thread
with a runnable prev_state inside the activation), are placed on the CPU they
started on (speeds()) and summarised (summary()): per-CPU median loops/us, and
"uneven" where a CPU's median is below MIN_CPU_RATIO of the fastest one's (each
divided by expected_speed() with capacity-faithful speed), or the 10th percentile
below MIN_TIME_RATIO of the median. Fewer than MIN_ACTIVATIONS activations are too
few to summarise, and a CPU seen fewer than MIN_CPU_ACTIVATIONS times is listed
but not compared.
"""
import os
from typing import NamedTuple, Optional

import numpy as np

from contract import rtapp_profile
from contract.run_folder import HOST_VCPU, REPLAY_END, REPLAY_MARKER, REPLAY_START

from .metric import Metric
from .schedule import RUNNABLE_STATES

# rt-app's logs, placed on CPUs by sched_switch.
EVENTS = ("sched_switch",)
# Steal of a busy vCPU above this distorts the run.
MAX_STEAL = 0.25
# A vCPU is busy when it wanted a host CPU for this share of the window at least.
BUSY_SHARE = 0.2
# The samples must cover this share of the window, else steal is not measured.
MIN_COVER = 0.9
# The speed diagnostic's bounds (summary()).
MIN_CPU_RATIO = 0.75
MIN_TIME_RATIO = 0.5
MIN_ACTIVATIONS = 5
MIN_CPU_ACTIVATIONS = 3
# The work diagnostic's band (c_duration / run over clean activations, median).
MIN_WORK = 0.75
MAX_WORK = 4 / 3
NO_SAMPLES = "no host samples"
NOT_MEASURED = "not measured"


class HostSamplesError(ValueError):
    """A host-vcpu.tsv that cannot be read; the message is one line naming the file
    (and the line)."""


class HostSamples(NamedTuple):
    """A host-vcpu.tsv as read_host_samples() reads it."""
    path: str
    pid: Optional[int]
    period_ns: Optional[int]
    vcpus: list                 # vCPU indices, in the columns' order
    t: np.ndarray               # sample times, host CLOCK_MONOTONIC ns
    run: np.ndarray             # [samples, vcpus] cumulative run time, ns
    wait: np.ndarray            # [samples, vcpus] cumulative wait time, ns
    marks: dict                 # name -> host time the sampler first saw it
    end: Optional[tuple]        # (t, reason) or None
    error: Optional[str]        # the sampler's error line, or None


def read_host_samples(path):
    """A HostSamples from the sampler's file. A malformed line raises
    HostSamplesError naming the file and the line; a last line without its newline
    (the sampler stopped while writing it) is left out."""
    pid = period = error = end = None
    vcpus, rows, marks = [], [], {}
    try:
        with open(path, encoding="ascii") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise HostSamplesError(f"{path}: unreadable ({e})") from None
    lines = text.split("\n")
    # The piece after the last newline is a line cut short (or empty).
    for n, line in enumerate(lines[:-1], 1):
        fields = line.split("\t")
        kind = fields[0]
        try:
            if not line or kind.startswith("#"):
                continue
            if kind == "error":
                error = "\t".join(fields[1:]).strip() or "sampling failed"
            elif kind == "qemu" and len(fields) == 3:
                pid, period = int(fields[1]), int(fields[2])
            elif kind == "vcpu" and len(fields) == 3 and not rows:
                vcpus.append(int(fields[1]))
            elif kind == "sample" and len(fields) == 2 + 2 * len(vcpus) and vcpus:
                row = [int(x) for x in fields[1:]]
                if min(row) < 0 or (rows and row[0] < rows[-1][0]):
                    raise ValueError
                rows.append(row)
            elif kind == "mark" and len(fields) == 3 and fields[2]:
                marks.setdefault(fields[2], int(fields[1]))
            elif kind == "end" and len(fields) == 3:
                end = (int(fields[1]), fields[2])
            else:
                raise ValueError
        except ValueError:
            shown = line if len(line) <= 80 else line[:77] + "..."
            raise HostSamplesError(f"{path}:{n}: not a line of the sampler's format: "
                                   f"{shown!r}") from None
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), 1 + 2 * len(vcpus))
    return HostSamples(path, pid, period, vcpus, arr[:, 0], arr[:, 1::2], arr[:, 2::2],
                       marks, end, error)


def host_file(run_path):
    """(path of the host samples, prefix of the run's mark names) for a run folder:
    its own HOST_VCPU, or for a replay of a SETUPS boot (RUN/replays/NAME/) RUN's, whose
    marks are replays/NAME/...; (None, None) when there is none."""
    path = os.path.normpath(run_path)
    own = os.path.join(path, HOST_VCPU)
    if os.path.isfile(own):
        return own, ""
    parent = os.path.dirname(path)
    boot = os.path.join(os.path.dirname(parent), HOST_VCPU)
    if os.path.basename(parent) == "replays" and os.path.isfile(boot):
        return boot, f"replays/{os.path.basename(path)}/"
    return None, None


def _marker_ts(prints, which):
    """The trace time of the first "eas: replay start|end" marker, or None."""
    if prints is None or not len(prints):
        return None
    hit = prints[prints["text"] == f"{REPLAY_MARKER} {which}"]
    return int(hit["ts"].min()) if len(hit) else None


def alignment(samples, prefix, prints):
    """(offset_ns, align_error_ns): host time = trace time + offset (None when the
    marker or the mark is missing); the end's offset minus the start's (None
    without both)."""
    half = (samples.period_ns or 0) // 2
    offsets = []
    for which, name in (("start", REPLAY_START), ("end", REPLAY_END)):
        guest = _marker_ts(prints, which)
        host = samples.marks.get(prefix + name)
        offsets.append(None if guest is None or host is None else host - half - guest)
    start, end = offsets
    return start, (end - start if start is not None and end is not None else None)


def steal(samples, h0, h1):
    """{vcpu: {"steal", "busy", "wanted_ns", "wait_ns"}} over host time [h0, h1]
    (each counter interpolated between the samples around h0 and h1); steal None for
    a vCPU that wanted no CPU."""
    length = h1 - h0
    out = {}
    for j, cpu in enumerate(samples.vcpus):
        run = np.interp([h0, h1], samples.t, samples.run[:, j])
        wait = np.interp([h0, h1], samples.t, samples.wait[:, j])
        d_run, d_wait = float(run[1] - run[0]), float(wait[1] - wait[0])
        wanted = d_run + d_wait
        out[cpu] = {"steal": d_wait / wanted if wanted > 0 else None,
                    "busy": wanted / length if length > 0 else 0.0,
                    "wanted_ns": int(round(wanted)), "wait_ns": int(round(d_wait))}
    return out


def _not_measured(reason, **extra):
    return {"source": NOT_MEASURED, "distorted": None, "reason": reason, "per_cpu": {},
            "busy_cpus": [], "max_steal": None, "max_steal_limit": MAX_STEAL,
            "busy_share_min": BUSY_SHARE, **extra}


def judge(per_cpu):
    """(distorted, reason, busy vCPUs, max steal of busy vCPUs) from steal()'s dict."""
    busy = sorted(c for c, v in per_cpu.items()
                  if v["busy"] >= BUSY_SHARE and v["steal"] is not None)
    if not busy:
        return False, f"no vCPU wanted a host CPU for {BUSY_SHARE:.0%} of the window", busy, None
    worst = max(per_cpu[c]["steal"] for c in busy)
    over = [c for c in busy if per_cpu[c]["steal"] > MAX_STEAL]
    if over:
        return True, ("busy vCPUs waited for a host CPU: "
                      + ", ".join(f"CPU {c} steal {per_cpu[c]['steal']:.0%}" for c in over)
                      + f" (limit {MAX_STEAL:.0%})"), busy, worst
    top = max(busy, key=lambda c: per_cpu[c]["steal"])
    return False, (f"steal of busy vCPUs at most {worst:.0%} (CPU {top}; limit "
                   f"{MAX_STEAL:.0%})"), busy, worst


def host_fidelity(run_path, prints, t0, t1):
    """The run's fidelity from the host's samples over the trace window [t0, t1]
    (ns): source, distorted, reason, per-CPU steal and busy share, the window in both
    clocks, the alignment. prints: the trace's print table (the replay markers)."""
    path, prefix = host_file(run_path)
    if path is None:
        return _not_measured(NO_SAMPLES)
    name = os.path.relpath(path, run_path)
    try:
        samples = read_host_samples(path)
    except HostSamplesError as e:
        return _not_measured(f"{NOT_MEASURED}: {e}")
    if samples.error:
        return _not_measured(f"{NOT_MEASURED}: {name}: {samples.error}")
    if len(samples.t) < 2:
        return _not_measured(f"{NOT_MEASURED}: {name}: {len(samples.t)} samples")
    offset, align_error = alignment(samples, prefix, prints)
    if offset is not None:
        h0, h1 = t0 + offset, t1 + offset
        aligned = True
    else:
        h0, h1 = int(samples.t[0]), int(samples.t[-1])
        aligned = False
    lo, hi = max(h0, int(samples.t[0])), min(h1, int(samples.t[-1]))
    extra = {"aligned": aligned, "window_ns": [int(t0), int(t1)], "host_window_ns": [h0, h1],
             "offset_ns": offset, "align_error_ns": align_error}
    if h1 <= h0 or hi - lo < MIN_COVER * (h1 - h0):
        covered = max(hi - lo, 0) / (h1 - h0) if h1 > h0 else 0.0
        return _not_measured(f"{NOT_MEASURED}: {name}: the samples cover {covered:.0%} of "
                             "the window", **extra)
    per_cpu = steal(samples, lo, hi)
    distorted, reason, busy, worst = judge(per_cpu)
    if not aligned:
        # Over the whole run (boot, idle time, every replay of a boot) steal is diluted
        # below the busy share: such a run can show distortion, never prove its absence.
        reason += " (unaligned: over the whole run, no replay marks)"
        if not distorted:
            distorted = None
    return {"source": "host", "distorted": distorted, "reason": reason,
            "per_cpu": {str(c): v for c, v in per_cpu.items()}, "busy_cpus": busy,
            "max_steal": worst, "max_steal_limit": MAX_STEAL, "busy_share_min": BUSY_SHARE,
            **extra}


def _run_event_tasks(profile):
    """The profile's tasks whose events are `run` and never `runtime`: their rt-app
    perf/run is the speed of the CPU they ran on."""
    out = set()
    for name, task in (profile.get("tasks") or {}).items():
        kinds = set()
        for where in [task, *(task.get("phases") or {}).values()]:
            for key in where:
                m = rtapp_profile.EVENT_RE.match(key)
                if m:
                    kinds.add(m.group(1))
        if "run" in kinds and "runtime" not in kinds:
            out.add(name)
    return out


def speeds(run, sl):
    """Rows (cpu, start_ns, loops_per_us, work) for each logged activation with run > 0
    of a task with `run` events only, never preempted: the speed diagnostic's loops per
    us, and the work check's c_duration / run."""
    out = []
    tid_pid = dict(zip(run.threads["thread"], run.threads["pid"]))
    tid_task = dict(zip(run.threads["thread"], run.threads["task"]))
    wanted = _run_event_tasks(run.profile)
    sw = run.tables["switch"]
    for thread, log in run.logs.items():
        pid = tid_pid.get(thread)
        if pid is None or log.empty or tid_task.get(thread) not in wanted:
            continue
        mine = sl[sl["pid"] == pid].sort_values("start")
        starts, ends, cpus = (mine["start"].to_numpy(), mine["end"].to_numpy(),
                              mine["cpu"].to_numpy())
        # rt-app logs perf 0 for some runs (seen on a 3 s one): no speed to read.
        ok = (log["run"] > 0) & (log["perf"] > 0)
        perf, run_us = log["perf"][ok].to_numpy(float), log["run"][ok].to_numpy(float)
        asked_us = log["c_duration"][ok].to_numpy(float)
        t = log["start"][ok].to_numpy(np.int64) * 1000
        t_end = log["end"][ok].to_numpy(np.int64) * 1000
        # Preempted inside [start, end]: a switch-out that left it runnable.
        outs = np.sort(sw["ts"][(sw["prev_pid"] == pid)
                                & sw["prev_state"].isin(RUNNABLE_STATES)].to_numpy(np.int64))
        clean = (np.searchsorted(outs, t_end, side="left")
                 == np.searchsorted(outs, t, side="right"))
        i = np.searchsorted(starts, t, side="right") - 1
        # The slice running at the activation's start, else the next one.
        inside = (i >= 0) & (t < ends[np.clip(i, 0, max(len(ends) - 1, 0))]) if len(ends) else i >= 0
        i = np.where(inside, i, i + 1)
        keep = (i >= 0) & (i < len(cpus)) & clean
        out += zip(cpus[i[keep]].tolist(), t[keep].tolist(), (perf[keep] / run_us[keep]).tolist(),
                   (asked_us[keep] / run_us[keep]).tolist())
    return out


def expected_speed(run):
    """{cpu: the share of a full CPU's speed it should deliver} with capacity-faithful
    speed; None without it (every CPU at the host's speed)."""
    if not run.faithful:
        return None
    return {c: min(run.platform.capacity(c), 1024) / 1024 for c in range(run.platform.ncpus)}


def summary(rows, ncpus, expected=None):
    """The speed diagnostic: per-CPU median speeds (loops/us) of speeds()' rows and
    whether they are uneven (a note says how). Never a verdict on the run.

    expected: as expected_speed(); the comparisons use speeds divided by it.
    """
    if len(rows) < MIN_ACTIVATIONS:
        return {"per_cpu": {}, "uneven": None,
                "note": f"{len(rows)} clean run activations logged, too few to summarise"}
    arr = np.array(rows, dtype=float)
    per_cpu = {int(c): float(np.median(arr[arr[:, 0] == c, 2]))
               for c in range(ncpus) if (arr[:, 0] == c).any()}
    if expected:
        arr[:, 2] /= [expected.get(int(c), 1.0) for c in arr[:, 0]]
    judged = {c: float(np.median(arr[arr[:, 0] == c, 2])) for c in per_cpu
              if (arr[:, 0] == c).sum() >= MIN_CPU_ACTIVATIONS}
    if not judged:
        return {"per_cpu": per_cpu, "uneven": None,
                "note": f"no CPU ran {MIN_CPU_ACTIVATIONS} clean activations, too few to compare"}
    top = max(judged.values())
    median = float(np.median(arr[:, 2]))
    p10 = float(np.percentile(arr[:, 2], 10))
    what = "of the fastest, for its capacity" if expected else "of the fastest"
    slow = {c: s / top for c, s in judged.items() if s / top < MIN_CPU_RATIO}
    notes = [f"CPU {c} ran at {r:.0%} {what}" for c, r in sorted(slow.items())]
    if median > 0 and p10 / median < MIN_TIME_RATIO:
        notes.append(f"10% of activations ran below {p10 / median:.0%} of the median speed")
    return {"per_cpu": per_cpu, "median": median, "p10": p10,
            "cpu_spread": min(judged.values()) / top if top else None,
            "activations": len(rows), "uneven": bool(notes), "note": "; ".join(notes)}


def work(rows, expected=None):
    """The work diagnostic over speeds()' rows: the median of c_duration / run, each
    divided by its CPU's expected speed (expected_speed(); None: every CPU at full
    speed). off_band is None when too few activations were clean to summarise."""
    ratios = [r[3] / (expected.get(int(r[0]), 1.0) if expected else 1.0)
              for r in rows if len(r) > 3]
    out = {"median": None, "activations": len(ratios), "off_band": None,
           "band": [MIN_WORK, MAX_WORK]}
    if len(ratios) < MIN_ACTIVATIONS:
        out["reason"] = (f"{len(ratios)} clean run activations, too few to judge the work "
                         "delivered")
        return out
    med = float(np.median(ratios))
    out["median"] = med
    out["off_band"] = not MIN_WORK <= med <= MAX_WORK
    out["reason"] = (f"run activations never preempted delivered {med:.0%} of their "
                     f"calibrated work per unit of time (median of {len(ratios)}; "
                     f"band {MIN_WORK:.0%}-{MAX_WORK:.0%})")
    return out


def report_lines(m):
    """Markdown lines of a run's fidelity for its report: the verdict's source and
    reason, each vCPU's busy share and steal, and the speed diagnostic."""
    f = m.get("fidelity") or {}
    if f.get("source") == "host":
        where = "aligned with the trace" if f.get("aligned") else "unaligned, the whole run"
        head = (f"Fidelity (the host's steal of busy vCPUs, busy from {BUSY_SHARE:.0%} of the "
                f"window, limit {MAX_STEAL:.0%}; {where}): {f.get('reason')}")
    else:
        why = f.get("reason") or NO_SAMPLES
        head = "Fidelity: steal " + (why if why.startswith(NOT_MEASURED) else f"{NOT_MEASURED} ({why})")
    out = ["", head, ""]
    if f.get("per_cpu"):
        busy = set(f.get("busy_cpus") or [])
        out += ["| vCPU | busy share | steal |", "|---|---|---|"]
        out += [f"| CPU{c}{' (busy)' if int(c) in busy else ''} | {v['busy']:.1%} | "
                f"{'-' if v['steal'] is None else format(v['steal'], '.1%')} |"
                for c, v in sorted(f["per_cpu"].items(), key=lambda kv: int(kv[0]))]
        out.append("")
    w = f.get("work") or {}
    if w.get("reason"):
        out += [f"Work diagnostic (not a verdict): {w['reason']}"
                + (", outside the band" if w.get("off_band") else ""), ""]
    s = f.get("speed") or {}
    speed = ("capacity-faithful E-cores, against capacity/1024" if m.get("faithful_speed")
             else "every CPU at the host's speed")
    if s.get("per_cpu"):
        out += [f"Speed diagnostic (rt-app `run` activations never preempted, {speed}; not a "
                "verdict): per-CPU median loops/us "
                + ", ".join(f"CPU{c} {v:.2f}" for c, v in s["per_cpu"].items())
                + (f"; {s['note']}" if s.get("note") else ""), ""]
    elif s.get("note"):
        out += [f"Speed diagnostic: {s['note']}", ""]
    return out


def compute(ctx):
    run = ctx.run
    expected = expected_speed(run)
    out = host_fidelity(run.path, run.tables["print"], ctx.t0, ctx.t1)
    out["work"] = work(ctx.speeds, expected)
    out["speed"] = summary(ctx.speeds, run.platform.ncpus, expected)
    return out, None


METRIC = Metric("fidelity", compute, EVENTS)


class FaithfulStat(NamedTuple):
    """One CPU's line of hybrid_sim's faithful_stats."""
    busy_us: int
    given_us: int
    ticks: int
    # None in a copy from a kernel before the file moved to debugfs (four columns).
    capacity: Optional[int] = None
    timer: Optional[str] = None


# What the timer of a CPU is doing: ticking, parked until a task runs, not needed
# (capacity 1024), waiting for the CPU's high-resolution timer mode (retried every
# 100 ms for 20 s) or stopped (the option off, or the CPU going offline).
TIMER_STATES = ("running", "idle", "full", "waiting", "off")
FAITHFUL_STATS_FORMATS = ("'CPU BUSY_US GIVEN_US TICKS CAPACITY TIMER' "
                          "(or the older 'CPU BUSY_US GIVEN_US TICKS')")


def _faithful_line(fields):
    """A FaithfulStat and its CPU from one line's fields, or None if malformed."""
    if len(fields) == 6 and all(x.isdigit() for x in fields[:5]) and fields[5] in TIMER_STATES:
        cpu, busy, given, ticks, cap = (int(x) for x in fields[:5])
        return cpu, FaithfulStat(busy, given, ticks, cap, fields[5])
    if len(fields) == 4 and all(x.isdigit() for x in fields):
        cpu, busy, given, ticks = (int(x) for x in fields)
        return cpu, FaithfulStat(busy, given, ticks)
    return None


def read_faithful_stats(path):
    """{cpu: FaithfulStat(busy_us, given_us, ticks, capacity, timer)} from a copy of
    hybrid_sim's faithful_stats.

    The simulator's totals for each CPU whose capacity-faithful timer ran or may run,
    since it last started: the busy time it saw, the time it gave away (spin and
    handler) and its ticks; then the CPU's capacity and what its timer does
    (TIMER_STATES). The kernels of this series write six columns
    (/sys/kernel/debug/hybrid_sim/faithful_stats, P-cores included with TIMER
    full); run folders from before it hold the four-column sysfs file, read with
    capacity and timer None. A malformed line, or one whose format differs from
    the first line's, raises ValueError naming the file and the line.
    """
    out = {}
    width = None
    with open(path, encoding="ascii") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            parsed = _faithful_line(fields)
            if parsed is None or (width is not None and len(fields) != width):
                raise ValueError(f"{path}:{n}: not {FAITHFUL_STATS_FORMATS}: {line.strip()!r}")
            width = len(fields)
            cpu, stat = parsed
            out[cpu] = stat
    return out


def alternating_blocks(values, block, skip=1):
    """(even blocks, odd blocks) of a log that alternates between two CPUs.

    A task whose phases alternate CPU A, CPU B, A, B ... with `block` runs each
    logs them in that order; the first `skip` runs of each block include the
    move and are left out. A short last block is kept (rt-app stops at its
    duration). Returns two lists of the kept values, A's then B's.
    """
    if block < 1 or not 0 <= skip < block:
        raise ValueError(f"block {block}, skip {skip}: need block >= 1 and 0 <= skip < block")
    a, b = [], []
    for i, v in enumerate(values):
        if i % block >= skip:
            (a if (i // block) % 2 == 0 else b).append(v)
    return a, b


# Switching the option disturbs the CPUs around it (timers start, E-cores
# calibrate); /proc/uptime, which times a switch, ticks every 10 ms.
FLIP_GUARD_US = 30000


def read_flips(path):
    """[(before_us, after_us, state)] from make bench-speed's flips.txt.

    Each line is "UPTIME_BEFORE UPTIME_AFTER STATE": /proc/uptime in seconds
    around one write of 0 or 1 to the option's switch. A malformed line
    raises ValueError naming the file.
    """
    out = []
    with open(path, encoding="ascii") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            try:
                before, after, state = float(fields[0]), float(fields[1]), int(fields[2])
                if len(fields) != 3 or state not in (0, 1) or after < before:
                    raise ValueError
            except (ValueError, IndexError):
                raise ValueError(f"{path}:{n}: not 'UPTIME_BEFORE UPTIME_AFTER 0|1': "
                                 f"{line.strip()!r}") from None
            out.append((round(before * 1e6), round(after * 1e6), state))
    return out


def option_state(flips, start_us, end_us, guard_us=FLIP_GUARD_US):
    """The option's state (0 or 1) through a whole run [start_us, end_us].

    None when a switch, widened by guard_us each side, overlaps the run, or
    when the run started before the first switch.
    """
    state = None
    for before, after, s in flips:
        if start_us < after + guard_us and end_us > before - guard_us:
            return None
        if after + guard_us <= start_us:
            state = s
    return state
