"""The stopper: how often each CPU ran its migration/N thread over the window.

A push of a running task, active balance and misfit all move a task through the
CPU's stopper, which preempts whatever runs there; a stopper that runs tens of
times a second for few moves is a cost the push must answer for (its decisions per
move are in push.py). Counted from sched_switch into a thread named migration/N, on
base and patched alike, whatever woke it.
"""
import re

from . import compare
from .metric import Metric

EVENTS = ("sched_switch",)
STOPPER = re.compile(r"^migration/\d+$")


def stopper_pids(comm):
    """The pids of the trace's stopper threads (the reader's comm table)."""
    return {int(p) for p, c in zip(comm["pid"], comm["comm"]) if STOPPER.match(str(c))}


def compute(ctx):
    """{'runs', 'per_s', 'per_cpu_per_s': {cpu: runs/s}} over the window [t0, t1]."""
    sw = ctx.run.tables["switch"]
    seconds = (ctx.t1 - ctx.t0) / 1e9
    mine = sw[sw["next_pid"].isin(stopper_pids(ctx.run.tables["comm"]))
              & (sw["ts"] >= ctx.t0) & (sw["ts"] <= ctx.t1)]
    per_cpu = mine["cpu"].value_counts()
    rate = (lambda n: n / seconds) if seconds > 0 else (lambda n: None)
    return {"runs": int(len(mine)), "per_s": rate(len(mine)),
            "per_cpu_per_s": {int(c): rate(int(per_cpu.get(c, 0)))
                              for c in range(ctx.run.platform.ncpus)}}, None


def rows(s):
    if s["per_s"] is None:
        return [(LABEL, f"{s['runs']}")]
    busiest = max(s["per_cpu_per_s"].items(), key=lambda kv: kv[1] or 0, default=(None, None))
    return [(LABEL, f"{s['per_s']:.1f}/s ({s['runs']} runs"
             + (f"; CPU {busiest[0]} the most, {busiest[1]:.1f}/s" if busiest[1] else "") + ")")]


LABEL = "stopper runs (migration/N)"
METRIC = Metric("stopper", compute, EVENTS, rows=rows, label=LABEL,
                ab=(compare.Mean("stopper runs per second", ("stopper", "per_s")),))
