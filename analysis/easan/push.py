"""Fair push (the patched kernel's Part B): its decisions about the profile's threads.

Each eas:eas_push event (the reader's push table) is one decision: the trigger
that tried (putback: a task put back after preemption; tick: a stuck task alone
on its CPU), why the task qualified, and the outcome. A decision that pushed is
followed by the move itself, reported with the migration reason fair_push or
fair_push_tick (cause "push"). Counted over the profile's window, per run and per
thread; None ("not traced by this kernel") when the kernel has no eas_push event,
as on base, where nothing could be counted.
"""
from .tables import count_by, of_profile, traced

EVENTS = ("eas_push",)
# The names of the event's __print_symbolic() values, in value order.
TRIGGERS = ("putback", "tick")
WHYS = ("none", "stuck_capacity", "stuck_uclamp", "overutilized_idle")
OUTCOMES = ("pushed", "no_better_cpu", "not_allowed", "rate_limited", "raced")


def counts(decisions, moves, is_traced=True):
    """{'decisions', 'by_outcome', 'by_why', 'by_trigger', 'by_trigger_outcome', 'moves',
    'moves_by_reason'} of push decisions and the migrations table's moves, or None."""
    if not is_traced:
        return None
    pushed = moves[moves["cause"] == "push"]
    by_trigger = count_by(decisions, "trigger", True, TRIGGERS)
    return {"decisions": int(len(decisions)),
            "by_outcome": count_by(decisions, "outcome", True, OUTCOMES),
            "by_why": count_by(decisions, "why", True, WHYS),
            "by_trigger": by_trigger,
            "by_trigger_outcome": {t: count_by(decisions[decisions["trigger"] == t], "outcome",
                                               True, OUTCOMES) for t in by_trigger},
            "moves": int(len(pushed)),
            "moves_by_reason": count_by(pushed, "reason", True)}


def compute(run, mig, t0, t1):
    """(the run's counts, {pid: the thread's}); mig: migrations.table() of the window."""
    ok = all(traced(run.meta, e) for e in EVENTS)
    rows = of_profile(run.tables["push"], run.pids, t0, t1)
    per_thread = {int(pid): counts(rows[rows["pid"] == pid], mig[mig["pid"] == pid], ok)
                  for pid in run.pids}
    return counts(rows, mig, ok), per_thread
