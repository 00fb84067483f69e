"""easan: metrics, verdicts and reports from the guest runs of this project.

    import easan
    results = easan.analyse(["build/runs/x", ...])      # one Result per run folder
    easan.write_report(out_dir, results, b=[...])        # report.html, metrics.json, ...

One module per question (placement, migrations, latency, energy, fidelity...), each
declaring its metrics (metric.py) from the tables of a run (see tables.py);
catalog.py evaluates them, compare.py and stats.py make the A/B table, report.py
writes the files; pipeline.py joins them.
"""
_PIPELINE = ("analyse", "write_report", "Result", "Report")


def __getattr__(name):
    # The pipeline loads pandas and the metrics: only when it is asked for, so that
    # `from easan import causes` stays light.
    if name in _PIPELINE:
        from . import pipeline  # pylint: disable=import-outside-toplevel
        return getattr(pipeline, name)
    raise AttributeError(f"module 'easan' has no attribute {name!r}")
