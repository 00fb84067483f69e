"""CPU hotplug while fair pushes fire (guest/vm/jobs/hotplug-push.sh, issue 15 (e)).

Used by tests/debug/test_push_hotplug.py (20 cycles) and by make soak (200), which
runs this file on its run folder: run.sh has already failed the run on a splat
(WARNING, BUG, lockdep, RCU stall), a crash or a hang (TIMEOUT); this checks that
every cycle's writes succeeded, E- and P-cores both went off and on, every CPU is
back online, every replay's rt-app exited 0 with a non-empty log per thread, and
that pushes fired (eas_push decisions that pushed, and fair_push* migrations).

  python3 -m easlab.hotplug_check RUN_DIR [CYCLES]   print the summary, exit 1 on a failed check
"""
import glob
import json
import os
import sys

from easan.push import is_push_reason
from easlab import push_props

E_CPUS, P_CPUS = {0, 1, 2, 3}, {4, 5}


def check(folder, cycles):
    """The summary {'cycles', 'cpus', 'replays', 'threads', 'pushed', 'push_moves'};
    AssertionError on a failed check."""
    assert not os.path.exists(os.path.join(folder, "errors.txt")), \
        open(os.path.join(folder, "errors.txt"), encoding="utf-8").read()
    with open(os.path.join(folder, "hotplug.txt"), encoding="utf-8") as f:
        rows = [line.split() for line in f if line.strip()]
    assert len(rows) >= cycles, f"{len(rows)} cycles, expected {cycles}"
    assert all(off == "1" and on == "1" for _, _, off, on in rows), rows
    cpus = {int(cpu) for _, cpu, _, _ in rows}
    assert cpus & E_CPUS and cpus & P_CPUS, cpus
    with open(os.path.join(folder, "online.txt"), encoding="utf-8") as f:
        assert f.read().strip() == "0-5"
    replays = sorted(glob.glob(os.path.join(folder, "replays", "*", "")))
    assert replays, "no replay"
    threads = pushed = moves = 0
    with open(os.path.join(folder, "guest", "task-names.txt"), encoding="utf-8") as f:
        names = f.read().split()
    with open(os.path.join(folder, "guest", "rt-app.json"), encoding="utf-8") as f:
        instances = sum(t.get("instance", 1) for t in json.load(f)["tasks"].values())
    for r in replays:
        with open(os.path.join(r, "run.json"), encoding="utf-8") as f:
            rec = json.load(f)
        assert rec["rtapp_exit_status"] == 0, (r, rec["rtapp_exit_status"])
        logs = glob.glob(os.path.join(r, "rt-app", "*.log"))
        assert len(logs) == instances, (r, logs)
        for log in logs:
            with open(log, encoding="utf-8") as f:
                # A header and at least one row per thread.
                assert len([l for l in f if l.strip()]) >= 2, log
        threads += len(logs)
        t = push_props.tables(r)
        pushed += int((t["push"]["outcome"] == "pushed").sum())
        moves += int(t["migrate"]["reason"].map(is_push_reason).sum())
        assert set(t["comm"]["comm"]) >= set(names)
    assert pushed > 0 and moves > 0, (pushed, moves)
    return {"cycles": len(rows), "cpus": sorted(cpus), "replays": len(replays),
            "threads": threads, "pushed": pushed, "push_moves": moves}


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    try:
        print(check(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1))
    except AssertionError as e:
        print(f"hotplug_check: {sys.argv[1]}: check failed: {e}", file=sys.stderr)
        sys.exit(1)
