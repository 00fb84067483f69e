"""The guest's LD_PRELOAD shim (guest/vm/helpers/eas-sched-attrs.c), built and run on the
host: its file format and the uclamp_change helper thread. Its markers go to a file
(EAS_SCHED_ATTRS_MARKER), never to the host's trace_marker. A host kernel without
uclamp refuses the clamps (tests/guest/test_push.py sees them take effect in a guest)."""
import os
import re
import subprocess
import textwrap

import pytest

from conftest import TOP

SRC = os.path.join(TOP, "guest", "vm", "helpers", "eas-sched-attrs.c")
# Threads named NAME that live SECONDS, given as NAME:SECONDS; prints the names of
# the process's threads 60 ms after they start.
SCRIPT = textwrap.dedent("""\
    import ctypes, os, sys, threading, time
    libc = ctypes.CDLL(None)
    libc.pthread_self.restype = ctypes.c_ulong
    libc.pthread_setname_np.argtypes = [ctypes.c_ulong, ctypes.c_char_p]
    def body(name, live):
        libc.pthread_setname_np(libc.pthread_self(), name.encode())
        time.sleep(live)
    ts = [threading.Thread(target=body, args=(n, float(l)))
          for n, l in (a.split(":") for a in sys.argv[1:])]
    for t in ts:
        t.start()
    time.sleep(0.06)
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/comm") as f:
            print("comm", f.read().strip())
    for t in ts:
        t.join()
    time.sleep(0.3)
    """)


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    out = tmp_path_factory.mktemp("shim") / "eas-sched-attrs.so"
    # The flags guest/host/initramfs.sh builds it with.
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o",
                    str(out), SRC, "-ldl"], check=True)
    return out


def replay(tmp_path, shim, lines, *threads):
    attrs = tmp_path / "attrs.txt"
    attrs.write_text(lines)
    (tmp_path / "script.py").write_text(SCRIPT)
    markers = tmp_path / "markers.txt"
    env = {**os.environ, "LD_PRELOAD": str(shim), "EAS_SCHED_ATTRS": str(attrs),
           "EAS_SCHED_ATTRS_MARKER": str(markers)}
    r = subprocess.run(["/usr/bin/python3", str(tmp_path / "script.py"), *threads], env=env,
                       capture_output=True, text=True, timeout=60, check=False)
    lines = markers.read_text().splitlines() if markers.exists() else []
    return r, lines


def test_old_four_column_lines_still_work(tmp_path, shim):
    r, marks = replay(tmp_path, shim, "a -1 -1 2000\n", "a:0.01", "other:0.01")
    assert r.returncode == 0, r.stderr
    # Only the named thread is set: the default slice replaced by a 2 ms one.
    assert len(marks) == 1, marks
    assert re.fullmatch(r"eas-sched-attrs: util_min=0 util_max=\d+ slice_ns=2000000", marks[0])


def test_change_of_a_thread_that_ended_is_skipped(tmp_path, shim):
    r, marks = replay(tmp_path, shim, "short -1 -1 -1 50 -1 100\n", "short:0.01")
    assert r.returncode == 0, r.stderr
    assert len(marks) == 2, marks
    assert marks[0].startswith("eas-sched-attrs: util_min=")
    assert re.fullmatch(r"eas-sched-attrs: pid=\d+ gone", marks[1]), marks


def test_change_is_made_in_a_helper_thread(tmp_path, shim):
    r, marks = replay(tmp_path, shim, "long -1 -1 -1 100 -1 100\n", "long:0.4")
    # The helper is named eas-attrs, not after the task (the analysis and the
    # per-task trace filters go by the task's name).
    comms = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("comm ")]
    assert comms.count("long") == 1 and comms.count("eas-attrs") == 1, comms
    if r.returncode == 0:
        # A kernel with uclamp: the change took effect and was read back.
        assert re.fullmatch(r"eas-sched-attrs: pid=\d+ util_min=0 util_max=100 slice_ns=\d+",
                            marks[1]), marks
    else:
        # Without uclamp (CONFIG_UCLAMP_TASK off) the change fails and stops the
        # process, as a failed first setattr does, naming the task.
        assert r.returncode == 3, (r.returncode, r.stderr)
        assert "eas-sched-attrs: long: " in r.stderr
        assert len(marks) == 1, marks


def test_malformed_line_stops_the_process(tmp_path, shim):
    r, _ = replay(tmp_path, shim, "a -1 -1 -1 50\n", "a:0.01")
    assert r.returncode == 3
    assert "malformed line" in r.stderr
