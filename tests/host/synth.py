"""Synthetic run folders: a known event sequence written as the trace reader's tables.

A test states events in milliseconds; make_run() writes a run folder that the
analysis reads like a real one (run.json, profile, rt-app.json, rt-app logs,
an energy-model dump and analysis/tables/*.csv, with no trace.dat).

TraceDat writes the reader's own input instead: a trace.dat with the event
formats and records a test states, for formats no recorded fixture has yet.
"""
import csv
import json
import os
import struct
import sys

from conftest import TOP

sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan import runfolder, series  # noqa: E402

MS = 1_000_000
HEADERS = {
    "switch": ["ts", "cpu", "prev_pid", "prev_state", "next_pid"],
    "wakeup": ["ts", "cpu", "pid", "target_cpu", "kind"],
    "migrate": ["ts", "cpu", "pid", "orig_cpu", "dest_cpu", "reason"],
    "delayed": ["ts", "cpu", "pid"],
    "decision": ["ts", "cpu", "pid", "src_cpu", "dst_cpu", "reason"],
    "push": ["ts", "cpu", "pid", "src_cpu", "dst_cpu", "trigger", "why", "outcome", "util",
             "runnable", "util_est", "capacity", "uclamp_max"],
    "exit": ["ts", "pid"],
    "pelt_se": ["ts", "pid", "cpu", "util"],
    "pelt_cfs": ["ts", "cpu", "util"],
    "util_est": ["ts", "pid", "cpu", "util_est", "util"],
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

    def util_est(self, t, pid, cpu, util_est, util):
        self.rows["util_est"].append([int(t * MS), pid, cpu, util_est, util])

    def push(self, t, pid, src, dst, trigger, why, outcome, util=0, capacity=0, uclamp_max=1024):
        """An eas_push decision about pid on src (runnable and util_est = util)."""
        self.rows["push"].append([int(t * MS), src, pid, src, dst, trigger, why, outcome, util,
                                  util, util, capacity, uclamp_max])

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
             record=None, untraced=(), keys=None):
    """tasks: {name: instances}; logs: {thread: [(perf, run_us, start_ms, slack_us)]};
    record: more run.json fields; untraced: events the kernel lacks (the reader's -1);
    keys: {name: more keys of the task (cpus, util_max...)}. The guest's rt-app.json is
    the profile as guest/profile.py prepares it."""
    os.makedirs(os.path.join(run_dir, "guest"))
    os.makedirs(os.path.join(run_dir, "rt-app"))
    prof = {"description": "synthetic", "global": {"duration": 1, "calibration": "CPU0"},
            "tasks": {name: {"instance": n, "run": 1000, "timer": {"ref": "unique", "period": 10000},
                             **(keys or {}).get(name, {})}
                      for name, n in tasks.items()}}
    with open(os.path.join(run_dir, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    with open(os.path.join(run_dir, "guest", "rt-app.json"), "w", encoding="utf-8") as f:
        json.dump(runfolder.profile_module().prepare(prof)[0], f)
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


# Old short names of the series' lists.
_LISTS = {"SCHED_MIG": "SCHED_MIGRATE_REASONS", "SCHED_PLACE": "SCHED_PLACEMENT_REASONS"}


def kernel_reasons(name):
    """The names of an enum of the series' trace events, in value order: X-macro list
    `name` (SCHED_PUSH_OUTCOMES, say; SCHED_MIG and SCHED_PLACE for the migration and
    placement reasons) as patches/ builds it (easan.series)."""
    names = list(series.names(_LISTS.get(name, name)))
    assert names, f"no {name} list found in patches/"
    return names


def symbolic(field, names):
    """__print_symbolic() of an int field as a kernel's format shows it once
    TRACE_DEFINE_ENUM() has put the values in: {value, "name"} pairs."""
    pairs = ", ".join(f'{{ {value}, "{name}" }}' for value, name in enumerate(names))
    return f"__print_symbolic(REC->{field}, {pairs})"


class TraceDat:
    """A trace.dat (file format 6, see trace-cmd.dat.v6(5)) with the events a test
    declares and records it adds, laid out as a 64-bit little-endian kernel's ring
    buffer pages would hold them; `trace-cmd report` reads it like a recorded one.

    event() takes fields as (C declaration, struct code): "16s" a char array, "i"
    a signed int; they follow the 8 bytes of common fields, unpadded, as in the
    kernel's layout of an int after a char[16].
    """
    PAGE = 4096
    COMMON = [("unsigned short common_type", "H"), ("unsigned char common_flags", "B"),
              ("unsigned char common_preempt_count", "B"), ("int common_pid", "i")]
    HEADER_PAGE = ("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                   "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                   "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                   "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
    HEADER_EVENT = ("# compressed entry header\n\ttype_len    :    5 bits\n"
                    "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                    "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                    "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")

    def __init__(self, ncpus):
        self.events = {}    # name -> (system, id, struct format, format text)
        self.records = [[] for _ in range(ncpus)]

    def event(self, system, name, fields, print_fmt):
        lines, offset = [], 0
        for i, (decl, code) in enumerate(self.COMMON + fields):
            size = struct.calcsize("<" + code)
            lines.append(f"\tfield:{decl};\toffset:{offset};\tsize:{size};"
                         f"\tsigned:{int(code in 'bhiq')};\n" + ("\n" if i == 3 else ""))
            offset += size
        eid = 100 + len(self.events)
        text = f"name: {name}\nID: {eid}\nformat:\n{''.join(lines)}\nprint fmt: {print_fmt}\n"
        code = "<" + "".join(c for _, c in self.COMMON + fields)
        self.events[name] = (system, eid, code, text)

    def add(self, cpu, ts, pid, name, *values):
        """A record of event name at ts ns on cpu, written by pid."""
        _, eid, code, _ = self.events[name]
        values = [v.encode() if isinstance(v, str) else v for v in values]
        self.records[cpu].append((ts, struct.pack(code, eid, 0, 0, pid, *values)))

    def _pages(self, records):
        """Ring buffer pages: each event a 4-byte header (type_len = its length in
        words, time_delta since the previous event) and its data; a new page when
        one is full or the delta outgrows 27 bits."""
        pages, data, base, prev = [], b"", None, None
        for ts, payload in sorted(records, key=lambda r: r[0]):
            payload += b"\0" * (-len(payload) % 4)
            assert len(payload) <= 28 * 4, "longer events need the type_len 0 header"
            if base is None or len(data) + 4 + len(payload) > self.PAGE - 16 \
                    or ts - prev >= 1 << 27:
                if base is not None:
                    pages.append((base, data))
                data, base, prev = b"", ts, ts
            data += struct.pack("<I", len(payload) // 4 | (ts - prev) << 5) + payload
            prev = ts
        if base is not None:
            pages.append((base, data))
        return b"".join(struct.pack("<QQ", b, len(d)) + d + b"\0" * (self.PAGE - 16 - len(d))
                        for b, d in pages)

    def write(self, path):
        def sized(blob):
            return struct.pack("<Q", len(blob)) + blob
        systems = {}
        for system, _, _, text in self.events.values():
            systems.setdefault(system, []).append(text.encode())
        head = b"\x17\x08\x44tracing6\0" + bytes([0, 8]) + struct.pack("<I", self.PAGE)
        head += b"header_page\0" + sized(self.HEADER_PAGE.encode())
        head += b"header_event\0" + sized(self.HEADER_EVENT.encode())
        head += struct.pack("<II", 0, len(systems))    # no ftrace events
        for system, texts in systems.items():
            head += system.encode() + b"\0" + struct.pack("<I", len(texts))
            head += b"".join(sized(t) for t in texts)
        # No kallsyms, printk formats or saved cmdlines; then the CPUs' data.
        head += struct.pack("<IIQI", 0, 0, 0, len(self.records)) + b"flyrecord\0"
        data = [self._pages(r) for r in self.records]
        offset = -(-(len(head) + 16 * len(data)) // self.PAGE) * self.PAGE
        for d in data:
            head += struct.pack("<QQ", offset, len(d))
            offset += len(d)
        head += b"\0" * (-len(head) % self.PAGE)
        with open(path, "wb") as f:
            f.write(head + b"".join(data))
        return path
