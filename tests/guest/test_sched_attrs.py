"""A profile's util_min/util_max/slice_us are in force before each thread's first
event (the LD_PRELOAD shim), proved from the trace and from /proc/<tid>/sched."""
import csv
import os
import re

import pytest

from conftest import BUILD, TOP, guest_run, run

READER = os.path.join(BUILD, "analysis", "eas-trace-reader")


def replay(profile, tmp_path):
    run_dir = guest_run(f"{TOP}/rt-app-profiles/{profile}.json", runs=tmp_path / "runs")
    tables = tmp_path / "tables"
    tables.mkdir()
    assert run([READER, os.path.join(run_dir, "trace.dat"), str(tables)], timeout=120).returncode == 0
    rows = []
    for name in ("print.csv", "markers.csv"):
        with open(tables / name, encoding="utf-8") as f:
            rows += list(csv.DictReader(f))
    return run_dir, sorted(rows, key=lambda r: int(r["ts"]))


def attrs_before_first_event(rows):
    """{pid: {'util_min', 'util_max', 'slice_ns'}} of threads whose shim marker
    precedes their first rt-app "begin" marker; fails otherwise."""
    seen, first_event = {}, {}
    for p in rows:
        m = re.match(r"eas-sched-attrs: util_min=(\d+) util_max=(\d+) slice_ns=(\d+)", p.get("text", ""))
        if m:
            assert p["pid"] not in first_event, f"pid {p['pid']}: attributes set after its first event"
            seen[p["pid"]] = dict(zip(("util_min", "util_max", "slice_ns"), map(int, m.groups())))
        elif p.get("kind") == "begin":
            first_event.setdefault(p["pid"], p["ts"])
    return seen, first_event


def proc_sched(run_dir):
    """{tid: {field: value}} from the guest's /proc/<tid>/sched snapshot."""
    out, tid = {}, None
    with open(os.path.join(run_dir, "proc-sched.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("== "):
                tid = line.split()[2]
                out[tid] = {}
            elif ":" in line:
                key, value = line.split(":", 1)
                out[tid][key.strip()] = int(float(value))
    return out


def base_slice_ns(run_dir):
    with open(os.path.join(run_dir, "sched_debug.txt"), encoding="utf-8") as f:
        ms = float(re.search(r"sysctl_sched_base_slice\s*:\s*([\d.]+)", f.read()).group(1))
    return round(ms * 1e6)


@pytest.mark.parametrize("profile", ["capped-hogs", "short-slice"])
def test_attributes_precede_the_first_event(profile, tmp_path):
    run_dir, prints = replay(profile, tmp_path)
    seen, first = attrs_before_first_event(prints)
    procs = proc_sched(run_dir)
    if profile == "capped-hogs":
        # Eight capped threads; uclamp only: the slice stays the default one.
        assert len(seen) == 8 and set(seen) <= set(first)
        assert all(a == {"util_min": 0, "util_max": 100, "slice_ns": base_slice_ns(run_dir)}
                   for a in seen.values()), seen
        assert len(procs) == 8
        assert all(p["uclamp.max"] == 100 and p["se.slice"] == base_slice_ns(run_dir)
                   for p in procs.values()), procs
    else:
        assert len(seen) == 1 and set(seen) <= set(first)
        assert list(seen.values())[0]["slice_ns"] == 300000
        assert [p["se.slice"] for p in procs.values()] == [300000]
