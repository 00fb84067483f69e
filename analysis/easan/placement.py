"""Placements a project heuristic made instead of mainline's (eas_placement_decision,
patched kernel only), counted by heuristic for the profile's threads over the window.

Its A/B rows name every reason of the kernel's enum sched_placement_reason but "none"
(the names the event's format gives them, in value order), 0 where it never fired:
spare_tie (EAS_SPARE_TIE: an equal-energy tie went to the CPU with the most spare
capacity), fewer_runnable (EAS_FEWER_RUNNABLE: a CPU of the same cost with fewer
runnable tasks), cheaper_tie (EAS_CHEAPER_TIE: a CPU of a cheaper perf domain on an
equal-energy tie), own_cost (EAS_PUSH_OWN_COST: a pushed task charged its whole busy
time, unclamped, moved where the clamped estimate would not have), slice_preempt and
slice_wait (SLICE_AWARE_SELECT: no idle CPU fit a waking task of a short custom slice,
and it went to a busy CPU where it preempts at once, or waits less, than on the wakeup
target), wait_tie (EAS_WAIT_TIE: of CPUs that cost a waking task the same energy, the
one it would wait least on), wait_bias (EAS_WAIT_BIAS: a CPU that runs the waking task
at once over the one energy chose, at most 1/64 of the task's estimate dearer; prev_cpu
kept counts too). A run lists the heuristics that fired.
"""
from . import compare
from .metric import Metric
from .tables import count_by, of_profile

EVENTS = ("eas_placement_decision",)


def compute(ctx):
    rows = of_profile(ctx.run.tables["decision"], ctx.run.pids, ctx.t0, ctx.t1)
    return count_by(rows, "reason", True), {
        int(pid): count_by(rows[rows["pid"] == pid], "reason", True) for pid in ctx.run.pids}


LABEL = "placement heuristics that overrode mainline"
METRIC = Metric(
    "placement_decisions", compute, EVENTS, thread_key="placement_decisions",
    rows=lambda counts: [(LABEL, ", ".join(f"{r}: {n}" for r, n in counts.items()) or "none")],
    label=LABEL, ab=(compare.Counts("placement decisions", ("placement_decisions",),
                                   enum="eas_placement_decision.reason",
                                   keep=lambda name: name != "none"),))
