"""The C trace reader on real guest traces, checked against trace-cmd's own report of
the same file: stuck-hog on the patched kernel, and 100 ms of many-small under the
v0.21 layout with EAS_SPARE_TIE on (cut with trace-cmd split), for the string field
of eas_placement_decision.  Those kernels recorded the reasons as strings; the
reasons as enum values printed with __print_symbolic() are checked on a trace.dat
written here with their formats (synth.TraceDat), and on a recorded one when
tests/fixtures/reasons-int.trace.dat.gz is there."""
import collections
import csv
import gzip
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, TOP, run
from easlab.synthetic_run import PUSH_FIELDS, TraceDat, kernel_reasons, symbolic

FIXTURE = os.path.join(TOP, "tests", "fixtures", "stuck-hog.trace.dat.gz")
READER = os.path.join(BUILD, "analysis", "eas-trace-reader")


SPARE_TIE_FIXTURE = os.path.join(TOP, "tests", "fixtures", "spare-tie.trace.dat.gz")
INT_REASONS_FIXTURE = os.path.join(TOP, "tests", "fixtures", "reasons-int.trace.dat.gz")


def unpacked(fixture, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "trace.dat"
    with gzip.open(fixture) as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return str(path)


def read_tables(trace, tmp_path_factory):
    out = tmp_path_factory.mktemp("tables")
    r = run([READER, trace, str(out)], timeout=60)
    assert r.returncode == 0, r.stderr
    tables = {}
    for name in os.listdir(out):
        with open(out / name, encoding="utf-8") as f:
            tables[name[:-4]] = list(csv.DictReader(f))
    return tables


@pytest.fixture(name="trace", scope="module")
def fixture_trace(tmp_path_factory):
    return unpacked(FIXTURE, tmp_path_factory)


@pytest.fixture(name="tables", scope="module")
def fixture_tables(trace, tmp_path_factory):
    return read_tables(trace, tmp_path_factory)


def reported_text(trace):
    return subprocess.run(["trace-cmd", "report", trace], capture_output=True, text=True,
                          check=True).stdout


def reported_counts(trace):
    return collections.Counter(re.findall(r"\d+\.\d+: (\w+):", reported_text(trace)))


def test_event_counts_match_trace_cmd(trace, tables):
    want = reported_counts(trace)
    meta = {row["key"]: int(row["value"]) for row in tables["meta"]}
    for event, table in [("sched_switch", "switch"), ("sched_migrate_task", "migrate"),
                         ("eas_pelt_se", "pelt_se"), ("eas_overutilized", "overutil"),
                         ]:
        assert len(tables[table]) == want[event], event
        assert meta[f"events.{event}"] == want[event], event
    # Every print is either an rt-app marker, an "executing" one left out, or kept.
    executing = len(re.findall(r"print: .*\] executing", reported_text(trace)))
    assert len(tables["markers"]) + len(tables["print"]) + executing == want["print"]
    wakeups = collections.Counter(row["kind"] for row in tables["wakeup"])
    assert wakeups["waking"] == want["sched_waking"] and wakeups["new"] == want["sched_wakeup_new"]


def test_migration_reasons_are_paired(tables):
    hog = [row for row in tables["migrate"] if row["pid"] == "108"]
    # Pinned to CPU 0 by its first phase, then pulled to P-core CPU 4 by misfit active balance.
    assert [(r["orig_cpu"], r["dest_cpu"], r["reason"]) for r in hog] == \
        [("5", "0", "affinity"), ("0", "4", "active_misfit")]
    assert all(r["reason"] != "unknown" for r in tables["migrate"])


def test_markers_and_comms(tables):
    # rt-app's "[N] ..." lines become the markers table; "executing" ones are dropped.
    marks = [(r["pid"], r["thread"], r["kind"], r["loop"], r["phase"]) for r in tables["markers"]]
    assert [m for m in marks if m[2] in ("begin", "end")] == [
        ("108", "0", "begin", "0", "0"), ("108", "0", "end", "0", "0"),
        ("108", "0", "begin", "0", "1"), ("108", "0", "end", "0", "1")]
    assert [r["text"] for r in tables["print"]] == ["main creates threads", "main shutdown", "main ends"]
    assert {"pid": "108", "comm": "hog"} in tables["comm"]


def test_truncated_trace_is_refused(trace, tmp_path):
    cut = tmp_path / "cut.dat"
    with open(trace, "rb") as f:
        cut.write_bytes(f.read()[: os.path.getsize(trace) // 2])
    r = run([READER, str(cut), str(tmp_path)], timeout=60)
    assert r.returncode == 1
    assert "truncated or corrupt" in r.stderr
    assert not (tmp_path / "switch.csv").exists()


def reported_name(printed):
    """What the reader writes for a reason trace-cmd printed: the same name, but
    "reason_N" for a value that __print_symbolic()'s table lacks (printed 0xN)."""
    return f"reason_{int(printed, 16)}" if printed.startswith("0x") else printed


def reported_decisions(text):
    """decision.csv's rows as trace-cmd reported the eas_placement_decision events,
    the time in us: trace-cmd prints microseconds, rounded, and the CPU zero-padded."""
    line = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+): eas_placement_decision:\s+comm=.*? pid=(\d+)"
                      r" src_cpu=(\d+) dst_cpu=(\d+) reason=(\w+)")
    return [(int(sec) * 1_000_000 + int(us), str(int(cpu)), pid, src, dst, reported_name(reason))
            for cpu, sec, us, pid, src, dst, reason in line.findall(text)]


def decisions_read(tables):
    return [(round(int(r["ts"]) / 1000), r["cpu"], r["pid"], r["src_cpu"], r["dst_cpu"],
             r["reason"]) for r in tables["decision"]]


def reported_moves(text):
    """migrate.csv's rows from trace-cmd's report, each move with the reason of the
    eas_migrate_reason that announced it (same pid and destination) or "unknown"."""
    line = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+): (eas_migrate_reason|sched_migrate_task):\s+"
                      r"comm=.*? pid=(\d+) (?:src_cpu=-?\d+ dst_cpu=(-?\d+) reason=(\S+)|"
                      r"prio=-?\d+ orig_cpu=(\d+) dest_cpu=(\d+))$", re.M)
    pending, moves = {}, []
    for cpu, sec, us, event, pid, dst, reason, orig, dest in line.findall(text):
        if event == "eas_migrate_reason":
            pending[pid] = (dst, reported_name(reason))
            continue
        said = pending.pop(pid, None)
        moves.append((int(sec) * 1_000_000 + int(us), str(int(cpu)), pid, orig, dest,
                      said[1] if said and said[0] == dest else "unknown"))
    return moves


def moves_read(tables):
    return [(round(int(r["ts"]) / 1000), r["cpu"], r["pid"], r["orig_cpu"], r["dest_cpu"],
             r["reason"]) for r in tables["migrate"]]


def test_placement_decisions_match_trace_cmd(tmp_path_factory):
    trace = unpacked(SPARE_TIE_FIXTURE, tmp_path_factory)
    tables = read_tables(trace, tmp_path_factory)
    want = reported_decisions(reported_text(trace))
    assert len(want) == 18 and decisions_read(tables) == want
    # Each tie moves the task at that wakeup: the migration that follows goes src -> dst.
    for r in tables["decision"]:
        after = [m for m in tables["migrate"]
                 if m["pid"] == r["pid"] and int(m["ts"]) >= int(r["ts"])][0]
        assert (after["orig_cpu"], after["dest_cpu"], after["reason"]) == \
            (r["src_cpu"], r["dst_cpu"], "wakeup")


MIGRATE_REASONS = kernel_reasons("SCHED_MIG")
PLACEMENT_REASONS = kernel_reasons("SCHED_PLACE")
REASON_EVENT = [("char comm[16]", "16s"), ("pid_t pid", "i"), ("int src_cpu", "i"),
                ("int dst_cpu", "i"), ("int reason", "i")]


def enum_reasons_trace(path):
    """A trace as a kernel with enum reasons records it: every reason of the series
    announcing a move (pid 200 + value, 1 ms apart, alternating CPUs 0 and 1), then a
    value past the table, a move nothing announced and one announced to another
    CPU; and a placement decision for every placement reason and one past them."""
    t = TraceDat(2)
    t.event("sched", "sched_migrate_task",
            [("char comm[16]", "16s"), ("pid_t pid", "i"), ("int prio", "i"),
             ("int orig_cpu", "i"), ("int dest_cpu", "i")],
            '"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", REC->comm, REC->pid, '
            'REC->prio, REC->orig_cpu, REC->dest_cpu')
    for name, names in (("eas_migrate_reason", MIGRATE_REASONS),
                        ("eas_placement_decision", PLACEMENT_REASONS)):
        t.event("eas", name, REASON_EVENT,
                '"comm=%s pid=%d src_cpu=%d dst_cpu=%d reason=%s", REC->comm, REC->pid, '
                'REC->src_cpu, REC->dst_cpu, ' + symbolic("reason", names))
    us = 1000
    for value in range(len(MIGRATE_REASONS) + 1):
        pid, cpu, ts = 200 + value, value % 2, (value + 1) * 1000 * us
        t.add(cpu, ts, pid, "eas_migrate_reason", "task", pid, cpu, 1 - cpu, value)
        t.add(cpu, ts + us, pid, "sched_migrate_task", "task", pid, 120, cpu, 1 - cpu)
    ts += 1000 * us
    t.add(0, ts, 300, "sched_migrate_task", "lone", 300, 120, 0, 1)
    t.add(1, ts + us, 301, "eas_migrate_reason", "other", 301, 1, 0, 1)
    t.add(1, ts + 2 * us, 301, "sched_migrate_task", "other", 301, 120, 1, 2)
    for value in range(len(PLACEMENT_REASONS) + 1):
        t.add(1, ts + (10 + value) * us, 400, "eas_placement_decision", "tie", 400, 0, 1, value)
    return t.write(path)


def recorded_enum_trace(tmp_path_factory):
    if not os.path.exists(INT_REASONS_FIXTURE):
        pytest.skip(f"{os.path.relpath(INT_REASONS_FIXTURE, TOP)} absent: gzip there the "
                    "trace.dat of a run on a kernel whose reasons are enum values")
    trace = unpacked(INT_REASONS_FIXTURE, tmp_path_factory)
    formats = subprocess.run(["trace-cmd", "dump", "--events", "-i", trace], capture_output=True,
                             text=True, check=True).stdout
    assert re.search(r"name: eas_migrate_reason\n(?:.*\n)*?\s*field:int reason;", formats), \
        "the fixture's eas_migrate_reason has no int reason: not an enum-reasons kernel"
    return trace


@pytest.mark.parametrize("source", ["written", "recorded"])
def test_reader_reads_symbolic_reasons(source, tmp_path_factory):
    """Every migration's and placement decision's reason, read from the value, is
    the name trace-cmd prints for the same record."""
    if source == "written":
        trace = enum_reasons_trace(str(tmp_path_factory.mktemp("enum") / "trace.dat"))
    else:
        trace = recorded_enum_trace(tmp_path_factory)
    tables = read_tables(trace, tmp_path_factory)
    text = reported_text(trace)
    moves, decisions = reported_moves(text), reported_decisions(text)
    assert moves and sorted(moves_read(tables)) == sorted(moves)
    assert sorted(decisions_read(tables)) == sorted(decisions)
    if source == "written":
        # And by hand: every name in value order, the value past the table by its
        # number; moves nothing announced for their destination are unknown.
        past = len(MIGRATE_REASONS)
        assert [r["reason"] for r in tables["migrate"]] == \
            MIGRATE_REASONS + [f"reason_{past}", "unknown", "unknown"]
        assert [r["reason"] for r in tables["decision"]] == \
            PLACEMENT_REASONS + [f"reason_{len(PLACEMENT_REASONS)}"]


PUSH_TRIGGERS = kernel_reasons("SCHED_PUSH_TRIGGERS")
PUSH_WHYS = kernel_reasons("SCHED_PUSH_WHYS")
PUSH_OUTCOMES = kernel_reasons("SCHED_PUSH_OUTCOMES")


def push_trace(path, cost=True):
    """eas_push as Part B's kernel records it, its symbolic fields named by the
    series' lists: a decision for every outcome (pid 500 + value,
    alternating triggers and CPUs, why cycling, dst_cpu -1 but for "pushed", cost_ns
    1000 x (value + 1)) and one value past each table (cost_ns 7); and a placement
    decision by the EAS_FEWER_RUNNABLE rule. cost False: a kernel's eas_push from
    before it recorded cost_ns."""
    t = TraceDat(2)
    t.push_event(cost_ns=cost)
    t.event("eas", "eas_placement_decision", REASON_EVENT,
            '"comm=%s pid=%d src_cpu=%d dst_cpu=%d reason=%s", REC->comm, REC->pid, '
            'REC->src_cpu, REC->dst_cpu, '
            + symbolic("reason", ["none", "spare_tie", "fewer_runnable"]))
    us = 1000
    for value in range(len(PUSH_OUTCOMES)):
        cpu = value % 2
        t.push(cpu, (value + 1) * 1000 * us, 500 + value, cpu, 4 if value == 0 else -1,
               value % 2, value % len(PUSH_WHYS), value, 1000 + value, 1100, 900, 600, 100,
               cost_ns=1000 * (value + 1) if cost else 0, comm="hog")
    t.push(0, 10_000 * us, 599, 0, -1, len(PUSH_TRIGGERS), len(PUSH_WHYS), len(PUSH_OUTCOMES),
           1, 2, 3, 4, 5, cost_ns=7 if cost else 0,
           comm="odd")
    t.add(1, 11_000 * us, 600, "eas_placement_decision", "tie", 600, 2, 3, 2)
    return t.write(path)


@pytest.mark.parametrize("cost", [True, False], ids=["cost_ns", "no-cost_ns"])
def test_reader_reads_push_decisions(cost, tmp_path_factory):
    """Every field, cost_ns too; a kernel whose eas_push lacks cost_ns is read with the
    column all -1."""
    trace = push_trace(str(tmp_path_factory.mktemp("push") / "trace.dat"), cost)
    tables = read_tables(trace, tmp_path_factory)
    cols = ("ts", "cpu", "pid", "src_cpu", "dst_cpu", "trigger", "why", "outcome", "util",
            "runnable", "util_est", "capacity", "uclamp_max", "cost_ns")
    assert tuple(tables["push"][0]) == cols
    rows = [tuple(r[c] for c in cols) for r in tables["push"]]
    want = [(str((v + 1) * 1_000_000), str(v % 2), str(500 + v), str(v % 2),
             "4" if v == 0 else "-1", PUSH_TRIGGERS[v % 2], PUSH_WHYS[v % len(PUSH_WHYS)],
             PUSH_OUTCOMES[v],
             str(1000 + v), "1100", "900", "600", "100", str(1000 * (v + 1)) if cost else "-1")
            for v in range(len(PUSH_OUTCOMES))]
    want.append(("10000000", "0", "599", "0", "-1", f"trigger_{len(PUSH_TRIGGERS)}",
                 f"why_{len(PUSH_WHYS)}", f"outcome_{len(PUSH_OUTCOMES)}",
                 "1", "2", "3", "4", "5", "7" if cost else "-1"))
    assert rows == want
    if cost:
        costs = re.findall(r"eas_push:.* cost_ns=(\d+)", reported_text(trace))
        assert costs == [r[-1] for r in rows]
    # trace-cmd names the same values; it prints one past a table in hex.
    line = re.compile(r"eas_push:\s+comm=\S+ pid=(\d+) src_cpu=\d+ dst_cpu=-?\d+ trigger=(\S+) "
                      r"why=(\S+) outcome=(\S+) ")
    named = [(pid, *(f"{k}_{int(v, 16)}" if v.startswith("0x") else v
                     for k, v in zip(("trigger", "why", "outcome"), vals)))
             for pid, *vals in line.findall(reported_text(trace))]
    assert named == [(r[2], r[5], r[6], r[7]) for r in rows]
    assert [(r["pid"], r["reason"]) for r in tables["decision"]] == [("600", "fewer_runnable")]
    # Every name of the formats' tables, whether it occurred or not, in value order.
    symbols = [(r["event"], r["field"], int(r["value"]), r["name"]) for r in tables["symbols"]]
    want = [("eas_placement_decision", "reason", v, n)
            for v, n in enumerate(["none", "spare_tie", "fewer_runnable"])]
    want += [("eas_push", f, v, n) for f, names in (("trigger", PUSH_TRIGGERS),
                                                   ("why", PUSH_WHYS),
                                                   ("outcome", PUSH_OUTCOMES))
             for v, n in enumerate(names)]
    assert sorted(symbols) == sorted(want)
    meta = {row["key"]: int(row["value"]) for row in tables["meta"]}
    assert (meta["events.eas_push"], meta["events.eas_migrate_reason"]) == \
        (len(PUSH_OUTCOMES) + 1, -1)


def test_reader_refuses_a_push_format_without_a_field_it_needs(tmp_path):
    """Only cost_ns is optional: an eas_push without another of its fields is a format
    the reader does not know, refused in one line."""
    t = TraceDat(1)
    fields = [f for f in PUSH_FIELDS if f[0] != "unsigned long uclamp_max"]
    t.event("eas", "eas_push", fields, '"pid=%d", REC->pid')
    t.add(0, 1_000_000, 500, "eas_push", "hog", 500, 0, -1, 0, 0, 0, 1, 2, 3, 4)
    out = tmp_path / "out"
    out.mkdir()
    r = run([READER, t.write(str(tmp_path / "trace.dat")), str(out)], timeout=60)
    assert r.returncode == 1 and r.stderr == ("eas-trace-reader: error: event eas:eas_push has "
                                              "no field 'uclamp_max' (unexpected kernel format)\n")
