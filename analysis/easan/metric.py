"""What a metric module declares, and the one way a metric says that the trace's kernel
did not record what it needs.

A metric module (migrations, latency, push, ...) describes each of its metrics with a
Metric: where it goes in metrics.json, how it is computed from a Context (catalog.py),
the trace events it needs, the lines it adds to a run's table in the report, its
figures and its A/B rows (compare.py). catalog.METRICS lists them in report order.

When one of its events is missing from the trace's format (an older kernel, base
without the patched events), the metric is not computed: its value is None
("null" in metrics.json, for the run and each thread), metrics.json's "not_traced"
names the missing events under its key, the report's row reads NOT_TRACED, and A/B
rows have no value on that side. Never 0: a count of 0 is something measured.
"""
from dataclasses import dataclass
from typing import Callable, Optional

NOT_TRACED = "not traced by this kernel"


@dataclass(frozen=True)
class Figure:
    """A figure: draw(results, path) for one over all the runs of a report, or
    draw(result, path) for one per run (per_run)."""
    name: str                   # file name, "run<i>-" prepended per run
    title: str                  # alt text in the report
    draw: Callable
    per_run: bool = False


@dataclass(frozen=True)
class Metric:
    """One metric. compute(ctx) returns (the run's value, {pid: the thread's value} or
    None). key: its entry in the run's dict (None: threads only); thread_key: its entry
    in each thread's dict (None: the run's only), given for the pids compute returned.
    events: the trace events it needs, a tuple among them meaning any one of those.
    rows(value) -> [(label, text)]: its lines in the run's table (value not None);
    label: the line's label when it was not traced. details(run metrics) -> markdown
    lines after the run's table. ab: its A/B rows (compare.Mean, Counts,
    Percentiles). start(ctx), for a metric that can do its work in another process:
    begins it and returns an object whose result() is what compute(ctx) returns;
    catalog.compute() starts these before it computes the others."""
    key: Optional[str]
    compute: Callable
    events: tuple = ()
    thread_key: Optional[str] = None
    rows: Optional[Callable] = None
    label: Optional[str] = None
    details: Optional[Callable] = None
    figures: tuple = ()
    ab: tuple = ()
    start: Optional[Callable] = None

    @property
    def name(self):
        return self.key or self.thread_key


def missing(run, events):
    """The events (or 'a or b' for alternatives) of `events` that the run's trace
    lacks."""
    out = []
    for event in events:
        alternatives = event if isinstance(event, tuple) else (event,)
        if not any(run.traced(e) for e in alternatives):
            out.append(" or ".join(alternatives))
    return out


def not_traced(m, key):
    """Whether metric key was not traced in the run whose metrics are m."""
    return key in (m.get("not_traced") or {})


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f}"


def us(ns):
    return "-" if ns is None else f"{ns / 1e3:.0f}"


def pct(share):
    return "-" if share is None else f"{share:.1%}"
