"""How faithful the run's speed was: rt-app's delivered loops per microsecond.

Busy vCPUs share the host's cores, so a vCPU's speed depends on how many
others are busy; a contended run says little about placement. Each rt-app
activation delivered `perf` loops in `run` us; its CPU is where its thread
was when it started. Without capacity-faithful speed every CPU should deliver
the same speed; with it, a CPU of capacity c should deliver c/1024 of a full
CPU's (expected_speed). Speeds are divided by that expectation, and the run is
flagged as distorted when:
  - a CPU's median speed is below MIN_CPU_RATIO of the fastest CPU's, or
  - the 10th percentile of all activations is below MIN_TIME_RATIO of the median.
Fewer than MIN_ACTIVATIONS activations (a lone hog) are too few to judge, and a
CPU seen fewer than MIN_CPU_ACTIVATIONS times is listed but not judged: one slow
first run after a move would flag it.
"""
from typing import NamedTuple, Optional

import numpy as np

from .metric import Metric

# rt-app's logs, placed on CPUs by sched_switch.
EVENTS = ("sched_switch",)
MIN_CPU_RATIO = 0.75
MIN_TIME_RATIO = 0.5
MIN_ACTIVATIONS = 5
MIN_CPU_ACTIVATIONS = 3


def speeds(run, sl):
    """Rows (cpu, start_ns, loops_per_us) for each logged activation with run > 0."""
    out = []
    tid_pid = dict(zip(run.threads["thread"], run.threads["pid"]))
    for thread, log in run.logs.items():
        pid = tid_pid.get(thread)
        if pid is None or log.empty:
            continue
        mine = sl[sl["pid"] == pid].sort_values("start")
        starts, ends, cpus = (mine["start"].to_numpy(), mine["end"].to_numpy(),
                              mine["cpu"].to_numpy())
        # rt-app logs perf 0 for some runs (seen on a 3 s one): no speed to read.
        ok = (log["run"] > 0) & (log["perf"] > 0)
        perf, run_us = log["perf"][ok].to_numpy(float), log["run"][ok].to_numpy(float)
        t = log["start"][ok].to_numpy(np.int64) * 1000
        i = np.searchsorted(starts, t, side="right") - 1
        # The slice running at the activation's start, else the next one.
        inside = (i >= 0) & (t < ends[np.clip(i, 0, max(len(ends) - 1, 0))]) if len(ends) else i >= 0
        i = np.where(inside, i, i + 1)
        keep = (i >= 0) & (i < len(cpus))
        out += zip(cpus[i[keep]].tolist(), t[keep].tolist(), (perf[keep] / run_us[keep]).tolist())
    return out


def expected_speed(run):
    """{cpu: the share of a full CPU's speed it should deliver} with capacity-faithful
    speed; None without it (every CPU at the host's speed)."""
    if not run.faithful:
        return None
    return {c: min(run.platform.capacity(c), 1024) / 1024 for c in range(run.platform.ncpus)}


def summary(rows, ncpus, expected=None):
    """Per-CPU median speeds (loops/us) and the distortion verdict.

    expected: as expected_speed(); the checks compare speeds divided by it.
    """
    if len(rows) < MIN_ACTIVATIONS:
        return {"per_cpu": {}, "distorted": None,
                "reason": f"{len(rows)} activations logged, too few to judge the speed"}
    arr = np.array(rows, dtype=float)
    per_cpu = {int(c): float(np.median(arr[arr[:, 0] == c, 2]))
               for c in range(ncpus) if (arr[:, 0] == c).any()}
    if expected:
        arr[:, 2] /= [expected.get(int(c), 1.0) for c in arr[:, 0]]
    judged = {c: float(np.median(arr[arr[:, 0] == c, 2])) for c in per_cpu
              if (arr[:, 0] == c).sum() >= MIN_CPU_ACTIVATIONS}
    if not judged:
        return {"per_cpu": per_cpu, "distorted": None,
                "reason": f"no CPU ran {MIN_CPU_ACTIVATIONS} activations, too few to judge"}
    top = max(judged.values())
    median = float(np.median(arr[:, 2]))
    p10 = float(np.percentile(arr[:, 2], 10))
    what = "of the fastest, for its capacity" if expected else "of the fastest"
    slow = {c: s / top for c, s in judged.items() if s / top < MIN_CPU_RATIO}
    reasons = [f"CPU {c} ran at {r:.0%} {what}" for c, r in sorted(slow.items())]
    if median > 0 and p10 / median < MIN_TIME_RATIO:
        reasons.append(f"10% of activations ran below {p10 / median:.0%} of the median speed")
    return {"per_cpu": per_cpu, "median": median, "p10": p10,
            "cpu_spread": min(judged.values()) / top if top else None,
            "distorted": bool(reasons), "reason": "; ".join(reasons)}


def compute(ctx):
    run = ctx.run
    return summary(ctx.speeds, run.platform.ncpus, expected_speed(run)), None


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
