"""The run's events as pandas tables, read from trace.dat by the C reader.

The reader (analysis/reader/eas-trace-reader.c) writes one CSV per table into
RUN/analysis/tables; that cache is reused while trace.dat is unchanged. A run
folder without trace.dat but with the tables (the tests' synthetic runs) is
read as it is.
"""
import json
import os
import shutil
import subprocess
import tempfile

import pandas as pd

from .errors import AnalysisError

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
READER = os.environ.get("EAS_TRACE_READER",
                        os.path.join(TOP, "build", "analysis", "eas-trace-reader"))
TABLES = ("switch", "wakeup", "migrate", "delayed", "decision", "push", "exit", "pelt_se",
          "pelt_cfs", "util_est", "overutil", "capacity", "energy", "idle", "freq", "print",
          "markers", "comm", "meta")
STRING_COLUMNS = {"wakeup": ["kind"], "migrate": ["reason"], "decision": ["reason"],
                  "push": ["trigger", "why", "outcome"],
                  "print": ["text"], "markers": ["kind"], "comm": ["comm"], "meta": ["key"]}


def _stamp(trace):
    st = os.stat(trace)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "reader_mtime_ns": os.stat(READER).st_mtime_ns}


def extract(run_dir):
    """Run the reader if the cache is missing or stale; return the tables dir."""
    trace = os.path.join(run_dir, "trace.dat")
    cache = os.path.join(run_dir, "analysis", "tables")
    if not os.path.exists(trace):
        if os.path.isfile(os.path.join(cache, "meta.csv")):
            return cache
        raise AnalysisError(f"{run_dir}: no trace.dat (was the run cut short? see run.json)")
    if not os.access(READER, os.X_OK):
        raise AnalysisError(f"{READER}: trace reader not built (run 'make analysis')")
    stamp_file = os.path.join(cache, "stamp.json")
    try:
        with open(stamp_file, encoding="utf-8") as f:
            if json.load(f) == _stamp(trace):
                return cache
    except (OSError, ValueError):
        pass
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tables-", dir=os.path.dirname(cache))
    try:
        r = subprocess.run([READER, trace, tmp], capture_output=True, text=True, check=False)
        if r.returncode != 0:
            msg = (r.stderr.strip().splitlines() or ["failed"])[-1]
            raise AnalysisError(msg.replace("eas-trace-reader: error: ", ""))
        with open(os.path.join(tmp, "stamp.json"), "w", encoding="utf-8") as f:
            json.dump(_stamp(trace), f)
        shutil.rmtree(cache, ignore_errors=True)
        os.replace(tmp, cache)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cache


def load(tables_dir):
    """{name: DataFrame} for every table; numeric columns as int64."""
    out = {}
    for name in TABLES:
        path = os.path.join(tables_dir, f"{name}.csv")
        try:
            dtype = {c: str for c in STRING_COLUMNS.get(name, [])}
            out[name] = pd.read_csv(path, dtype=dtype, keep_default_na=False)
        except (OSError, ValueError, pd.errors.ParserError) as e:
            raise AnalysisError(f"{path}: unreadable table ({e})") from e
    return out


def meta(tables):
    return dict(zip(tables["meta"]["key"], tables["meta"]["value"]))


def traced(meta_, event):
    """Whether the trace's kernel has the event: the reader counts -1 for one it lacks."""
    return int(meta_.get(f"events.{event}", 0)) >= 0


def of_profile(df, pids, t0, t1, column="pid"):
    """The rows of df about the profile's threads (column in pids) with ts in [t0, t1]."""
    return df[df[column].isin(pids) & (df["ts"] >= t0) & (df["ts"] <= t1)]


def count_by(df, column, traced_, names=()):
    """{value of column: rows}, the names listed first (0 when absent), then the others
    sorted; None when the kernel does not have the event (traced_ False), where
    nothing could be counted."""
    if not traced_:
        return None
    counts = df[column].value_counts()
    out = {str(n): int(counts.get(n, 0)) for n in names}
    out.update({str(n): int(c) for n, c in sorted(counts.items()) if n not in out})
    return out
