"""Fair push (the patched kernel's Part B): its decisions about the profile's threads.

Each eas:eas_push event (the reader's push table) is one decision: the trigger
that tried (putback: a task put back after preemption; tick: a stuck task alone
on its CPU), why the task qualified, and the outcome. A decision that pushed is
followed by the move itself, reported with a migration reason of cause "push"
(fair_push, fair_push_tick: causes.py). Counted over the profile's window, per run
and per thread; not traced (metric.py) when the kernel has no eas_push event, as on
base, where nothing could be counted.
"""
from . import compare
from .causes import cause_of
from .metric import NOT_TRACED, Metric
from .tables import count_by, of_profile

EVENTS = ("eas_push", "sched_migrate_task")
# The event's enum fields; each name the trace's kernel gives their values is counted,
# 0 when it never happened, and has its A/B row.
TRIGGER, WHY, OUTCOME = "eas_push.trigger", "eas_push.why", "eas_push.outcome"
MIGRATE_REASON = "eas_migrate_reason.reason"


def is_push_reason(reason):
    """A migration reason of a push's move (cause "push": fair_push, fair_push_tick)."""
    return cause_of(reason) == "push"


def counts(decisions, moves, names, seconds=None):
    """{'decisions', 'decisions_per_s', 'decisions_per_move', 'by_outcome', 'by_why',
    'by_trigger', 'by_trigger_outcome', 'moves', 'moves_by_reason'} of push decisions and
    the migrations table's moves over a window of `seconds`; names: {enum: its names}
    (TRIGGER, WHY, OUTCOME, MIGRATE_REASON). Decisions per move is the push's cost per
    result: each decision is an energy search with the runqueue locked (None without a
    move)."""
    pushed = moves[moves["cause"] == "push"]
    by_trigger = count_by(decisions, "trigger", True, names[TRIGGER])
    return {"decisions": int(len(decisions)),
            "decisions_per_s": len(decisions) / seconds if seconds else None,
            "decisions_per_move": len(decisions) / len(pushed) if len(pushed) else None,
            "by_outcome": count_by(decisions, "outcome", True, names[OUTCOME]),
            "by_why": count_by(decisions, "why", True, names[WHY]),
            "by_trigger": by_trigger,
            "by_trigger_outcome": {t: count_by(decisions[decisions["trigger"] == t], "outcome",
                                               True, names[OUTCOME]) for t in by_trigger},
            "moves": int(len(pushed)),
            "moves_by_reason": count_by(pushed, "reason", True,
                                        [r for r in names[MIGRATE_REASON] if is_push_reason(r)])}


def compute(ctx):
    """(the run's counts, {pid: the thread's})."""
    mig = ctx.migrations
    rows = of_profile(ctx.run.tables["push"], ctx.run.pids, ctx.t0, ctx.t1)
    names = {key: ctx.run.enum(*key.split(".")) for key in (TRIGGER, WHY, OUTCOME, MIGRATE_REASON)}
    seconds = (ctx.t1 - ctx.t0) / 1e9
    return counts(rows, mig, names, seconds), {
        int(pid): counts(rows[rows["pid"] == pid], mig[mig["pid"] == pid], names, seconds)
        for pid in ctx.run.pids}


def details(m):
    """Markdown lines: the decisions by trigger and outcome, why, and the moves."""
    out = ["### Push decisions", ""]
    p = m.get("push")
    if p is None:
        return out + [f"Push decisions: {NOT_TRACED}.", ""]
    trig = list(p["by_trigger"])
    out += ["| push decision outcome | " + " | ".join(trig) + " | all |",
            "|---|" + "---|" * (len(trig) + 1)]
    out += [f"| {o} | " + " | ".join(str(p["by_trigger_outcome"][t].get(o, 0)) for t in trig)
            + f" | {n} |" for o, n in p["by_outcome"].items()]
    out += ["| all | " + " | ".join(str(p["by_trigger"][t]) for t in trig)
            + f" | {p['decisions']} |", "",
            "Why the tasks qualified: " + ", ".join(f"{w}: {n}" for w, n in p["by_why"].items())
            + f". Moves by push: {p['moves']}"
            + "".join(f", {r}: {n}" for r, n in p["moves_by_reason"].items()) + "."
            + (f" Decisions per move: {p['decisions_per_move']:.1f}."
               if p.get("decisions_per_move") is not None else "")
            + (f" Decisions per second: {p['decisions_per_s']:.1f}."
               if p.get("decisions_per_s") is not None else ""), ""]
    return out


METRIC = Metric(
    "push", compute, EVENTS, thread_key="push", details=details,
    ab=(compare.Mean("push decisions", ("push", "decisions")),
        compare.Counts("push decisions", ("push", "by_outcome"), enum=OUTCOME),
        compare.Counts("push decisions by trigger", ("push", "by_trigger"), enum=TRIGGER),
        compare.Counts("push decisions by why", ("push", "by_why"), enum=WHY),
        compare.Mean("push moves", ("push", "moves")),
        compare.Mean("push decisions per move", ("push", "decisions_per_move")),
        compare.Mean("push decisions per second", ("push", "decisions_per_s")),
        compare.Counts("push moves", ("push", "moves_by_reason"), enum=MIGRATE_REASON,
                       keep=is_push_reason)))
