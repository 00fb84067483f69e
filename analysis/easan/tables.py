"""The run's events as pandas tables, read from trace.dat by the C reader.

The reader (analysis/reader/eas-trace-reader.c) declares the tables and their
columns (schema(), its --schema) and writes them with --binary into
RUN/analysis/tables: NAME.npy, one int64 per column, strings as indices into
strings.bin, and schema.json; that cache is reused while trace.dat and the
reader are unchanged. A run folder without trace.dat but with the tables (the
tests' synthetic runs, written by write()) is read as it is.
"""
import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping

from contract.paths import READER

from .errors import AnalysisError

# numpy and pandas are imported where tables are loaded or written, so that a command
# can prefetch() its runs' tables before it loads them and the analysis.

# Bumped when the cache's layout changes, so that an older cache is read again.
FORMAT = 3


def _reader():
    if not os.access(READER, os.X_OK):
        raise AnalysisError(f"{READER}: trace reader not built (run 'make analysis')")
    return READER


@functools.lru_cache(maxsize=None)
def schema():
    """The reader's tables: {'tables': [{'name', 'doc', 'columns': [{'name', 'type'}]}],
    ...}, a column's type int, name or text (both strings here)."""
    r = subprocess.run([_reader(), "--schema"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise AnalysisError(f"{READER} --schema failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def columns(schema_=None):
    """{table: [column names]} of the schema (default: the reader's)."""
    return {t["name"]: [c["name"] for c in t["columns"]]
            for t in (schema_ or schema())["tables"]}


def _stamp(trace):
    st = os.stat(trace)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "reader_mtime_ns": os.stat(READER).st_mtime_ns, "format": FORMAT}


# Readers started by prefetch(), by run folder: (process, output dir, cache, stamp).
_STARTED = {}


def _start(run_dir):
    """Start the reader on run_dir's trace.dat if its tables are missing or stale:
    (process, output dir, cache, stamp) to _finish(), or None when the cache holds."""
    trace = os.path.join(run_dir, "trace.dat")
    cache = os.path.join(run_dir, "analysis", "tables")
    if not os.path.exists(trace):
        if os.path.isfile(os.path.join(cache, "schema.json")):
            return None
        raise AnalysisError(f"{run_dir}: no trace.dat (was the run cut short? see run.json)")
    _reader()
    stamp = _stamp(trace)
    try:
        with open(os.path.join(cache, "stamp.json"), encoding="utf-8") as f:
            if json.load(f) == stamp:
                return None
    except (OSError, ValueError):
        pass
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tables-", dir=os.path.dirname(cache))
    try:
        proc = subprocess.Popen([READER, "--binary", trace, tmp], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return proc, tmp, cache, stamp


def _finish(job):
    """Wait for a reader from _start(); its tables replace the cache. The cache dir."""
    proc, tmp, cache, stamp = job
    try:
        _, err = proc.communicate()
        if proc.returncode != 0:
            msg = (err.strip().splitlines() or ["failed"])[-1]
            raise AnalysisError(msg.replace("eas-trace-reader: error: ", ""))
        with open(os.path.join(tmp, "stamp.json"), "w", encoding="utf-8") as f:
            json.dump(stamp, f)
        shutil.rmtree(cache, ignore_errors=True)
        os.replace(tmp, cache)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cache


def prefetch(run_dir):
    """Start reading run_dir's trace.dat in the background when its tables are missing
    or stale, for a command that has other work (its imports) to do meanwhile;
    extract() then waits for it. A folder that cannot be read is left to extract()
    to report."""
    key = os.path.realpath(run_dir)
    if key in _STARTED:
        return
    try:
        job = _start(run_dir)
    except (AnalysisError, OSError):
        return
    if job:
        _STARTED[key] = job


@atexit.register
def _abandon():
    """Readers prefetched but never waited for (an error came first): stopped, and
    their output removed."""
    for proc, tmp, _, _ in _STARTED.values():
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    _STARTED.clear()


def extract(run_dir):
    """Run the reader if the cache is missing or stale (or wait for the one prefetch()
    started); return the tables dir."""
    job = _STARTED.pop(os.path.realpath(run_dir), None) or _start(run_dir)
    return _finish(job) if job else os.path.join(run_dir, "analysis", "tables")


def _read_strings(path):
    import numpy as np  # pylint: disable=import-outside-toplevel
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise AnalysisError(f"{path}: unreadable ({e})") from e
    # Interned: the analysis compares these columns with literals ("begin", "wakeup"),
    # which an identity check then settles.
    return np.array([sys.intern(s.decode("utf-8", "replace")) for s in data.split(b"\0")[:-1]],
                    dtype=object)


class Tables(Mapping):
    """{name: DataFrame} for every table of a tables dir's schema.json, in its columns,
    integers as int64, names and text as str; each table read when first asked for
    (the analysis needs half of them)."""

    def __init__(self, tables_dir):
        path = os.path.join(tables_dir, "schema.json")
        try:
            with open(path, encoding="utf-8") as f:
                self.schema = json.load(f)
        except (OSError, ValueError) as e:
            raise AnalysisError(f"{path}: unreadable table schema ({e})") from e
        self._dir = tables_dir
        self._tables = {t["name"]: t for t in self.schema["tables"]}
        self._loaded = {}
        self._strings = None

    def __getitem__(self, name):
        if name not in self._loaded:
            self._loaded[name] = self._read(self._tables[name])
        return self._loaded[name]

    def __iter__(self):
        return iter(self._tables)

    def __len__(self):
        return len(self._tables)

    def _read(self, table):
        import numpy as np  # pylint: disable=import-outside-toplevel
        import pandas as pd  # pylint: disable=import-outside-toplevel
        path = os.path.join(self._dir, f"{table['name']}.npy")
        names = [c["name"] for c in table["columns"]]
        try:
            a = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise AnalysisError(f"{path}: unreadable table ({e})") from e
        if a.ndim != 1 or list(a.dtype.names or ()) != names or \
                any(a.dtype[n] != np.dtype("<i8") for n in names):
            raise AnalysisError(f"{path}: columns {a.dtype.names} of {a.dtype}, but the "
                                f"schema's are {names}, one int64 each")
        # One int64 block, each column contiguous, as pandas' own readers make it.
        block = np.ascontiguousarray(a.view(np.int64).reshape(len(a), len(names)).T)
        df = pd.DataFrame(block.T, columns=names, copy=False)
        for c in table["columns"]:
            if c["type"] != "int":
                if self._strings is None:
                    self._strings = _read_strings(os.path.join(self._dir,
                                                               self.schema["strings"]))
                try:
                    df[c["name"]] = self._strings[df[c["name"]].to_numpy()]
                except IndexError as e:
                    raise AnalysisError(f"{path}: column {c['name']} indexes no string of "
                                        f"{self.schema['strings']}") from e
        return df


def load(tables_dir):
    """The tables of a dir the reader (or write()) filled: Tables."""
    return Tables(tables_dir)


def write(tables_dir, rows, schema_=None):
    """Write tables as the reader's --binary does, for runs without a trace.dat:
    rows {table: [{column: value}]} in the schema's tables and columns (each row
    every column, no other); a table not in rows is written empty."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    schema_ = schema_ or schema()
    cols = columns(schema_)
    unknown = set(rows) - set(cols)
    if unknown:
        raise ValueError(f"tables {sorted(unknown)} are not the reader's ({sorted(cols)})")
    os.makedirs(tables_dir, exist_ok=True)
    strings = {}
    for table in schema_["tables"]:
        names = cols[table["name"]]
        text = {c["name"] for c in table["columns"] if c["type"] != "int"}
        data = np.zeros(len(rows.get(table["name"], [])), dtype=[(n, "<i8") for n in names])
        for i, row in enumerate(rows.get(table["name"], [])):
            if sorted(row) != sorted(names):
                raise ValueError(f"table {table['name']}: a row of columns {sorted(row)}, "
                                 f"the reader's are {names}")
            data[i] = tuple(strings.setdefault(str(row[n]), len(strings)) if n in text
                            else int(row[n]) for n in names)
        np.save(os.path.join(tables_dir, f"{table['name']}.npy"), data, allow_pickle=False)
    with open(os.path.join(tables_dir, schema_["strings"]), "wb") as f:
        f.write(b"".join(s.encode() + b"\0" for s in strings))
    with open(os.path.join(tables_dir, "schema.json"), "w", encoding="utf-8") as f:
        json.dump(schema_, f)


def meta(tables):
    return dict(zip(tables["meta"]["key"], tables["meta"]["value"]))


def enum(symbols, event, field):
    """Names of the symbols table's rows for event's field, in value order."""
    rows = symbols[(symbols["event"] == event) & (symbols["field"] == field)]
    return tuple(str(n) for n in rows.sort_values("value")["name"])


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
