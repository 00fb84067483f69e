"""The catalogue of metrics: every metric of one run, as one JSON-ready dict (the
report's metrics.json).

METRICS lists each metric module's metric.Metric in the order of the report; compute()
evaluates them on a Context, the run with the tables several metrics share, and
leaves out, with the same None and "not_traced" entry, each one whose trace events
the run's kernel lacks (metric.py).
"""
import functools

from . import capped, delayed, energy, fidelity, fitness, hrtick, latency, migrations
from . import parity, placement, power_model, push, reaction, residency, schedule, slice_waits
from . import stopper
from . import verdict
from .metric import missing
from .tables import enum as tables_enum

METRICS = (*migrations.METRICS, residency.RESIDENCY, residency.WORK, delayed.METRIC,
           placement.METRIC, reaction.METRIC, latency.LATENCY, latency.LATENCY_BY_TASK,
           latency.LATENCY_BY_PATH, slice_waits.METRIC,
           energy.METRIC,
           residency.OUTSIDE, push.METRIC, stopper.METRIC, hrtick.METRIC, parity.METRIC,
           capped.METRIC,
           latency.SLACK,
           fitness.METRIC,
           fidelity.METRIC)
# Their A/B rows, in the same order (compare.table).
AB_SPECS = tuple(spec for metric in METRICS for spec in metric.ab)


class Context:
    """A run and its window [t0, t1] (schedule.window), with the tables the metrics
    share, each computed once when first asked for; settle_ns: the capped tasks'
    settling window (capped.py)."""

    def __init__(self, run, settle_ns=capped.SETTLE_NS):
        self.run, self.settle_ns = run, settle_ns
        self.t_end = int(run.meta["last_ts"])
        self.t0, self.t1 = schedule.window(run.tables, run.pids)

    @functools.cached_property
    def slices(self):
        """CPU slices cut to the window."""
        return schedule.clip(schedule.slices(self.run.tables, self.t_end), self.t0, self.t1)

    @functools.cached_property
    def migrations(self):
        """The window's migrations of profile threads."""
        return migrations.table(self.run, self.t0, self.t1)

    @functools.cached_property
    def residency(self):
        return residency.per_task(self.run, self.slices)

    @functools.cached_property
    def latencies(self):
        return latency.wakeup_latencies(self.run, self.t0, self.t1)

    @functools.cached_property
    def speeds(self):
        return fidelity.speeds(self.run, self.slices)

    def data(self):
        """The tables the figures and the A/B intervals reuse."""
        return {"slices": self.slices, "migrations": self.migrations,
                "latency": self.latencies, "speeds": self.speeds}


def enums(symbols):
    """{"event.field": [names in value order]} of the trace's enum fields, whose A/B
    rows (compare.Counts' enum) list every name, 0 where a run never counted it."""
    keys = sorted(set(zip(symbols["event"], symbols["field"])))
    return {f"{e}.{f}": list(tables_enum(symbols, e, f)) for e, f in keys}


def compute(run, settle_ns=capped.SETTLE_NS):
    """(metrics dict, Context.data())."""
    ctx = Context(run, settle_ns)
    tasks = {str(int(pid)): {"task": task, "thread": int(thread)}
             for pid, thread, task in zip(run.threads["pid"], run.threads["thread"],
                                          run.threads["task"])}
    values, not_traced = {}, {}
    lacking = {metric.name: missing(run, metric.events) for metric in METRICS}
    # Metrics that can work in another process start first, and go on while this one
    # computes the others.
    started = {metric.name: metric.start(ctx) for metric in METRICS
               if metric.start and not lacking[metric.name]}
    results = {metric.name: metric.compute(ctx) for metric in METRICS
               if metric.name not in started and not lacking[metric.name]}
    for metric in METRICS:
        if lacking[metric.name]:
            not_traced[metric.name] = lacking[metric.name]
            value, per_thread = None, {int(p): None for p in run.pids}
        elif metric.name in started:
            value, per_thread = started[metric.name].result()
        else:
            value, per_thread = results[metric.name]
        if metric.key:
            values[metric.key] = value
        if metric.thread_key:
            for pid, v in (per_thread or {}).items():
                tasks[str(pid)][metric.thread_key] = v
    m = {
        "run": run.name,
        "label": run.label,
        "kernel": run.record.get("kernel"),
        "profile": run.record.get("profile"),
        "platform": run.platform.spec,
        "cmdline": run.record.get("cmdline"),
        "window_ns": [ctx.t0, ctx.t1],
        "trace": {"records": int(run.meta["records"]),
                  "lost_events": run.record.get("lost_events"),
                  "missed_events": int(run.meta["missed_events"])},
        **values,
        "not_traced": not_traced,
        "power_model": power_model.DESCRIPTION,
        "faithful_speed": run.faithful,
        "enums": enums(run.tables["symbols"]),
        "tasks": tasks,
    }
    m["verdict"] = verdict.judge(m, run.platform.ncpus)
    return m, ctx.data()
