"""The C trace reader on real guest traces, checked against trace-cmd's own report of
the same file: stuck-hog on the patched kernel, and 100 ms of many-small under the
v0.21 layout with EAS_SPARE_TIE on (cut with trace-cmd split), for the string field
of eas_placement_decision."""
import collections
import csv
import gzip
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, TOP, run

FIXTURE = os.path.join(TOP, "tests", "fixtures", "stuck-hog.trace.dat.gz")
READER = os.path.join(BUILD, "analysis", "eas-trace-reader")


SPARE_TIE_FIXTURE = os.path.join(TOP, "tests", "fixtures", "spare-tie.trace.dat.gz")


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


def test_placement_decisions_match_trace_cmd(tmp_path_factory):
    trace = unpacked(SPARE_TIE_FIXTURE, tmp_path_factory)
    tables = read_tables(trace, tmp_path_factory)
    line = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+): eas_placement_decision: comm=\S+ pid=(\d+)"
                      r" src_cpu=(\d+) dst_cpu=(\d+) reason=(\w+)")
    # trace-cmd prints microseconds, rounded, and the CPU zero-padded.
    want = [(int(sec) * 1_000_000 + int(us), str(int(cpu)), pid, src, dst, reason)
            for cpu, sec, us, pid, src, dst, reason in line.findall(reported_text(trace))]
    got = [(round(int(r["ts"]) / 1000), r["cpu"], r["pid"], r["src_cpu"], r["dst_cpu"],
            r["reason"]) for r in tables["decision"]]
    assert len(want) == 18 and got == want
    # Each tie moves the task at that wakeup: the migration that follows goes src -> dst.
    for r in tables["decision"]:
        after = [m for m in tables["migrate"]
                 if m["pid"] == r["pid"] and int(m["ts"]) >= int(r["ts"])][0]
        assert (after["orig_cpu"], after["dest_cpu"], after["reason"]) == \
            (r["src_cpu"], r["dst_cpu"], "wakeup")
