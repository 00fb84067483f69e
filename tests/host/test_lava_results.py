"""A lab run's folder back from its console log (analysis/easan/lava.py results(),
guest/vm/init's send_results): the folder as guest/vm/init packs it, in plain console
text and in LAVA's raw log, restored byte for byte; a log cut short, a corrupt
block or an existing destination give one clear error and write nothing; the
restored folder is judged by guest/host/finish-run.sh as run.sh judges its own."""
import base64
import hashlib
import io
import json
import os
import tarfile

import pytest

from conftest import TOP, run

from easlab import lava

SWEEP = os.path.join(TOP, "analysis", "sweep")
FILES = {"guest/job-status": "0\n", "guest/job.sh": "true\n", "profile.json": "{}\n",
         "kernel.json": json.dumps({"kernel": "patched", "kconfig": "default"}) + "\n",
         "trace.dat": "x" * 5000 + "\n"}


def packed(files, status="0\n"):
    """The block guest/vm/init writes: a tar.gz of the run folder in base64 lines of 76."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in {**files, "guest/job-status": status}.items():
            data = text.encode()
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buf.getvalue()
    b64 = base64.b64encode(data).decode()
    lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
    return ([f"guest-init: results begin {len(data)} bytes tar.gz base64"] + lines
            + [f"guest-init: results end md5 {hashlib.md5(data).hexdigest()}"])


def console(block):
    return (["[    0.000000] Linux version 6.12", "guest-init: no 9p share: running the run "
             "folder of the ramdisk", "guest-init: running job profile.sh"] + block
            + ["guest-init: job exited with status 0", "[   12.0] reboot: Power down"])


def lava_raw(lines):
    """LAVA's raw log: one YAML flow mapping per line; console lines at level target."""
    out = ['- {"dt": "2026-12-05T20:00:00.000000", "lvl": "info", "msg": "start: 1 tmpfs"}']
    out += ['- ' + json.dumps({"dt": "2026-12-05T20:00:01.000000", "lvl": "target", "msg": l})
            for l in lines]
    out.append('- {"dt": "2026-12-05T20:00:02.000000", "lvl": "results", "msg": {"case": "job"}}')
    return out


@pytest.mark.parametrize("fmt", ["console", "lava-raw"])
def test_results_restore_the_folder(tmp_path, fmt):
    lines = console(packed(FILES))
    if fmt == "lava-raw":
        lines = lava_raw(lines)
    log = tmp_path / "job.log"
    log.write_text("\r\n".join(lines) + "\r\n")
    out = lava.results(str(log), str(tmp_path / "run"))
    for name, text in FILES.items():
        with open(os.path.join(out, name), encoding="utf-8") as f:
            assert f.read() == text, name
    with open(os.path.join(out, "console.log"), encoding="utf-8") as f:
        con = f.read()
    # The console without the block: what scan-log.sh and the reader of dmesg read.
    assert "reboot: Power down" in con and "results begin" not in con
    assert "H4sI" not in con   # the gzip magic in base64 starts every block


def test_a_kernel_line_inside_the_block_is_skipped(tmp_path):
    block = packed(FILES)
    block.insert(3, "[    5.1] sched: RT throttling activated")
    log = tmp_path / "job.log"
    log.write_text("\n".join(console(block)))
    out = lava.results(str(log), str(tmp_path / "run"))
    assert os.path.getsize(os.path.join(out, "trace.dat")) == 5001


@pytest.mark.parametrize("cut, message", [
    (lambda b: [], "no run folder in this log"),
    (lambda b: b[:-1], "cut short"),
    (lambda b: b[:2] + b[3:], "corrupt"),
    (lambda b: b[:2] + [b[2][:-4] + "AAAA"] + b[3:], "corrupt"),
])
def test_bad_logs_are_refused_and_write_nothing(tmp_path, cut, message):
    log = tmp_path / "job.log"
    log.write_text("\n".join(console(cut(packed(FILES)))))
    with pytest.raises(ValueError, match=message):
        lava.results(str(log), str(tmp_path / "run"))
    assert sorted(os.listdir(tmp_path)) == ["job.log"]


def test_an_existing_destination_is_left_alone(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("\n".join(console(packed(FILES))))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "keep").write_text("mine")
    with pytest.raises(ValueError, match="exists"):
        lava.results(str(log), str(tmp_path / "run"))
    assert os.listdir(tmp_path / "run") == ["keep"]


@pytest.mark.parametrize("status, rc, verdict", [("0\n", 0, "ok"), ("3\n", 1, "job-failed")])
def test_lava_results_cli_judges_the_folder(tmp_path, status, rc, verdict):
    log = tmp_path / "job.log"
    log.write_text("\n".join(console(packed(FILES, status))))
    r = run([SWEEP, "lava-results", str(log), "--out", str(tmp_path / "run")])
    assert r.returncode == rc, r.stderr
    with open(tmp_path / "run" / "run.json", encoding="utf-8") as f:
        assert json.load(f)["status"] == verdict
    if rc:
        assert r.stderr.strip().endswith("(see " + str(tmp_path / "run") + "/console.log, "
                                         + str(tmp_path / "run") + "/rt-app.stdout)"), r.stderr


def test_lava_results_cli_error_is_one_line(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("guest-init: running job profile.sh\n")
    r = run([SWEEP, "lava-results", str(log), "--out", str(tmp_path / "run")])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "no run folder in this log" in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()
