"""Every file of a run folder (build/runs/NAME/) and who writes it: the one table of the
contract between the host runner, the guest and the analysis.

A path ending in "/" is a folder. The README's table is this one
(python3 -m contract.run_folder prints it; tests/host/test_contract.py compares them),
and the guest tests check that a real run folder holds nothing the table does not name.
"""
import os
import sys

HOST, VM, ANALYSIS = "host runner", "guest", "analysis"

# The host's view of the vCPU threads (guest/host/vcpu-sampler.c, started by
# qemu-run.sh), one record a tab-separated line:
#   # TEXT                           a comment
#   qemu PID PERIOD_NS               QEMU's pid and the sampling period
#   vcpu N TID                       vCPU N is host thread TID (one line each, by N)
#   sample T_NS RUN_NS WAIT_NS ...   the run and wait time (ns) of each vCPU thread so
#                                    far (/proc/PID/task/TID/schedstat), in the vcpu
#                                    lines' order
#   mark T_NS NAME                   the sample that first saw the file NAME (relative
#                                    to the run folder: REPLAY_START, REPLAY_END, or
#                                    replays/NN-SETUP/ of them) in the share
#   end T_NS REASON                  the sampler stopped (qemu exited, stopped...)
#   error TEXT                       nothing (more) could be sampled, and why
# T_NS: the host's CLOCK_MONOTONIC. easan/fidelity.py reads it.
HOST_VCPU = "host-vcpu.tsv"
# The files the guest creates (guest/vm/vm-lib.sh, replay_mark) right after writing
# REPLAY_MARKER + " start" (" end") to the trace, before rt-app starts (after it ends).
REPLAY_START, REPLAY_END = "replay-start", "replay-end"
REPLAY_MARKER = "eas: replay"

# (path, writer, side, what)
FILES = (
    ("profile.json", "guest/host/run.sh", HOST, "the profile as given"),
    ("kernel.json", "guest/host/run.sh", HOST,
     "what the kernel was built from (copy of build/kernels/ID/info.json)"),
    ("guest/", "guest/host/run.sh", HOST,
     "the guest's inputs: rt-app.json, sched-attrs.json/.txt, task-names.txt, faithful-speed "
     "(contract.rtapp_profile prepare), job.sh, job-name, vm-lib.sh, setup.sh, setup-name, "
     "setups/; the guest adds cmdline and job-status"),
    ("qemu-args.txt", "guest/host/qemu-run.sh", HOST, "QEMU's command line, one argument a line"),
    ("qemu-stderr.log", "guest/host/qemu-run.sh", HOST, "QEMU's own messages"),
    ("console.log", "guest/host/qemu-run.sh", HOST, "the guest's serial console"),
    ("timeout", "guest/host/qemu-run.sh", HOST, "only when the hard timeout killed QEMU"),
    (HOST_VCPU, "guest/host/qemu-run.sh", HOST,
     "how the host scheduled each vCPU thread, every 5 ms while QEMU ran "
     "(guest/host/vcpu-sampler.c; tab-separated lines `qemu PID PERIOD_NS`, `vcpu N TID`, "
     "`sample T_NS` with `RUN_NS WAIT_NS` per vCPU from /proc/PID/task/TID/schedstat, "
     "`mark T_NS NAME` when the guest's replay-start or replay-end appeared, "
     "`end T_NS REASON`, or `error TEXT`; T_NS the host's monotonic clock)"),
    ("trace.dat", "guest/vm/vm-lib.sh", VM,
     "the scheduler, idle, frequency and eas events and rt-app's markers (trace-cmd, mono clock)"),
    (REPLAY_START, "guest/vm/vm-lib.sh", VM,
     f"empty; created right after `{REPLAY_MARKER} start` went to the trace, before rt-app "
     f"starts: when the host saw it aligns {HOST_VCPU} with the trace"),
    (REPLAY_END, "guest/vm/vm-lib.sh", VM,
     f"the same after rt-app ends (`{REPLAY_MARKER} end`)"),
    ("trace-cmd-start.log", "guest/vm/vm-lib.sh", VM,
     "trace-cmd start's output (on a boot's later replays with the same events: clear and restart's)"),
    ("trace-cmd-extract.log", "guest/vm/vm-lib.sh", VM, "trace-cmd extract's output"),
    ("rt-app/", "guest/vm/vm-lib.sh", VM, "rt-app's per-thread logs (rt-app-TASK-N.log)"),
    ("rt-app.stdout", "guest/vm/vm-lib.sh", VM, "rt-app's output"),
    ("guest-stats.txt", "guest/vm/vm-lib.sh", VM,
     "rt-app's exit status, events lost, CPU ticks of the system and of rt-app"),
    ("proc-sched.txt", "guest/vm/vm-lib.sh", VM,
     "/proc/TID/sched of threads with util_min, util_max or slice_us keys"),
    ("cgroup-cpu.stat", "guest/vm/vm-lib.sh", VM, "cpu.stat of a SETUP's cgroup, when it made one"),
    ("dmesg.txt", "guest/vm/vm-lib.sh", VM, "the kernel log"),
    ("sched_debug.txt", "guest/vm/vm-lib.sh", VM, "the scheduler's debug state at the end"),
    ("energy_model/", "guest/vm/vm-lib.sh", VM, "debugfs energy_model, when the kernel has one"),
    ("sched_energy_aware.txt", "guest/vm/vm-lib.sh", VM, "the EAS switch"),
    ("cpufreq_drivers.txt", "guest/vm/vm-lib.sh", VM, "each policy's cpufreq driver"),
    ("faithful.txt", "guest/vm/vm-lib.sh", VM, "hybrid_sim's capacity-faithful switch"),
    ("faithful_stats.txt", "guest/vm/vm-lib.sh", VM, "hybrid_sim's per-CPU faithful-speed counters"),
    ("replays/", "guest/vm/jobs/replays.sh", VM,
     "one run folder per replay of a SETUPS boot (finish-run.sh completes each)"),
    ("splats.txt", "guest/host/finish-run.sh", HOST,
     "WARNING, BUG, lockdep and RCU stall lines of the console (guest/host/scan-log.sh)"),
    ("run.json", "guest/host/run_record.py", HOST,
     "status, kernel, command line, QEMU arguments, profile hash, events lost, CPU time "
     "outside the profile"),
    ("analysis/", "analysis/report", ANALYSIS, "the trace's tables (tables/) and the report (report/)"),
)

# Files a job other than profile.sh leaves (tests' and benches' jobs under guest/vm/jobs/):
# named by the job, read only by its own test or bench.
JOB_OUTPUTS_NOTE = ("a job other than profile.sh (guest/vm/jobs/) may leave files of its own "
                    "beside these, read only by its test or bench")


def names():
    """The table's paths, in order."""
    return [path for path, *_ in FILES]


def unknown_entries(run_dir):
    """The entries at the top of run_dir that the table does not name (sorted)."""
    known = {path.rstrip("/") for path in names()}
    return sorted(e for e in os.listdir(run_dir) if e not in known)


def markdown():
    """The table as the README shows it."""
    rows = ["| file | written by | what |", "|------|------------|------|"]
    rows += [f"| `{path}` | `{writer}` ({side}) | {what} |" for path, writer, side, what in FILES]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
