"""Fair push (the patched kernel's Part B): its decisions about the profile's threads.

Each eas:eas_push event (the reader's push table) is one decision: the trigger
that tried (putback: a task put back after preemption; tick: a stuck task alone
on its CPU; setattr: sched_setattr() changed the task's clamps; slice: a task of a
short custom slice waited past it), why the task qualified, and the outcome. A
decision that pushed is followed by the move itself, reported with a migration
reason of cause "push" (fair_push, fair_push_tick, fair_push_setattr,
fair_push_slice: causes.py). Counted over the profile's window, per run
and per thread; not traced (metric.py) when the kernel has no eas_push event, as on
base, where nothing could be counted.

The decision's own CPU time is the event's cost_ns (the deciding CPU's sched clock
over the lock hand-over, the energy search and the checks, not the move), summed and
set against the busy CPU time of the same window (residency.busy_by_cpu): a ratio
within one run, which holds on a noisy host where absolute times do not. Kernels
whose eas_push lacks the field give -1 (the reader): the time is None, not recorded.
Not in it: the switch path's put-back sampling, and the stopper's own context
switches (stopper.py counts its runs).
"""
from . import compare
from .causes import cause_of
from .metric import NOT_TRACED, Metric
from .residency import busy_by_cpu
from .tables import count_by, of_profile

EVENTS = ("eas_push", "sched_migrate_task")
# The event's enum fields; each name the trace's kernel gives their values is counted,
# 0 when it never happened, and has its A/B row.
TRIGGER, WHY, OUTCOME = "eas_push.trigger", "eas_push.why", "eas_push.outcome"
MIGRATE_REASON = "eas_migrate_reason.reason"


def is_push_reason(reason):
    """A migration reason of a push's move (cause "push": fair_push, fair_push_tick,
    fair_push_setattr, fair_push_slice)."""
    return cause_of(reason) == "push"


def cpu_time(decisions, recorded, busy=None):
    """{'cpu_ns', 'cpu_ns_per_decision', 'cpu_share', 'cpu_share_by_cpu'}: the decisions'
    cost_ns summed (None when not recorded), per decision (None without one), as a share
    of the busy ns of all CPUs ({cpu: ns}, residency.busy_by_cpu; None: no shares) and
    {cpu: the cost_ns of decisions made on it / its busy ns} (None where it was never
    busy)."""
    def share(ns, of):
        return ns / of if of else None
    if not recorded:
        return dict.fromkeys(("cpu_ns", "cpu_ns_per_decision", "cpu_share", "cpu_share_by_cpu"))
    cost = decisions["cost_ns"]
    by_cpu = cost.groupby(decisions["cpu"]).sum()
    ns = int(cost.sum())
    return {"cpu_ns": ns, "cpu_ns_per_decision": share(ns, len(decisions)),
            "cpu_share": share(ns, sum(busy.values())) if busy is not None else None,
            "cpu_share_by_cpu": None if busy is None else
            {c: share(int(by_cpu.get(c, 0)), b) for c, b in busy.items()}}


def counts(decisions, moves, names, seconds=None, recorded=False, busy=None):
    """{'decisions', 'decisions_per_s', 'decisions_per_move', 'cpu_ns',
    'cpu_ns_per_decision', 'cpu_share', 'cpu_share_by_cpu', 'by_outcome', 'by_why',
    'by_trigger', 'by_trigger_outcome', 'moves', 'moves_by_reason'} of push decisions and
    the migrations table's moves over a window of `seconds`; names: {enum: its names}
    (TRIGGER, WHY, OUTCOME, MIGRATE_REASON). Decisions per move is the push's cost per
    result: each decision is an energy search with the runqueue locked (None without a
    move). recorded: whether the kernel records each decision's cost_ns; busy: the
    window's busy ns by CPU, for the shares (cpu_time())."""
    pushed = moves[moves["cause"] == "push"]
    by_trigger = count_by(decisions, "trigger", True, names[TRIGGER])
    return {"decisions": int(len(decisions)),
            "decisions_per_s": len(decisions) / seconds if seconds else None,
            "decisions_per_move": len(decisions) / len(pushed) if len(pushed) else None,
            **cpu_time(decisions, recorded, busy),
            "by_outcome": count_by(decisions, "outcome", True, names[OUTCOME]),
            "by_why": count_by(decisions, "why", True, names[WHY]),
            "by_trigger": by_trigger,
            "by_trigger_outcome": {t: count_by(decisions[decisions["trigger"] == t], "outcome",
                                               True, names[OUTCOME]) for t in by_trigger},
            "moves": int(len(pushed)),
            "moves_by_reason": count_by(pushed, "reason", True,
                                        [r for r in names[MIGRATE_REASON] if is_push_reason(r)])}


def compute(ctx):
    """(the run's counts, {pid: the thread's}, without CPU shares)."""
    mig = ctx.migrations
    push = ctx.run.tables["push"]
    rows = of_profile(push, ctx.run.pids, ctx.t0, ctx.t1)
    names = {key: ctx.run.enum(*key.split(".")) for key in (TRIGGER, WHY, OUTCOME, MIGRATE_REASON)}
    seconds = (ctx.t1 - ctx.t0) / 1e9
    # The reader's -1 in every row: the kernel's eas_push has no cost_ns (nor, without
    # a decision in the whole trace, anything to tell).
    recorded = bool((push["cost_ns"] >= 0).any())
    return counts(rows, mig, names, seconds, recorded, busy_by_cpu(ctx.run, ctx.slices)), {
        int(pid): counts(rows[rows["pid"] == pid], mig[mig["pid"] == pid], names, seconds,
                         recorded)
        for pid in ctx.run.pids}


def decision_time(p):
    """The details' sentence on the decisions' own CPU time."""
    if p.get("cpu_ns") is None:
        return "Push decision time: not recorded by this kernel (its eas_push has no cost_ns)."
    out = f"Push decision time: {p['cpu_ns'] / 1e3:.1f} µs in {p['decisions']} decisions"
    if p["cpu_ns_per_decision"] is not None:
        out += f" ({p['cpu_ns_per_decision'] / 1e3:.1f} µs each)"
    if p.get("cpu_share") is not None:
        out += f", {p['cpu_share'] * 100:.3g} % of busy CPU time"
    by_cpu = [f"CPU {c} {s * 100:.3g} %" for c, s in (p.get("cpu_share_by_cpu") or {}).items()
              if s is not None]
    return out + ("; by CPU: " + ", ".join(by_cpu) if by_cpu else "") + "."


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
               if p.get("decisions_per_s") is not None else ""), "", decision_time(p), ""]
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
        compare.Mean("push decision time", ("push", "cpu_ns"), "us", 1e-3),
        compare.Mean("push decision time per decision", ("push", "cpu_ns_per_decision"), "us",
                     1e-3),
        compare.Mean("push decision time of busy CPU time", ("push", "cpu_share"), "%", 100),
        compare.Counts("push decision time of busy CPU time by CPU", ("push", "cpu_share_by_cpu"),
                       unit="%", scale=100),
        compare.Counts("push moves", ("push", "moves_by_reason"), enum=MIGRATE_REASON,
                       keep=is_push_reason)))
