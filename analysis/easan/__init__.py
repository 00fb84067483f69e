"""easan: metrics, verdicts and reports from the guest runs of this project.

One module per question (placement, migrations, latency, energy, fidelity),
each taking the tables of a run (see tables.py) and returning plain tables or
numbers; report.py and plots.py turn them into files.
"""
