"""The run's fidelity from the host (analysis/easan/fidelity.py): each vCPU's steal,
read from host-vcpu.tsv (guest/host/vcpu-sampler.c), on synthetic sample series
whose every number is worked out here; the sampler itself, and qemu-run.sh's
handling of it, against a fake QEMU (a Python process whose threads are named as
QEMU names its vCPU threads).

Series: samples every 10 ms, host times in ns. steal = delta(wait) / (delta(run) +
delta(wait)) over the window; busy when run + wait >= 0.2 x the window.
"""
import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pandas as pd
import pytest

from conftest import TOP, run
from contract import run_folder
from easan import fidelity
from easan.fidelity import (HostSamplesError, alignment, host_fidelity, host_file,
                            read_host_samples, steal)
from easlab import experiment_report
from easlab.synthetic_run import MS, Trace, make_run, write_em
from inprocess import metrics_of, read_text

PERIOD = 10 * MS
T0 = 5_000 * MS      # host time of the first sample


def series(n, rates, bursts=(), start=T0):
    """n samples from start: vCPU j's run grows rates[j][0] ms and its wait
    rates[j][1] ms per 10 ms; bursts: (sample i, vcpu j, ms) added to j's wait from
    sample i on (run_delay is charged when the thread finally runs)."""
    lines = []
    run_, wait = [0] * len(rates), [0] * len(rates)
    for i in range(n):
        if i:
            for j, (r, w) in enumerate(rates):
                run_[j] += round(r * MS)
                wait[j] += round(w * MS)
        for si, sj, ms in bursts:
            if si == i:
                wait[sj] += round(ms * MS)
        lines.append("sample\t" + "\t".join([str(start + i * PERIOD)]
                                            + [f"{r}\t{w}" for r, w in zip(run_, wait)]))
    return lines


def sample_file(path, lines, vcpus=(0, 1), marks=(), end=True):
    head = ["# host-vcpu.tsv: synthetic", f"qemu\t4242\t{PERIOD}"]
    head += [f"vcpu\t{c}\t{100 + c}" for c in vcpus]
    body = list(lines) + [f"mark\t{t}\t{name}" for t, name in marks]
    tail = [f"end\t{T0 + 10**10}\tqemu exited"] if end else []
    with open(path, "w", encoding="ascii") as f:
        f.write("\n".join(head + body + tail) + "\n")
    return str(path)


def prints(*rows):
    """A trace's print table with (ts, text) rows."""
    return pd.DataFrame({"ts": [t for t, _ in rows], "cpu": 0, "pid": 1,
                         "text": [x for _, x in rows]})


# vCPU 0: 6 ms run and 2 ms wait every 10 ms, and a 20 ms wait charged at sample 4
# (5.04 s); vCPU 1: 1 ms run, no wait (not busy).
BUSY_IDLE = series(11, [(6, 2), (1, 0)], bursts=[(4, 0, 20)])


def test_reads_the_sampler_format(tmp_path):
    path = sample_file(tmp_path / "host-vcpu.tsv", BUSY_IDLE, marks=[(T0 + 35 * MS, "replay-start")])
    s = read_host_samples(path)
    assert (s.pid, s.period_ns, s.vcpus) == (4242, PERIOD, [0, 1])
    assert len(s.t) == 11 and s.t[3] == T0 + 30 * MS
    assert s.run[10].tolist() == [60 * MS, 10 * MS]
    assert s.wait[10].tolist() == [40 * MS, 0]
    assert s.marks == {"replay-start": T0 + 35 * MS}
    assert s.end == (T0 + 10**10, "qemu exited") and s.error is None


def test_steal_over_a_window_by_hand(tmp_path):
    s = read_host_samples(sample_file(tmp_path / "h.tsv", BUSY_IDLE))
    # [5.02, 5.08] s: vCPU 0 ran 6 x 6 = 36 ms and waited 6 x 2 + 20 = 32 ms: wanted
    # 68 ms of 60 (busy 113 %), steal 32/68. vCPU 1 ran 6 ms, no wait: busy 10 %.
    per = steal(s, T0 + 20 * MS, T0 + 80 * MS)
    assert per[0] == {"steal": pytest.approx(32 / 68), "busy": pytest.approx(68 / 60),
                      "wanted_ns": 68 * MS, "wait_ns": 32 * MS}
    assert per[1] == {"steal": 0.0, "busy": pytest.approx(0.1), "wanted_ns": 6 * MS,
                      "wait_ns": 0}
    # Between samples the counters are interpolated: [5.015, 5.025] holds halves of
    # two periods of vCPU 0 (6 ms run, 2 ms wait), none of the burst; [5.035, 5.045]
    # half of it (5 + 1 + 10 + 1 ms of wait for 6 of run).
    assert steal(s, T0 + 15 * MS, T0 + 25 * MS)[0]["steal"] == pytest.approx(2 / 8)
    assert steal(s, T0 + 35 * MS, T0 + 45 * MS)[0]["steal"] == pytest.approx(12 / 18)
    # After the burst: 2 of 8 ms, at the limit, not above it.
    distorted, reason, busy, worst = fidelity.judge(steal(s, T0 + 50 * MS, T0 + 100 * MS))
    assert (distorted, busy, worst) == (False, [0], pytest.approx(0.25))
    assert reason == "steal of busy vCPUs at most 25% (CPU 0; limit 25%)"
    distorted, reason, busy, _ = fidelity.judge(steal(s, T0 + 20 * MS, T0 + 80 * MS))
    assert distorted is True and busy == [0]
    assert reason == "busy vCPUs waited for a host CPU: CPU 0 steal 47% (limit 25%)"


def test_a_vcpu_is_busy_from_a_fifth_of_the_window(tmp_path):
    # vCPU 0 wants 2 ms of every 10 (busy 20 %) and waits half of it; vCPU 1 wants
    # 1.9 ms (19 %) and waits all of it: only vCPU 0 is judged, and its 50 % distorts.
    s = read_host_samples(sample_file(tmp_path / "h.tsv", series(11, [(1, 1), (0, 1.9)])))
    per = steal(s, T0, T0 + 100 * MS)
    assert per[0]["busy"] == pytest.approx(0.2) and per[1]["busy"] == pytest.approx(0.19)
    distorted, reason, busy, worst = fidelity.judge(per)
    assert (distorted, busy, worst) == (True, [0], pytest.approx(0.5))
    # Neither busy: nothing to judge, not distorted.
    s = read_host_samples(sample_file(tmp_path / "i.tsv", series(11, [(1, 0.5), (0, 1.9)])))
    assert fidelity.judge(steal(s, T0, T0 + 100 * MS))[:3] == (
        False, "no vCPU wanted a host CPU for 20% of the window", [])


def test_alignment_offset_from_the_replay_marks(tmp_path):
    # The guest wrote "eas: replay start" at trace time 2.000 s and created the file;
    # the sample at 5.035 s saw it (so it appeared in the 5 ms before, on average):
    # offset = 5.035 s - 5 ms - 2.000 s. The end: marker 2.050 s, seen at 5.086 s, i.e.
    # 1 ms later than the start's offset says.
    path = sample_file(tmp_path / "h.tsv", BUSY_IDLE,
                       marks=[(T0 + 35 * MS, "replay-start"), (T0 + 86 * MS, "replay-end")])
    pr = prints((2_000 * MS, "eas: replay start"), (2_050 * MS, "eas: replay end"),
                (2_001 * MS, "something else"))
    offset, error = alignment(read_host_samples(path), "", pr)
    assert offset == T0 + 30 * MS - 2_000 * MS
    assert error == 1 * MS
    # Without the end marker there is no check; without the start, no alignment.
    assert alignment(read_host_samples(path), "", pr.iloc[[0]]) == (offset, None)
    assert alignment(read_host_samples(path), "", pr.iloc[[1]]) == (None, None)


def test_host_fidelity_maps_the_trace_window(tmp_path):
    # The marker at trace time 1.990 s, its file seen at 5.015 s (5.010 s less half a
    # period): offset 3.020 s, so the trace window [2.000, 2.060] s is host
    # [5.020, 5.080] s, and the burst inside it distorts the run.
    d = tmp_path / "run"
    d.mkdir()
    sample_file(d / run_folder.HOST_VCPU, BUSY_IDLE, marks=[(T0 + 15 * MS, "replay-start")])
    pr = prints((1_990 * MS, "eas: replay start"))
    f = host_fidelity(str(d), pr, 2_000 * MS, 2_060 * MS)
    assert f["source"] == "host" and f["aligned"] is True
    assert f["offset_ns"] == 3_020 * MS
    assert f["host_window_ns"] == [T0 + 20 * MS, T0 + 80 * MS]
    assert f["window_ns"] == [2_000 * MS, 2_060 * MS]
    assert f["per_cpu"]["0"]["steal"] == pytest.approx(32 / 68)
    assert f["busy_cpus"] == [0] and f["max_steal"] == pytest.approx(32 / 68)
    assert f["distorted"] is True and "CPU 0 steal 47%" in f["reason"]
    # The window after the burst: within the limit.
    f = host_fidelity(str(d), pr, 2_040 * MS, 2_070 * MS)
    assert f["host_window_ns"] == [T0 + 60 * MS, T0 + 90 * MS]
    assert f["distorted"] is False and f["max_steal"] == pytest.approx(0.25)


def test_unaligned_samples_cover_the_whole_run(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    sample_file(d / run_folder.HOST_VCPU, BUSY_IDLE)
    f = host_fidelity(str(d), prints(), 2_000 * MS, 2_060 * MS)
    # 0..100 ms: vCPU 0 ran 60 ms and waited 20 + 20 ms: 40/100.
    assert f["aligned"] is False and f["offset_ns"] is None
    assert f["host_window_ns"] == [T0, T0 + 100 * MS]
    assert f["per_cpu"]["0"]["steal"] == pytest.approx(0.4)
    assert f["distorted"] is True and f["reason"].endswith("(unaligned: over the whole run, no replay marks)")


def test_a_setups_replay_reads_the_boots_samples_and_its_own_marks(tmp_path):
    boot = tmp_path / "boot"
    replay = boot / "replays" / "02-push-on"
    replay.mkdir(parents=True)
    sample_file(boot / run_folder.HOST_VCPU, BUSY_IDLE,
                marks=[(T0 + 15 * MS, "replays/01-push-off/replay-start"),
                       (T0 + 55 * MS, "replays/02-push-on/replay-start")])
    assert host_file(str(replay)) == (str(boot / run_folder.HOST_VCPU), "replays/02-push-on/")
    assert host_file(str(boot)) == (str(boot / run_folder.HOST_VCPU), "")
    assert host_file(str(tmp_path)) == (None, None)
    # The second replay's own marker (trace 1.000 s) and mark (5.055 s): [1.005, 1.035] s
    # is host [5.055, 5.085] s, after the burst.
    f = host_fidelity(str(replay), prints((1_000 * MS, "eas: replay start")), 1_005 * MS, 1_035 * MS)
    assert f["aligned"] is True and f["host_window_ns"] == [T0 + 55 * MS, T0 + 85 * MS]
    assert f["per_cpu"]["0"]["steal"] == pytest.approx(0.25)


def test_runs_without_host_samples_are_not_measured(tmp_path):
    f = host_fidelity(str(tmp_path), prints(), 0, 100 * MS)
    assert (f["source"], f["distorted"], f["reason"]) == ("not measured", None, "no host samples")
    assert f["per_cpu"] == {} and f["max_steal"] is None


def test_a_sampler_error_is_not_measured(tmp_path):
    (tmp_path / run_folder.HOST_VCPU).write_text(
        "# host-vcpu.tsv\nerror\tcannot read /proc/1/task/2/schedstat: No such file or directory "
        "(a host kernel without CONFIG_SCHED_INFO?)\n")
    f = host_fidelity(str(tmp_path), prints(), 0, 100 * MS)
    assert f["distorted"] is None and f["source"] == "not measured"
    assert f["reason"] == ("not measured: host-vcpu.tsv: cannot read /proc/1/task/2/schedstat: "
                           "No such file or directory (a host kernel without CONFIG_SCHED_INFO?)")


@pytest.mark.parametrize("bad, line", [
    ("sample\t5000000000\t1\t2\t3\n", 5),                  # a vCPU's pair short
    ("sample\t5000000000\t1\t2\t3\tx\n", 5),               # not a number
    ("sample\t4000000000\t1\t2\t3\t4\n", 5),               # time going back
    ("vcpu\t2\t102\n", 5),                                 # a vCPU after the samples
    ("bogus\n", 5),
])
def test_a_malformed_file_is_one_line_naming_it_and_not_measured(tmp_path, bad, line):
    path = tmp_path / run_folder.HOST_VCPU
    text = "qemu\t1\t10000000\nvcpu\t0\t100\nvcpu\t1\t101\nsample\t4500000000\t0\t0\t0\t0\n" + bad
    path.write_text(text)
    with pytest.raises(HostSamplesError) as e:
        read_host_samples(str(path))
    msg = str(e.value)
    assert msg.startswith(f"{path}:{line}: not a line of the sampler's format: ") and "\n" not in msg
    f = host_fidelity(str(tmp_path), prints(), 0, 100 * MS)
    assert f["distorted"] is None and f["reason"] == f"not measured: {msg}"


def test_a_truncated_last_line_is_left_out(tmp_path):
    # The sampler killed while writing a line: the piece without its newline is not read.
    path = tmp_path / "h.tsv"
    sample_file(path, BUSY_IDLE, end=False)
    with open(path, "a", encoding="ascii") as f:
        f.write("sample\t5110000000\t66")
    s = read_host_samples(str(path))
    assert len(s.t) == 11 and s.end is None
    # Empty, or cut inside the header: no samples, not measured.
    for text in ("", "qemu\t12"):
        (tmp_path / run_folder.HOST_VCPU).write_text(text)
        f = host_fidelity(str(tmp_path), prints(), 0, 100 * MS)
        assert f["distorted"] is None and f["reason"] == "not measured: host-vcpu.tsv: 0 samples"


def test_samples_not_covering_the_window_are_not_measured(tmp_path):
    sample_file(tmp_path / run_folder.HOST_VCPU, BUSY_IDLE, marks=[(T0 + 5 * MS, "replay-start")])
    # Offset 5.000 s: [0.050, 0.250] s is host [5.050, 5.250] s; samples end at 5.100.
    f = host_fidelity(str(tmp_path), prints((0, "eas: replay start")), 50 * MS, 250 * MS)
    assert f["distorted"] is None and f["aligned"] is True
    assert f["reason"] == "not measured: host-vcpu.tsv: the samples cover 25% of the window"


# A synthetic run (easlab/synthetic_run.py) with a host file: the whole pipeline.

def steal_run(tmp_path, name, lines, marks):
    """Task a (pid 100) runs on CPU 0 over the window [1000, 1100) ms in 10 ms
    activations, the guest's replay marker at 990 ms; platform e:1:600,p:1:1024."""
    t = Trace()
    t.add("print", 990, cpu=0, pid=50, text="eas: replay start")
    t.marker(1000, 100, 0, "begin")
    t.run(0, 100, 1000, 1100)
    t.marker(1100, 100, 0, "end")
    logs = {0: [(20000, 10000, 1000 + 10 * i, 0) for i in range(10)]}
    d = make_run(str(tmp_path / name), t, {"a": 1}, "e:1:600,p:1:1024", logs,
                 comms={100: "a", 50: "sh"})
    write_em(d, [(600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])])
    sample_file(os.path.join(d, run_folder.HOST_VCPU), lines, marks=marks)
    return d


def test_the_metrics_and_the_report_carry_the_host_steal(tmp_path):
    # Host samples from 5.000 s every 10 ms; the mark at 5.005 s: offset 5.000 - 0.990 s,
    # so the window [1.000, 1.100] s is host [5.010, 5.110] s. vCPU 0 wants all its time
    # and waits half of it there (5 + 5 ms per 10); vCPU 1 idles.
    lines = series(13, [(5, 5), (0.5, 0)])
    d = steal_run(tmp_path, "steal", lines, marks=[(T0 + 5 * MS, "replay-start")])
    m = metrics_of(d)
    f = m["fidelity"]
    assert f["source"] == "host" and f["aligned"] is True
    assert f["offset_ns"] == T0 - 990 * MS
    assert f["window_ns"] == m["window_ns"] == [1000 * MS, 1100 * MS]
    assert f["host_window_ns"] == [T0 + 10 * MS, T0 + 110 * MS]
    assert f["per_cpu"]["0"] == {"steal": pytest.approx(0.5), "busy": pytest.approx(1.0),
                                 "wanted_ns": 100 * MS, "wait_ns": 50 * MS}
    assert f["per_cpu"]["1"]["busy"] == pytest.approx(0.05)
    assert f["busy_cpus"] == [0] and f["distorted"] is True
    assert f["reason"] == "busy vCPUs waited for a host CPU: CPU 0 steal 50% (limit 25%)"
    # The verdict is held back and says why; the speed diagnostic is there, no verdict.
    v = m["verdict"]
    assert v["verdict"] == "undecided"
    assert [c["detail"] for c in v["checks"] if c["name"] == "fidelity"] == [f["reason"]]
    assert f["speed"]["per_cpu"] == {"0": 2.0} and "distorted" not in f["speed"]
    report = read_text(os.path.join(d, "analysis", "report"), "report.md")
    assert ("Fidelity (the host's steal of busy vCPUs, busy from 20% of the window, limit 25%; "
            "aligned with the trace): busy vCPUs waited for a host CPU: CPU 0 steal 50% "
            "(limit 25%)") in report
    assert "| CPU0 (busy) | 100.0% | 50.0% |" in report
    assert "| CPU1 | 5.0% | 0.0% |" in report
    # Ten clean 10 ms runs of 20000 loops asked for 10 ms each: the work was on time.
    assert f["work"]["median"] == 1.0 and f["work"]["activations"] == 10
    assert ("Work diagnostic (not a verdict): run activations never preempted delivered 100% "
            "of their calibrated work per unit of time (median of 10; band 75%-133%)") in report
    # The same run without the host file: not measured, the verdict not held back.
    os.remove(os.path.join(d, run_folder.HOST_VCPU))
    m = metrics_of(d)
    assert m["fidelity"]["distorted"] is None and m["fidelity"]["reason"] == "no host samples"
    assert m["verdict"]["verdict"] != "undecided"
    assert "Fidelity: steal not measured (no host samples)" in read_text(
        os.path.join(d, "analysis", "report"), "report.md")


def test_the_speed_diagnostic_leaves_out_preempted_and_runtime_activations(tmp_path):
    # Task a's 10 activations of 10 ms; it is preempted (switched out runnable) at
    # 1035 ms, inside the fourth, which is left out (9 rows); the samples say nothing.
    t = Trace()
    t.marker(1000, 100, 0, "begin")
    t.run(0, 100, 1000, 1035, sleeping=False)
    t.run(0, 100, 1036, 1100)
    t.marker(1100, 100, 0, "end")
    logs = {0: [(20000, 10000, 1000 + 10 * i, 0) for i in range(10)]}
    d = make_run(str(tmp_path / "pre"), t, {"a": 1}, "e:1:600,p:1:1024", logs, comms={100: "a"})
    write_em(d, [(600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])])
    assert metrics_of(d)["fidelity"]["speed"]["activations"] == 9
    # A runtime task's perf/run is its share of the CPU, not a speed: none at all.
    d = make_run(str(tmp_path / "rt"), t, {"a": 1}, "e:1:600,p:1:1024", logs, comms={100: "a"},
                 keys={"a": {"runtime": 1000}})
    write_em(d, [(600, [104, 105, 106, 107]), (1024, [130, 131, 132, 133])])
    with open(os.path.join(d, "profile.json"), encoding="utf-8") as f:
        prof = json.load(f)
    del prof["tasks"]["a"]["run"]
    with open(os.path.join(d, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(prof, f)
    s = metrics_of(d)["fidelity"]["speed"]
    assert s["per_cpu"] == {} and s["note"].startswith("0 clean run activations")


def test_the_experiment_index_sums_up_steal_per_group():
    exp = SimpleNamespace(profiles=["p"], profile_name=lambda p: p, groups={"a": {}, "b": {}})

    def m(busy, per_cpu, source="host", work=None):
        w = {"median": work, "off_band": None if work is None else not 0.75 <= work <= 4 / 3}
        return {"fidelity": {"source": source, "busy_cpus": busy, "work": w,
                             "per_cpu": {str(c): {"steal": s, "busy": 0.9} for c, s in per_cpu.items()}}}
    by = {"p": {"a": [m([0, 1], {0: 0.1, 1: 0.3, 2: 0.9}, work=0.5), m([0], {0: 0.2}, work=0.9)],
                "b": [m([], {}, "not measured")]}}
    rows = experiment_report.steal_summary(exp, by)
    # a: busy vCPUs' steal 0.1, 0.3, 0.2 (CPU 2 of the first run is not busy).
    # Work: runs at 0.5 (off the band) and 0.9, median 0.7.
    assert rows[0] == {"profile": "p", "group": "a", "runs": 2, "measured": 2, "busy_vcpus": 3,
                       "median": pytest.approx(0.2), "max": pytest.approx(0.3),
                       "work": pytest.approx(0.7), "work_runs": 2, "work_off": 1}
    assert rows[1] == {"profile": "p", "group": "b", "runs": 1, "measured": 0, "busy_vcpus": 0,
                       "median": None, "max": None, "work": None, "work_runs": 0, "work_off": 0}
    html = "\n".join(experiment_report.steal_section(rows))
    assert "<td>2 of 2</td><td>3</td><td>20.0%</td><td>30.0%</td><td>70.0% (2)</td><td>1</td>" in html
    assert "<td>0 of 1</td><td>0</td><td>n/a</td><td>n/a</td><td>n/a (0)</td><td>0</td>" in html


# The shell side: the guest's markers, and the sampler against a fake QEMU.

def test_the_guest_writes_the_contracts_marker_and_files():
    with open(os.path.join(TOP, "guest", "vm", "vm-lib.sh"), encoding="utf-8") as f:
        lib = f.read()
    assert f'REPLAY_MARKER_PREFIX="{run_folder.REPLAY_MARKER}"' in lib
    assert ': > "$2/replay-$1"' in lib
    assert {run_folder.REPLAY_START, run_folder.REPLAY_END} == {"replay-start", "replay-end"}
    assert 'replay_mark start "$_out"' in lib and 'replay_mark end "$_out"' in lib
    with open(os.path.join(TOP, "guest", "host", "qemu-run.sh"), encoding="utf-8") as f:
        qemu_run = f.read()
    assert "-m replay-start -m replay-end" in qemu_run
    assert f"samples=$share/{run_folder.HOST_VCPU}" in qemu_run


# A fake qemu-system-x86_64: threads named "CPU N/TCG" (-smp N), its pid in -pidfile,
# CPU 0 spinning; it exits after FAKE_QEMU_S seconds (or when killed), its threads
# with it, having created FAKE_QEMU_MARK in the share after 0.2 s when set.
FAKE_QEMU = r'''#!/usr/bin/python3
import os, sys, threading, time
args = sys.argv[1:]
n = int(args[args.index("-smp") + 1])
pidfile = args[args.index("-pidfile") + 1]
stop = time.monotonic() + float(os.environ.get("FAKE_QEMU_S", "0.6"))
def vcpu(i):
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as f:
        f.write(f"CPU {i}/TCG")
    while True:
        if i:
            time.sleep(0.005)
threads = [threading.Thread(target=vcpu, args=(i,), daemon=True) for i in range(n)]
for t in threads:
    t.start()
time.sleep(0.05)
with open(pidfile, "w") as f:
    f.write(f"{os.getpid()}\n")
if os.environ.get("FAKE_QEMU_MARK"):
    time.sleep(0.2)
    open(os.environ["FAKE_QEMU_MARK"], "w").close()
time.sleep(max(stop - time.monotonic(), 0))
os._exit(0)
'''


@pytest.fixture(name="fake_qemu")
def fixture_fake_qemu(tmp_path):
    """(env for qemu-run.sh with the fake QEMU first on PATH and a BUILD of its own, a
    kernel image, a share)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "qemu-system-x86_64").write_text(FAKE_QEMU)
    (bindir / "qemu-system-x86_64").chmod(0o755)
    build = tmp_path / "build"
    build.mkdir()
    (build / "initramfs.cpio.gz").write_text("")
    image = tmp_path / "bzImage"
    image.write_text("")
    share = tmp_path / "share"
    share.mkdir()
    env = {"PATH": f"{bindir}:{os.environ['PATH']}", "BUILD": str(build), "ACCEL": "tcg",
           "CPUS": "2"}
    return env, str(image), share


def sampler_processes(out):
    """Pids of vcpu-samplers writing out."""
    pids = []
    for p in os.listdir("/proc"):
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"vcpu-sampler") and str(out).encode() in argv:
            pids.append(int(p))
    return pids


def test_qemu_run_samples_the_vcpus_and_stops_the_sampler(fake_qemu):
    env, image, share = fake_qemu
    env["FAKE_QEMU_MARK"] = str(share / "replay-start")
    r = run([os.path.join(TOP, "guest", "host", "qemu-run.sh"), image, str(share)], env=env,
            timeout=120)
    assert r.returncode == 0, r.stderr
    out = share / run_folder.HOST_VCPU
    s = read_host_samples(str(out))
    assert s.error is None and s.vcpus == [0, 1] and s.period_ns == 5 * MS
    assert len(s.t) > 20, len(s.t)
    assert s.end is not None and s.end[1] == "qemu exited"
    assert list(s.marks) == ["replay-start"] and s.t[0] < s.marks["replay-start"] <= s.t[-1]
    # The spinning vCPU wanted more of the host than the sleeping one.
    per = steal(s, int(s.t[0]), int(s.t[-1]))
    assert per[0]["busy"] > per[1]["busy"], per
    args = (share / "qemu-args.txt").read_text().splitlines()
    assert args[args.index("-name") + 1] == "eas,debug-threads=on"
    assert "-pidfile" in args
    assert not sampler_processes(out)
    # Built once into BUILD/host-bin by host-lib.sh's build_helper.
    assert os.access(os.path.join(env["BUILD"], "host-bin", "vcpu-sampler"), os.X_OK)


def test_the_timeout_path_stops_the_sampler_too(fake_qemu):
    env, image, share = fake_qemu
    env.update({"FAKE_QEMU_S": "600", "TIMEOUT": "2"})
    r = run([os.path.join(TOP, "guest", "host", "qemu-run.sh"), image, str(share)], env=env,
            timeout=120)
    assert r.returncode == 124, r.stderr
    assert (share / "timeout").exists()
    out = share / run_folder.HOST_VCPU
    s = read_host_samples(str(out))
    assert s.end is not None and s.end[1] in ("qemu exited", "stopped"), s.end
    assert not sampler_processes(out)


def build_sampler(tmp_path):
    r = subprocess.run(["bash", "-c", '. guest/host/host-lib.sh && build_helper '
                        'guest/host/vcpu-sampler.c "$BUILD/host-bin/vcpu-sampler"'],
                       cwd=TOP, env={**os.environ, "BUILD": str(tmp_path)}, capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stderr
    return str(tmp_path / "host-bin" / "vcpu-sampler")


def test_the_sampler_says_when_it_could_not_sample(tmp_path):
    sampler = build_sampler(tmp_path)
    # No pid ever: stopped by its runner, one error line.
    out = tmp_path / "a.tsv"
    p = subprocess.Popen([sampler, "-p", str(tmp_path / "nopid"), "-o", str(out), "-n", "2"])
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=10) == 0
    assert out.read_text().splitlines()[-1] == f"error\tstopped before QEMU's pid appeared in {tmp_path}/nopid"
    assert read_host_samples(str(out)).error.startswith("stopped before")
    # A process without vCPU threads that exits: no vCPU thread found.
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    (tmp_path / "pid").write_text(f"{proc.pid}\n")
    out = tmp_path / "b.tsv"
    r = subprocess.run([sampler, "-p", str(tmp_path / "pid"), "-o", str(out), "-n", "2"],
                       timeout=30, check=False)
    proc.wait()
    assert r.returncode == 0
    assert read_host_samples(str(out)).error == (
        f"no vCPU thread named 'CPU N/...' in QEMU pid {proc.pid} (QEMU started without "
        "-name ...,debug-threads=on?)")
    # A bad command line: usage, status 2.
    r = subprocess.run([sampler, "-o", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and r.stderr.startswith("usage: vcpu-sampler")


def test_unaligned_clean_run_is_not_judged(tmp_path):
    # Without replay marks the steal is over the whole run, which idle time dilutes:
    # a low figure there proves nothing, so the run is not judged (distorted None),
    # while a high one still flags it (above).
    d = tmp_path / "run"
    d.mkdir()
    sample_file(d / run_folder.HOST_VCPU, series(11, [(9, 1), (1, 0)]))
    f = host_fidelity(str(d), prints(), 2_000 * MS, 2_060 * MS)
    assert f["aligned"] is False and f["per_cpu"]["0"]["steal"] == pytest.approx(0.1)
    assert f["distorted"] is None and f["reason"].endswith("(unaligned: over the whole run, no replay marks)")
