"""The trace tables' schema, declared once in the C reader: its --schema, the
tables it writes (CSV and --binary), the analysis's loader (easan.tables) and the
synthetic runs (synth) all agree; lost events are counted from libtracecmd's
missed-events callback."""
import csv
import json
import os

import numpy as np
import pandas as pd
import pytest

from conftest import BUILD, run
from easlab.synthetic_run import Trace, TraceDat, make_run
from test_trace_reader import FIXTURE, SPARE_TIE_FIXTURE, enum_reasons_trace, push_trace, unpacked

from easan import tables
from easan.errors import AnalysisError

READER = os.path.join(BUILD, "analysis", "eas-trace-reader")


@pytest.fixture(name="schema", scope="module")
def fixture_schema():
    r = run([READER, "--schema"], timeout=10)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_schema_names_each_table_and_column_once(schema):
    names = [t["name"] for t in schema["tables"]]
    assert len(names) == len(set(names)) and {"switch", "migrate", "meta"} <= set(names)
    for t in schema["tables"]:
        cols = [c["name"] for c in t["columns"]]
        assert cols and len(cols) == len(set(cols)), t["name"]
        assert {c["type"] for c in t["columns"]} <= {"int", "name", "text"}, t["name"]
        assert t["doc"], t["name"]
    # What the loader reads is what the reader says.
    assert tables.schema() == schema


def reader_tables(trace, out, *flags):
    os.makedirs(out)
    r = run([READER, *flags, trace, out], timeout=120)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(name="traces", scope="module")
def fixture_traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("traces")
    return {"stuck-hog": unpacked(FIXTURE, tmp_path_factory),
            "spare-tie": unpacked(SPARE_TIE_FIXTURE, tmp_path_factory),
            "enum-reasons": enum_reasons_trace(str(d / "enum.dat")),
            "push": push_trace(str(d / "push.dat")),
            "push-no-cost": push_trace(str(d / "push-no-cost.dat"), cost=False)}


@pytest.mark.parametrize("name", ["stuck-hog", "spare-tie", "enum-reasons", "push",
                                  "push-no-cost"])
def test_binary_tables_are_the_csv_ones(name, traces, schema, tmp_path):
    """Every table in the schema's columns, in both formats, with the same values:
    the CSV read as the analysis read it before the binary tables."""
    csv_dir = reader_tables(traces[name], str(tmp_path / "csv"))
    bin_dir = reader_tables(traces[name], str(tmp_path / "bin"), "--binary")
    cols = tables.columns(schema)
    assert sorted(os.listdir(csv_dir)) == sorted(f"{t}.csv" for t in cols)
    assert sorted(os.listdir(bin_dir)) == sorted([f"{t}.npy" for t in cols]
                                                 + ["strings.bin", "schema.json"])
    with open(os.path.join(bin_dir, "schema.json"), encoding="utf-8") as f:
        assert json.load(f) == schema
    loaded = tables.load(bin_dir)
    assert list(loaded) == list(cols)
    for t in schema["tables"]:
        with open(os.path.join(csv_dir, f"{t['name']}.csv"), encoding="utf-8") as f:
            assert next(csv.reader(f)) == cols[t["name"]]
        strings = {c["name"]: str for c in t["columns"] if c["type"] != "int"}
        want = pd.read_csv(os.path.join(csv_dir, f"{t['name']}.csv"), dtype=strings,
                           keep_default_na=False)
        got = loaded[t["name"]]
        assert list(got.columns) == cols[t["name"]]
        assert all(got[c].dtype == (object if c in strings else np.int64) for c in got)
        if len(want):
            pd.testing.assert_frame_equal(got, want)
        else:
            assert got.empty


def test_synthetic_runs_are_in_the_schema(schema, tmp_path):
    """synth writes what the loader reads, in the reader's columns; a column the
    reader does not have is refused."""
    t = Trace()
    assert set(t.rows) == set(tables.columns(schema))
    t.run(0, 100, 1, 2)
    t.wakeup(0.5, 100, 0)
    t.migrate(0.6, 100, 1, 0, "wakeup")
    t.util(1, 100, 0, 50)
    t.util_est(1, 100, 0, 40, 50)
    t.push(1, 100, 0, 1, "tick", "stuck_capacity", "pushed", cost_ns=1500)
    t.marker(1, 100, 0, "begin")
    t.delayed(1, 100, 0)
    t.decision(1, 100, 0, 1, "spare_tie")
    d = make_run(str(tmp_path / "run"), t, {"a": 1}, "e:2:600", {}, comms={100: "a, \"b\""})
    loaded = tables.load(tables.extract(d))
    assert {k: list(v.columns) for k, v in loaded.items()} == tables.columns(schema)
    assert loaded["comm"].to_dict("records") == [{"pid": 100, "comm": 'a, "b"'}]
    assert loaded["push"][["outcome", "cost_ns"]].values.tolist() == [["pushed", 1500]]
    t.add("switch", 3, cpu=0, prev_pid=0, prev_state=0, next_pid=100, next_comm="a")
    with pytest.raises(ValueError, match="the reader's are"):
        make_run(str(tmp_path / "bad"), t, {"a": 1}, "e:2:600", {})


def test_loader_refuses_a_table_off_the_schema(tmp_path):
    d = str(tmp_path / "tables")
    tables.write(d, {"switch": [{"ts": 1, "cpu": 0, "prev_pid": 0, "prev_state": 0,
                                 "next_pid": 5}]})
    np.save(os.path.join(d, "switch.npy"), np.zeros(1, dtype=[("ts", "<i8"), ("cpu", "<i8")]))
    loaded = tables.load(d)  # tables are read when first used
    with pytest.raises(AnalysisError, match=r"switch.npy: columns \('ts', 'cpu'\)"):
        loaded["switch"]  # pylint: disable=pointless-statement


def test_lost_events_are_counted(tmp_path):
    """A page that says how many events were lost before it adds them to
    missed_events; one that does not know counts in missed_unknown."""
    t = TraceDat(2)
    t.event("eas", "eas_overutilized", [("unsigned long span", "Q"), ("bool overutilized", "B")],
            '"span=0x%lx overutilized=%d", REC->span, REC->overutilized')
    for i in range(10):
        t.add(i % 2, (i + 1) * 1_000_000, 0, "eas_overutilized", 3, i % 2)
    t.lost(0, 5_000_000, 42)
    t.lost(1, 8_000_000)
    trace = t.write(str(tmp_path / "lost.dat"))
    report = run(["trace-cmd", "report", "-i", trace], timeout=60).stdout
    assert "CPU:0 [42 EVENTS DROPPED]" in report and "CPU:1 [EVENTS DROPPED]" in report
    meta = tables.meta(tables.load(reader_tables(trace, str(tmp_path / "t"), "--binary")))
    assert (meta["records"], meta["missed_events"], meta["missed_unknown"]) == (10, 42, 1)
    assert meta["events.eas_overutilized"] == 10 and meta["events.sched_switch"] == -1


def test_truncated_trace_gives_one_line_and_no_tables(traces, tmp_path):
    with open(traces["stuck-hog"], "rb") as f:
        data = f.read()
    for size in (len(data) // 2, len(data) - 5000):
        cut = tmp_path / f"cut-{size}.dat"
        cut.write_bytes(data[:size])
        out = tmp_path / f"out-{size}"
        out.mkdir()
        r = run([READER, "--binary", str(cut), str(out)], timeout=60)
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith("eas-trace-reader: error: ")
    r = run([READER, "--binary"], timeout=10)
    assert r.returncode == 2 and "usage" in r.stderr
