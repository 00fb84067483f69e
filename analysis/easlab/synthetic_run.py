"""Synthetic run folders: a known event sequence written as the trace reader's tables.

A test states events in milliseconds; make_run() writes a run folder that the
analysis reads like a real one (run.json, profile, rt-app.json, rt-app logs,
an energy-model dump and analysis/tables/ as the reader writes them, with no
trace.dat). The tables and their columns are the reader's (its --schema): a
row names its columns, and a column the reader does not have, or lacks, fails.

TraceDat writes the reader's own input instead: a trace.dat with the event
formats and records a test states, for formats no recorded fixture has yet.
"""
import json
import os
import random
import struct

from contract.paths import TOP
from contract import rtapp_profile
from easan import tables as tables_mod
from easlab import kernel_lists

MS = 1_000_000
# rt-app's calibration in synthetic logs: loops a full-speed CPU runs per us.
SYNTH_LOOPS_PER_US = 2
LOG_HEADER = ("# Policy : SCHED_OTHER priority : 0\n#idx     perf      run   period           start"
              "             end          rel_st      slack c_duration   c_period     wu_lat\n")


class Trace:
    """Events in ms; switch(cpu, t, prev, next, sleeping) etc. append rows."""

    def __init__(self):
        self.rows = {k: [] for k in tables_mod.columns()}

    def add(self, table, t, **values):
        """A row of table at t ms, its other columns by name."""
        self.rows[table].append({"ts": int(t * MS), **values})

    def switch(self, cpu, t, prev, nxt, sleeping=True):
        self.add("switch", t, cpu=cpu, prev_pid=prev, prev_state=1 if sleeping and prev else 0,
                 next_pid=nxt)

    def run(self, cpu, pid, start, end, sleeping=True):
        """pid runs on cpu over [start, end) ms, the CPU idle around it."""
        self.switch(cpu, start, 0, pid)
        self.switch(cpu, end, pid, 0, sleeping)

    def wakeup(self, t, pid, target, kind="wakeup"):
        self.add("wakeup", t, cpu=target, pid=pid, target_cpu=target, kind=kind)

    def migrate(self, t, pid, src, dst, reason):
        self.add("migrate", t, cpu=src, pid=pid, orig_cpu=src, dest_cpu=dst, reason=reason)

    def util(self, t, pid, cpu, util):
        self.add("pelt_se", t, pid=pid, cpu=cpu, util=util)

    def util_est(self, t, pid, cpu, util_est, util):
        self.add("util_est", t, pid=pid, cpu=cpu, util_est=util_est, util=util)

    def push(self, t, pid, src, dst, trigger, why, outcome, util=0, capacity=0, uclamp_max=1024,
             cost_ns=0):
        """An eas_push decision about pid, made on src (runnable and util_est = util);
        cost_ns: the decision's own time, -1 as the reader gives it for a kernel whose
        eas_push does not record it."""
        self.add("push", t, cpu=src, pid=pid, src_cpu=src, dst_cpu=dst, trigger=trigger, why=why,
                 outcome=outcome, util=util, runnable=util, util_est=util, capacity=capacity,
                 uclamp_max=uclamp_max, cost_ns=cost_ns)

    def marker(self, t, pid, thread, kind, loop=0, phase=0):
        """An rt-app "[thread] begins/end loop L phase P" marker (kind begin/end)."""
        self.add("markers", t, pid=pid, thread=thread, kind=kind, loop=loop, phase=phase)

    def sched_attrs(self, t, pid, util_min, util_max, helper=None, cpu=0, slice_ns=2800000):
        """The shim's trace marker (guest/vm/helpers/eas-sched-attrs.c): pid's attributes
        as read back, written by pid itself, or by its uclamp_change helper thread (pid
        helper) with "pid=PID"; util_min None for the helper's "pid=PID gone"."""
        if util_min is None:
            text = f"eas-sched-attrs: pid={pid} gone"
        else:
            text = (f"eas-sched-attrs: {f'pid={pid} ' if helper else ''}util_min={util_min} "
                    f"util_max={util_max} slice_ns={slice_ns}")
        self.add("print", t, cpu=cpu, pid=helper or pid, text=text)

    def delayed(self, t, pid, cpu):
        self.add("delayed", t, cpu=cpu, pid=pid)

    def decision(self, t, pid, src, dst, reason):
        """A placement heuristic sent pid to dst where mainline would have kept src."""
        self.add("decision", t, cpu=src, pid=pid, src_cpu=src, dst_cpu=dst, reason=reason)


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
    the profile as contract.rtapp_profile prepares it, sched-attrs.json its extension keys."""
    write_run_files(run_dir, tasks, platform, logs, kernel, record, keys)
    rows = {name: sorted(r, key=lambda row: row["ts"]) for name, r in trace.rows.items()}
    all_ts = [r["ts"] for table in rows.values() for r in table]
    rows["comm"] = [{"pid": p, "comm": c} for p, c in (comms or {}).items()]
    rows["symbols"] = [{"event": e, "field": f, "value": v, "name": n}
                       for (e, f), lst in ENUMS.items() if e not in untraced
                       for v, n in enumerate(kernel_reasons(lst))]
    meta = {"records": len(all_ts), "missed_events": 0, "first_ts": min(all_ts),
            "last_ts": max(all_ts), "cpus": 0, **{f"events.{e}": -1 for e in untraced}}
    rows["meta"] = [{"key": k, "value": v} for k, v in meta.items()]
    tables_mod.write(os.path.join(run_dir, "analysis", "tables"), rows)
    return run_dir


def write_run_files(run_dir, tasks, platform, logs, kernel="patched", record=None, keys=None,
                    duration_s=1):
    """Everything of a run folder but the trace (make_run's arguments); logs' rows may
    also be (perf, run_us, start_us, slack_us, True) for a start in us."""
    os.makedirs(os.path.join(run_dir, "guest"))
    os.makedirs(os.path.join(run_dir, "rt-app"))
    prof = {"description": "synthetic", "global": {"duration": duration_s, "calibration": "CPU0"},
            "tasks": {name: {"instance": n, "run": 1000, "timer": {"ref": "unique", "period": 10000},
                             **(keys or {}).get(name, {})}
                      for name, n in tasks.items()}}
    with open(os.path.join(run_dir, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    rtapp, attrs = rtapp_profile.prepare(prof)
    for name, content in (("rt-app.json", rtapp), ("sched-attrs.json", attrs)):
        with open(os.path.join(run_dir, "guest", name), "w", encoding="utf-8") as f:
            json.dump(content, f)
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
            for i, (perf, run_us, start_ms, slack, *in_us) in enumerate(rows):
                start = int(start_ms) if in_us else int(start_ms * 1000)
                # c_duration: the run the loops were asked for, at the synthetic
                # calibration of 2 loops/us (a full-speed CPU delivers it on time).
                f.write(f"{thread} {perf} {run_us} 10000 {start} {start + run_us} {start} {slack}"
                        f" {round(perf / SYNTH_LOOPS_PER_US)} 10000 0\n")


REPORT = os.path.join(TOP, "analysis", "report")


# Old short names of the series' lists.
_LISTS = {"SCHED_MIG": "SCHED_MIGRATE_REASONS", "SCHED_PLACE": "SCHED_PLACEMENT_REASONS"}


def kernel_reasons(name):
    """The names of an enum of the series' trace events, in value order: X-macro list
    `name` (SCHED_PUSH_OUTCOMES, say; SCHED_MIG and SCHED_PLACE for the migration and
    placement reasons) as patches/ builds it (kernel_lists.py)."""
    names = list(kernel_lists.names(_LISTS.get(name, name)))
    assert names, f"no {name} list found in patches/"
    return names


# The enum fields of the series' events, as the reader's symbols table lists them for a
# trace of the patched kernel: (event, field) -> the series' list.
ENUMS = {("eas_migrate_reason", "reason"): "SCHED_MIGRATE_REASONS",
         ("eas_placement_decision", "reason"): "SCHED_PLACEMENT_REASONS",
         ("eas_push", "trigger"): "SCHED_PUSH_TRIGGERS",
         ("eas_push", "why"): "SCHED_PUSH_WHYS",
         ("eas_push", "outcome"): "SCHED_PUSH_OUTCOMES"}


def symbolic(field, names):
    """__print_symbolic() of an int field as a kernel's format shows it once
    TRACE_DEFINE_ENUM() has put the values in: {value, "name"} pairs."""
    pairs = ", ".join(f'{{ {value}, "{name}" }}' for value, name in enumerate(names))
    return f"__print_symbolic(REC->{field}, {pairs})"


# eas:eas_push's fields as Part B's kernel records them (TraceDat.event()'s form), and
# the cost_ns it gained later, which older kernels' formats lack.
PUSH_FIELDS = [("char comm[16]", "16s"), ("pid_t pid", "i"), ("int src_cpu", "i"),
               ("int dst_cpu", "i"), ("int trigger", "i"), ("int why", "i"),
               ("int outcome", "i"), ("unsigned long util", "Q"),
               ("unsigned long runnable", "Q"), ("unsigned long util_est", "Q"),
               ("unsigned long capacity", "Q"), ("unsigned long uclamp_max", "Q")]
PUSH_COST = ("u64 cost_ns", "Q")
# Its enum fields and the series' lists that name their values.
PUSH_ENUMS = {field: lst for (event, field), lst in ENUMS.items() if event == "eas_push"}


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
        self.fields = {}    # name -> its field names, in order
        self.records = [[] for _ in range(ncpus)]
        self.losses = [[] for _ in range(ncpus)]

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
        self.fields[name] = [decl.split()[-1].split("[")[0] for decl, _ in fields]

    def push_event(self, cost_ns=True):
        """Declare eas:eas_push as Part B's kernel records it (PUSH_FIELDS, trigger, why
        and outcome printed by the series' names), with its cost_ns field, or without
        it (cost_ns False) as a kernel from before it."""
        fields = PUSH_FIELDS + [PUSH_COST] * bool(cost_ns)
        enums = [symbolic(f, kernel_reasons(lst)) for f, lst in PUSH_ENUMS.items()]
        fmt = ('"comm=%s pid=%d src_cpu=%d dst_cpu=%d trigger=%s why=%s outcome=%s util=%lu '
               'runnable=%lu util_est=%lu capacity=%lu uclamp_max=%lu'
               + " cost_ns=%llu" * bool(cost_ns) + '", REC->comm, REC->pid, REC->src_cpu, '
               'REC->dst_cpu, ' + ", ".join(enums) + ", REC->util, REC->runnable, "
               "REC->util_est, REC->capacity, REC->uclamp_max" + ", REC->cost_ns" * bool(cost_ns))
        self.event("eas", "eas_push", fields, fmt)

    def push(self, cpu, ts, pid, src, dst, trigger, why, outcome, util=0, runnable=0,
             util_est=0, capacity=0, uclamp_max=1024, cost_ns=0, comm="task"):
        """An eas_push record at ts ns on cpu (the deciding CPU), written by pid about
        itself; trigger, why and outcome a value or the series' name of one; cost_ns
        when the format declared (push_event()) has the field, else it must stay 0."""
        enums = [kernel_reasons(lst).index(v) if isinstance(v, str) else v
                 for v, lst in zip((trigger, why, outcome), PUSH_ENUMS.values())]
        values = [comm, pid, src, dst, *enums, util, runnable, util_est, capacity, uclamp_max]
        if "cost_ns" in self.fields["eas_push"]:
            values.append(cost_ns)
        elif cost_ns:
            raise ValueError("this trace's eas_push has no cost_ns (push_event(cost_ns=False))")
        self.add(cpu, ts, pid, "eas_push", *values)

    def add(self, cpu, ts, pid, name, *values):
        """A record of event name at ts ns on cpu, written by pid."""
        _, eid, code, _ = self.events[name]
        values = [v.encode() if isinstance(v, str) else v for v in values]
        self.records[cpu].append((ts, struct.pack(code, eid, 0, 0, pid, *values)))

    def lost(self, cpu, ts, count=None):
        """Events lost on cpu right before its first record at or after ts: count of
        them, or None for a loss of unknown size (the page says so without a count)."""
        self.losses[cpu].append((ts, count))

    # A page's commit field: its data's size, and whether events were lost before it
    # (MISSED) and their count stored after the data (STORED), as kbuffer reads it.
    MISSED, STORED = 1 << 31, 1 << 30

    def _pages(self, records, losses=()):
        """Ring buffer pages: each event a 4-byte header (type_len = its length in
        words, time_delta since the previous event) and its data; a new page when
        one is full, the delta outgrows 27 bits or a loss comes first."""
        pages, data, base, prev, lost = [], b"", None, None, None
        losses = sorted(losses, key=lambda x: x[0])
        for ts, payload in sorted(records, key=lambda r: r[0]):
            payload += b"\0" * (-len(payload) % 4)
            assert len(payload) <= 28 * 4, "longer events need the type_len 0 header"
            loss = losses and losses[0][0] <= ts
            if base is None or len(data) + 4 + len(payload) > self.PAGE - 16 - 8 \
                    or ts - prev >= 1 << 27 or loss:
                if base is not None:
                    pages.append((base, data, lost))
                data, base, prev, lost = b"", ts, ts, None
                if loss:
                    lost = (losses.pop(0)[1],)
            data += struct.pack("<I", len(payload) // 4 | (ts - prev) << 5) + payload
            prev = ts
        if base is not None:
            pages.append((base, data, lost))
        out = []
        for b, d, lost in pages:
            commit, tail = len(d), b""
            if lost:
                commit |= self.MISSED
                if lost[0] is not None:
                    commit |= self.STORED
                    tail = struct.pack("<Q", lost[0])
            out += [struct.pack("<QQ", b, commit), d, tail,
                    b"\0" * (self.PAGE - 16 - len(d) - len(tail))]
        return b"".join(out)

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
        data = [self._pages(r, lost) for r, lost in zip(self.records, self.losses)]
        offset = -(-(len(head) + 16 * len(data)) // self.PAGE) * self.PAGE
        for d in data:
            head += struct.pack("<QQ", offset, len(d))
            offset += len(d)
        head += b"\0" * (-len(head) % self.PAGE)
        with open(path, "wb") as f:
            f.write(head + b"".join(data))
        return path


COMM = [("char comm[16]", "16s"), ("pid_t pid", "i")]
SWITCH_FMT = (
    '"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d '
    'next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & 0xff) ? '
    '__print_flags(REC->prev_state & 0xff, "|", { 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }, '
    '{ 0x08, "t" }, { 0x10, "X" }, { 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" }) : "R", '
    'REC->prev_state & 0x100 ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio')
# The events of a guest trace, fields and print formats as a patched 6.12 kernel
# records them (unpadded, see TraceDat).
GUEST_EVENTS = {
    "sched_switch": ("sched", [("char prev_comm[16]", "16s"), ("pid_t prev_pid", "i"),
                               ("int prev_prio", "i"), ("long prev_state", "q"),
                               ("char next_comm[16]", "16s"), ("pid_t next_pid", "i"),
                               ("int next_prio", "i")], SWITCH_FMT),
    **{name: ("sched", COMM + [("int prio", "i"), ("int target_cpu", "i")],
              '"comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, '
              'REC->target_cpu')
       for name in ("sched_waking", "sched_wakeup", "sched_wakeup_new")},
    "sched_migrate_task": ("sched", COMM + [("int prio", "i"), ("int orig_cpu", "i"),
                                            ("int dest_cpu", "i")],
                           '"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", REC->comm, '
                           'REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu'),
    "sched_process_exit": ("sched", COMM + [("int prio", "i")],
                           '"comm=%s pid=%d prio=%d", REC->comm, REC->pid, REC->prio'),
    "eas_migrate_reason": ("eas", COMM + [("int src_cpu", "i"), ("int dst_cpu", "i"),
                                          ("int reason", "i")], None),
    "eas_pelt_se": ("eas", COMM + [("int cpu", "i"), ("unsigned long util", "Q"),
                                   ("unsigned long load", "Q"), ("unsigned long runnable", "Q")],
                    '"comm=%s pid=%d cpu=%d util=%lu load=%lu runnable=%lu", REC->comm, '
                    'REC->pid, REC->cpu, REC->util, REC->load, REC->runnable'),
    "eas_pelt_cfs": ("eas", [("int cpu", "i"), ("unsigned long util", "Q"),
                             ("unsigned long load", "Q"), ("unsigned long runnable", "Q")],
                     '"cpu=%d util=%lu load=%lu runnable=%lu", REC->cpu, REC->util, REC->load, '
                     'REC->runnable'),
    "eas_util_est_se": ("eas", COMM + [("int cpu", "i"), ("unsigned int util_est", "I"),
                                       ("unsigned long util", "Q")],
                        '"comm=%s pid=%d cpu=%d util_est=%u util=%lu", REC->comm, REC->pid, '
                        'REC->cpu, REC->util_est, REC->util'),
    "eas_overutilized": ("eas", [("unsigned long span", "Q"), ("bool overutilized", "B")],
                         '"span=0x%lx overutilized=%d", REC->span, REC->overutilized'),
    "eas_cpu_capacity": ("eas", [("int cpu", "i"), ("unsigned long capacity", "Q"),
                                 ("unsigned long capacity_orig", "Q")],
                         '"cpu=%d capacity=%lu capacity_orig=%lu", REC->cpu, REC->capacity, '
                         'REC->capacity_orig'),
    "eas_compute_energy": ("eas", COMM + [("int dst_cpu", "i"), ("unsigned long energy", "Q"),
                                          ("unsigned long max_util", "Q"),
                                          ("unsigned long busy_time", "Q")],
                           '"comm=%s pid=%d dst_cpu=%d energy=%lu max_util=%lu busy_time=%lu", '
                           'REC->comm, REC->pid, REC->dst_cpu, REC->energy, REC->max_util, '
                           'REC->busy_time'),
    **{name: ("power", [("u32 state", "I"), ("u32 cpu_id", "I")],
              '"state=%lu cpu_id=%lu", (unsigned long)REC->state, (unsigned long)REC->cpu_id')
       for name in ("cpu_idle", "cpu_frequency")},
    "print": ("ftrace", [("unsigned long ip", "Q"), ("char buf[40]", "40s")],
              '"%ps: %s", (void *)REC->ip, REC->buf'),
}
CHURN_PLATFORM = [("e", 600)] * 4 + [("p", 1024)] * 2


def churn_run(run_dir, seconds=50.0, threads=16, period_ms=14.0, seed=1):
    """A run folder with a trace.dat of rt-app-profiles/bench/churn.json's kind for make
    bench-analysis without a guest: threads that run 0.3 ms (jittered) every period_ms,
    as many activations as a TCG guest completes of that profile (about 21 k events per
    second at the defaults, over 1 M in all), in the mix of a recorded run: per
    activation a wakeup with its energy estimates, idle exit and entry, two switches,
    PELT and util_est updates, rt-app's begin/executing/end markers; now and then a
    move with its reason, frequency, capacity and overutilized updates."""
    rng = random.Random(seed)
    spec = ",".join(f"{k}:{sum(1 for t in CHURN_PLATFORM if t[0] == k)}:{c}"
                    for k, c in dict(CHURN_PLATFORM).items())
    ncpus = len(CHURN_PLATFORM)
    t = TraceDat(ncpus)
    for name, (system, fields, fmt) in GUEST_EVENTS.items():
        t.event(system, name, fields, fmt or (
            '"comm=%s pid=%d src_cpu=%d dst_cpu=%d reason=%s", REC->comm, REC->pid, '
            'REC->src_cpu, REC->dst_cpu, ' + symbolic("reason", kernel_reasons("SCHED_MIG"))))
    reasons = kernel_reasons("SCHED_MIG")
    us = 1000
    t0, main = 1_000_000 * us, 199
    pids = [200 + i for i in range(threads)]
    t.add(0, t0 - 500 * us, main, "print", 0, b"main creates threads")
    cpu_of = {p: i % ncpus for i, p in enumerate(pids)}
    free = [0] * ncpus
    logs = {i: [] for i in range(threads)}
    for i, p in enumerate(pids):
        t.add(0, t0 - 400 * us + i * us, main, "sched_wakeup_new", "churn", p, 120, cpu_of[p])
    period, end = int(period_ms * 1000) * us, t0 + int(seconds * 1e9)
    acts = sorted((t0 + k * period + i * period // threads, i)
                  for i in range(threads) for k in range(int(seconds * 1e9) // period))
    ticks = 0
    for wake, i in acts:
        p, k = pids[i], (wake - t0) // period
        prev = cpu_of[p]
        cpu = prev
        if rng.random() < 0.03:
            cpu = rng.randrange(ncpus)
        t.add(prev, wake, 0, "sched_waking", "churn", p, 120, cpu)
        for c in rng.sample(range(ncpus), 3):
            t.add(prev, wake + us, 0, "eas_compute_energy", "churn", p, c,
                  rng.randrange(2000, 9000), rng.randrange(100, 600), rng.randrange(100, 900))
        if cpu != prev:
            reason = rng.choice((0, 0, 0, 1, 2))
            t.add(prev, wake + 2 * us, 0, "eas_migrate_reason", "churn", p, prev, cpu,
                  reasons.index(("wakeup", "lb_busy", "lb_newidle")[reason]))
            t.add(prev, wake + 3 * us, 0, "sched_migrate_task", "churn", p, 120, prev, cpu)
            cpu_of[p] = cpu
        t.add(cpu, wake + 4 * us, 0, "sched_wakeup", "churn", p, 120, cpu)
        start = max(wake + 6 * us, free[cpu] + 2 * us)
        run = int(300 * us * rng.uniform(0.8, 1.3))
        stop = start + run
        free[cpu] = stop + 2 * us
        util = 140 + rng.randrange(30)
        t.add(cpu, start - us, 0, "cpu_idle", 4294967295, cpu)
        t.add(cpu, start, 0, "sched_switch", "swapper", 0, 120, 0, "churn", p, 120)
        t.add(cpu, start + us, p, "eas_pelt_se", "churn", p, cpu, util, util, util)
        t.add(cpu, start + us, p, "eas_pelt_cfs", cpu, util + 5, util, util)
        t.add(cpu, start + 2 * us, p, "print", 0, f"[{i}] begins loop {k} phase 0 step 0".encode())
        t.add(cpu, start + 3 * us, p, "print", 0, f"[{i}] executing 0".encode())
        t.add(cpu, start + run // 2, p, "eas_pelt_cfs", cpu, util + 10, util, util)
        t.add(cpu, stop - 3 * us, p, "print", 0, f"[{i}] end loop {k} phase 0 step 0".encode())
        t.add(cpu, stop - 2 * us, p, "eas_pelt_se", "churn", p, cpu, util + 2, util, util)
        t.add(cpu, stop - us, p, "eas_util_est_se", "churn", p, cpu, util, util + 2)
        t.add(cpu, stop - us, p, "eas_pelt_cfs", cpu, util, util, util)
        t.add(cpu, stop, p, "sched_switch", "churn", p, 120, 1, "swapper", 0, 120)
        t.add(cpu, stop + us, 0, "cpu_idle", 1, cpu)
        logs[i].append((run // us * 3, run // us, (start + 3 * us) // us, (period - run) // us,
                        True))
        ticks += 1
        if ticks % 40 == 0:
            t.add(cpu, stop + 2 * us, 0, "cpu_frequency", rng.choice((2, 3, 4, 5)) * 200000, cpu)
            t.add(cpu, stop + 2 * us, 0, "eas_overutilized", (1 << ncpus) - 1, 0)
        if ticks % 160 == 0:
            cap = CHURN_PLATFORM[cpu][1]
            t.add(cpu, stop + 3 * us, 0, "eas_cpu_capacity", cpu, cap, cap)
    for p in pids:
        t.add(cpu_of[p], end + p * us, p, "sched_process_exit", "churn", p, 120)
    t.add(0, end + 500 * us, main, "print", 0, b"main ends")
    write_run_files(run_dir, {"churn": threads}, spec, logs, duration_s=int(seconds + 1))
    write_em(run_dir, [(cap, [100 + 4 * cap // 600 + i for i in range(4)])
                       for _, cap in CHURN_PLATFORM])
    return t.write(os.path.join(run_dir, "trace.dat"))


if __name__ == "__main__":
    # python3 -m easlab.synthetic_run churn OUT: the analysis benchmark's synthetic run
    # (make bench-analysis BENCH_RUN=synthetic), in a process of its own.
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "churn":
        sys.exit("usage: python3 -m easlab.synthetic_run churn OUT_DIR")
    churn_run(sys.argv[2])
