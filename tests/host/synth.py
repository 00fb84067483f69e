"""Synthetic run folders: a known event sequence written as the trace reader's tables.

A test states events in milliseconds; make_run() writes a run folder that the
analysis reads like a real one (run.json, profile, rt-app.json, rt-app logs,
an energy-model dump and analysis/tables/*.csv, with no trace.dat).
"""
import csv
import json
import os

from conftest import TOP

MS = 1_000_000
HEADERS = {
    "switch": ["ts", "cpu", "prev_pid", "prev_state", "next_pid"],
    "wakeup": ["ts", "cpu", "pid", "target_cpu", "kind"],
    "migrate": ["ts", "cpu", "pid", "orig_cpu", "dest_cpu", "reason"],
    "delayed": ["ts", "cpu", "pid"],
    "decision": ["ts", "cpu", "pid", "src_cpu", "dst_cpu", "reason"],
    "exit": ["ts", "pid"],
    "pelt_se": ["ts", "pid", "cpu", "util"],
    "pelt_cfs": ["ts", "cpu", "util"],
    "util_est": ["ts", "pid", "util_est", "util"],
    "overutil": ["ts", "overutilized"],
    "capacity": ["ts", "cpu", "capacity", "capacity_orig"],
    "energy": ["ts", "pid", "dst_cpu", "energy"],
    "idle": ["ts", "cpu", "state"],
    "freq": ["ts", "cpu", "khz"],
    "print": ["ts", "cpu", "pid", "text"],
    "markers": ["ts", "pid", "thread", "kind", "loop", "phase"],
    "comm": ["pid", "comm"],
}
LOG_HEADER = ("# Policy : SCHED_OTHER priority : 0\n#idx     perf      run   period           start"
              "             end          rel_st      slack c_duration   c_period     wu_lat\n")


class Trace:
    """Events in ms; switch(cpu, t, prev, next, sleeping) etc. append rows."""

    def __init__(self):
        self.rows = {k: [] for k in HEADERS}

    def switch(self, cpu, t, prev, nxt, sleeping=True):
        self.rows["switch"].append([int(t * MS), cpu, prev, 1 if sleeping and prev else 0, nxt])

    def run(self, cpu, pid, start, end, sleeping=True):
        """pid runs on cpu over [start, end) ms, the CPU idle around it."""
        self.switch(cpu, start, 0, pid)
        self.switch(cpu, end, pid, 0, sleeping)

    def wakeup(self, t, pid, target, kind="wakeup"):
        self.rows["wakeup"].append([int(t * MS), target, pid, target, kind])

    def migrate(self, t, pid, src, dst, reason):
        self.rows["migrate"].append([int(t * MS), src, pid, src, dst, reason])

    def util(self, t, pid, cpu, util):
        self.rows["pelt_se"].append([int(t * MS), pid, cpu, util])

    def marker(self, t, pid, thread, kind, loop=0, phase=0):
        """An rt-app "[thread] begins/end loop L phase P" marker (kind begin/end)."""
        self.rows["markers"].append([int(t * MS), pid, thread, kind, loop, phase])

    def delayed(self, t, pid, cpu):
        self.rows["delayed"].append([int(t * MS), cpu, pid])

    def decision(self, t, pid, src, dst, reason):
        """A placement heuristic sent pid to dst where mainline would have kept src."""
        self.rows["decision"].append([int(t * MS), src, pid, src, dst, reason])


def _write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def write_em(run_dir, cpus):
    """cpus: [(capacity, costs)]: one perf domain per CPU, 4 states at 2/5..5/5."""
    for cpu, (cap, costs) in enumerate(cpus):
        d = os.path.join(run_dir, "energy_model", f"cpu{cpu}")
        os.makedirs(d)
        with open(os.path.join(d, "cpus"), "w", encoding="utf-8") as f:
            f.write(f"{cpu}\n")
        for level, cost in zip(range(2, 6), costs):
            ps = os.path.join(d, f"ps:{level}")
            os.makedirs(ps)
            values = {"performance": cap * level // 5, "cost": cost, "frequency": level,
                      "power": 64000000, "inefficient": 0}
            for key, value in values.items():
                with open(os.path.join(ps, key), "w", encoding="utf-8") as f:
                    f.write(f"{value}\n")


def make_run(run_dir, trace, tasks, platform, logs, kernel="patched", comms=None,
             record=None, untraced=()):
    """tasks: {name: instances}; logs: {thread: [(perf, run_us, start_ms, slack_us)]};
    record: more run.json fields; untraced: events the kernel lacks (the reader's -1)."""
    os.makedirs(os.path.join(run_dir, "guest"))
    os.makedirs(os.path.join(run_dir, "rt-app"))
    prof = {"description": "synthetic", "global": {"duration": 1, "calibration": "CPU0"},
            "tasks": {name: {"instance": n, "run": 1000, "timer": {"ref": "unique", "period": 10000}}
                      for name, n in tasks.items()}}
    with open(os.path.join(run_dir, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    with open(os.path.join(run_dir, "guest", "rt-app.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    record = {"status": "ok", "profile": "synthetic.json", "kernel": kernel,
              "cmdline": f"console=ttyS0 hybrid_sim={platform}", "lost_events": 0,
              **(record or {})}
    with open(os.path.join(run_dir, "run.json"), "w", encoding="utf-8") as f:
        json.dump(record, f)
    names = [n for n, k in tasks.items() for _ in range(k)]
    for thread, rows in logs.items():
        with open(os.path.join(run_dir, "rt-app", f"rt-app-{names[thread]}-{thread}.log"), "w",
                  encoding="utf-8") as f:
            f.write(LOG_HEADER)
            for i, (perf, run_us, start_ms, slack) in enumerate(rows):
                start = int(start_ms * 1000)
                f.write(f"{thread} {perf} {run_us} 10000 {start} {start + run_us} {start} {slack}"
                        f" 1000 10000 0\n")
    tables = os.path.join(run_dir, "analysis", "tables")
    os.makedirs(tables)
    all_ts = [r[0] for k, rows in trace.rows.items() for r in rows if k != "comm"]
    for name, header in HEADERS.items():
        rows = sorted(trace.rows[name], key=lambda r: r[0]) if name != "comm" else \
            [[p, c] for p, c in (comms or {}).items()]
        _write_csv(os.path.join(tables, f"{name}.csv"), header, rows)
    _write_csv(os.path.join(tables, "meta.csv"), ["key", "value"],
               [["records", len(all_ts)], ["missed_events", 0], ["first_ts", min(all_ts)],
                ["last_ts", max(all_ts)], ["cpus", 0]]
               + [[f"events.{event}", -1] for event in untraced])
    return run_dir


REPORT = os.path.join(TOP, "analysis", "report")
