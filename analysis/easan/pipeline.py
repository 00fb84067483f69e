"""From run folders to a report, in-process: what analysis/report runs.

    results = easan.analyse(["build/runs/x"])                 # [Result]
    easan.write_report("out", results, b=other_results)       # report.html, metrics.json...
"""
import os
from dataclasses import dataclass
from typing import Optional

from contract.paths import BUILD

from . import capped, catalog, compare, report, runfolder


@dataclass
class Result:
    """One run analysed: the loaded run folder, its metrics (its entry in metrics.json)
    and the tables the figures and the A/B intervals reuse (catalog.Context.data())."""
    run: runfolder.Run
    metrics: dict
    data: dict


@dataclass
class Report:
    """Where a report was written, and its A/B comparison (None for one group)."""
    path: str
    comparison: Optional[list]
    label_a: str
    label_b: Optional[str]

    def text(self):
        """The A/B table as aligned text ('' without one)."""
        return compare.text(self.comparison, self.label_a, self.label_b) if self.comparison else ""


def _quiet(_msg):
    pass


def analyse(paths, settle_ns=capped.SETTLE_NS, progress=None):
    """[Result] of each run folder in paths (one path or several), in order. A bad or
    incomplete folder raises errors.AnalysisError naming it. settle_ns: the capped
    tasks' settling window; progress(message), if given, hears of each folder."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out = []
    for i, path in enumerate(paths):
        (progress or _quiet)(f"[{i + 1}/{len(paths)}] reading {path}")
        run = runfolder.load(str(path))
        m, data = catalog.compute(run, settle_ns)
        out.append(Result(run, m, data))
    return out


def default_out(paths):
    """RUN/analysis/report for one run, else build/reports/<first>-vs-<last>."""
    paths = [str(p) for p in paths]
    if len(paths) == 1:
        return os.path.join(paths[0], "analysis", "report")
    name = f"{os.path.basename(os.path.normpath(paths[0]))}-vs-" \
           f"{os.path.basename(os.path.normpath(paths[-1]))}"
    return os.path.join(BUILD, "reports", name)


def write_report(out_dir, a, b=(), perfetto=False, plots=True, progress=None):
    """Write the report of results a (and group b, for an A/B) into out_dir (default:
    default_out() of the runs), atomically: a failure leaves nothing behind. Returns a
    Report."""
    a, b = list(a), list(b)
    out_dir = out_dir or default_out([r.run.path for r in a + b])
    rows = compare.table(a, b, catalog.AB_SPECS) if b else None
    la, lb = compare.label(a), (compare.label(b) if b else None)
    report.write(out_dir, a, b, rows, perfetto_export=perfetto, progress=progress or _quiet,
                 plots_on=plots)
    return Report(out_dir, rows, la, lb)
