"""rt-app's side of a run: which pid is which profile task, and its per-activation log.

rt-app numbers its threads in the order of the "tasks" object, instances
expanded (the index in its "[N] ..." trace markers and log file names); all
instances of a task share one comm, so pids are told apart by the markers
each thread writes.
"""
import json
import os
import re

import pandas as pd

from .errors import AnalysisError

LOG_COLUMNS = ["idx", "perf", "run", "period", "start", "end", "rel_st", "slack",
               "c_duration", "c_period", "wu_lat"]
_LOG_NAME = re.compile(r"^rt-app-(.+)-(\d+)\.log$")


def thread_names(rtapp_json):
    """[task key of thread 0, of thread 1, ...] from the rt-app.json the guest ran."""
    try:
        with open(rtapp_json, encoding="utf-8") as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        raise AnalysisError(f"{rtapp_json}: unreadable ({e})") from e
    names = []
    for name, task in prof.get("tasks", {}).items():
        names.extend([name] * int(task.get("instance", 1)))
    return names


def threads(markers, names):
    """DataFrame pid, thread, task: the pid that wrote "[N] ..." is thread N."""
    first = markers[markers["thread"] < len(names)].drop_duplicates("pid")
    df = pd.DataFrame({"pid": first["pid"].astype(int).to_numpy(),
                       "thread": first["thread"].astype(int).to_numpy()})
    df["task"] = [names[i] for i in df["thread"]]
    return df.sort_values("thread").reset_index(drop=True)


def phase_starts(markers, pid):
    """(ts, phase) arrays of the "begins loop" markers where thread pid starts a
    phase: rt-app writes one at every loop of a phase, only a change of phase counts."""
    mine = markers[markers["pid"] == pid]
    mine = mine[mine["kind"] == "begin"]
    change = mine["phase"].ne(mine["phase"].shift())
    return mine["ts"][change].to_numpy(), mine["phase"][change].to_numpy()


def read_logs(log_dir):
    """{thread index: DataFrame of LOG_COLUMNS} for each rt-app log in log_dir."""
    out = {}
    if not os.path.isdir(log_dir):
        return out
    for name in sorted(os.listdir(log_dir)):
        m = _LOG_NAME.match(name)
        if not m:
            continue
        path = os.path.join(log_dir, name)
        try:
            df = pd.read_csv(path, sep=r"\s+", comment="#", header=None, names=LOG_COLUMNS)
        except (OSError, ValueError, pd.errors.ParserError) as e:
            raise AnalysisError(f"{path}: unreadable rt-app log ({e})") from e
        except pd.errors.EmptyDataError:
            df = pd.DataFrame(columns=LOG_COLUMNS)
        out[int(m.group(2))] = df
    return out
