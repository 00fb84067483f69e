"""A run as a LAVA lab's QEMU device boots it, end to end on this machine: the run
folder of guest/host/run.sh --prepare-only in a per-run ramdisk (guest/host/lava-ramdisk.sh),
a boot without the 9p share (qemu-run.sh VIRTFS=0, the kernel and ramdisk as a
lab deploys them), the folder sent back over the console (guest/vm/init), restored
from the console log by analysis/sweep lava-results and analysed like any run."""
import json
import os

from conftest import BUILD, TOP, run

PLATFORM = "e:4:600,p:2:1024"


def test_a_ramdisk_run_comes_back_over_the_console(tmp_path):
    prep = run([os.path.join(TOP, "guest", "host", "run.sh"), "--prepare-only",
                os.path.join(TOP, "rt-app-profiles", "smoke.json"), "patched"],
               env={"RUNS": str(tmp_path / "prepared"), "PLATFORM": PLATFORM}, timeout=120)
    assert prep.returncode == 0, prep.stderr
    folder = prep.stdout.strip().splitlines()[-1]
    # Prepared, not booted: the job's inputs and nothing a guest writes.
    assert os.path.isfile(os.path.join(folder, "guest", "job.sh"))
    assert not os.path.exists(os.path.join(folder, "trace.dat"))
    assert not os.path.exists(os.path.join(folder, "run.json"))

    ramdisk = tmp_path / "ramdisk.cpio.gz"
    r = run([os.path.join(TOP, "guest", "host", "lava-ramdisk.sh"), folder, str(ramdisk)])
    assert r.returncode == 0, r.stderr
    lab = tmp_path / "lab"
    lab.mkdir()
    r = run([os.path.join(TOP, "guest", "host", "qemu-run.sh"),
             os.path.join(BUILD, "kernels", "patched", "bzImage"), str(lab)],
            env={"VIRTFS": "0", "INITRD": str(ramdisk), "CPUS": "6", "TIMEOUT": "300",
                 "CMDLINE": f"sched_verbose hybrid_sim={PLATFORM}"}, timeout=400)
    assert r.returncode == 0, r.stderr
    with open(lab / "qemu-args.txt", encoding="utf-8") as f:
        assert "-virtfs" not in f.read()

    back = tmp_path / "back"
    r = run([os.path.join(TOP, "analysis", "sweep"), "lava-results", str(lab / "console.log"),
             "--out", str(back)])
    assert r.returncode == 0, r.stderr
    with open(back / "run.json", encoding="utf-8") as f:
        assert json.load(f)["status"] == "ok"
    assert os.path.getsize(back / "trace.dat") > 0
    rep = run([os.path.join(TOP, "analysis", "report"), str(back)], timeout=300)
    assert rep.returncode == 0, rep.stderr
    with open(back / "analysis" / "report" / "metrics.json", encoding="utf-8") as f:
        m = json.load(f)["runs"][0]
    print(f"console.log {os.path.getsize(lab / 'console.log')} bytes; trace.dat "
          f"{os.path.getsize(back / 'trace.dat')} bytes; {m['trace']['records']} records, "
          f"{m['migrations']['total']} migrations")
    assert m["trace"]["records"] > 0 and m["trace"]["lost_events"] == 0, m["trace"]
