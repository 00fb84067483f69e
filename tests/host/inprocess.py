"""The analysis pipeline called in-process (easan.analyse, easan.write_report), as
analysis/report calls it, for the host tests: no interpreter to start per report."""
import json
import os

import easan
from easan import capped


def report(out, a, b=(), settle_ms=capped.SETTLE_NS / 1e6, plots=False, perfetto=False):
    """Analyse run folders a (and b, for an A/B) and write their report into out (None:
    the default place); the easan.Report."""
    settle_ns = int(settle_ms * 1e6)
    return easan.write_report(out, easan.analyse(a, settle_ns), easan.analyse(b, settle_ns),
                              perfetto=perfetto, plots=plots)


def read_json(out, name):
    with open(os.path.join(out, name), encoding="utf-8") as f:
        return json.load(f)


def read_text(out, name):
    with open(os.path.join(out, name), encoding="utf-8") as f:
        return f.read()


def metrics_of(run_dir, **kw):
    """The run's metrics as metrics.json has them, written into
    RUN_DIR/analysis/report."""
    return read_json(report(None, [run_dir], **kw).path, "metrics.json")["runs"][0]


def rows_of(out):
    """comparison.json's A/B rows by name."""
    return {row["name"]: row for row in read_json(out, "comparison.json")["rows"]}
