"""Delayed-dequeue wakeups (eas_wakeup_delayed, patch 0005): a wakeup of a task still
queued as sched_delayed re-enqueues it in place, with no CPU selection, so no placement
decision could move it. Counted for the profile's threads over the window."""
from . import compare
from .metric import Metric
from .tables import of_profile

EVENTS = ("eas_wakeup_delayed",)


def compute(ctx):
    rows = of_profile(ctx.run.tables["delayed"], ctx.run.pids, ctx.t0, ctx.t1)
    return int(len(rows)), {int(pid): int((rows["pid"] == pid).sum()) for pid in ctx.run.pids}


LABEL = "wakeups re-enqueued in place (delayed dequeue)"
METRIC = Metric("delayed_wakeups", compute, EVENTS, thread_key="delayed_wakeups",
                rows=lambda n: [(LABEL, str(n))], label=LABEL,
                ab=(compare.Mean("delayed-dequeue wakeups", ("delayed_wakeups",)),))
