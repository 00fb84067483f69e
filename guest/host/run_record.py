#!/usr/bin/python3
"""Write run.json for a run folder: what ran, on what, and how it ended.

  run_record.py RUN_DIR STATUS PROFILE KERNEL KCONFIG
"""
import hashlib
import json
import os
import sys


def read_kv(path):
    """key=value lines (the guest's stats file) as a dict of ints where possible."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, sep, value = line.strip().partition("=")
                if sep:
                    out[key] = int(value) if value.lstrip("-").isdigit() else value
    except OSError:
        pass
    return out


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(run, status, profile, kernel, kconfig):
    stats = read_kv(os.path.join(run, "guest-stats.txt"))
    with open(os.path.join(run, "kernel.json"), encoding="utf-8") as f:
        kinfo = json.load(f)
    qemu_args = (read_text(os.path.join(run, "qemu-args.txt")) or "").splitlines()
    # QEMU's arguments where this host booted it, else what the guest read (a lab's run).
    cmdline = (qemu_args[qemu_args.index("-append") + 1] if "-append" in qemu_args
               else read_text(os.path.join(run, "guest", "cmdline")) or "")
    busy, rtapp = stats.get("busy_ticks"), stats.get("rtapp_ticks")
    faithful = read_text(os.path.join(run, "faithful.txt"))
    hz = stats.get("user_hz", 100)
    outside = None
    if isinstance(busy, int) and isinstance(rtapp, int):
        # CPU time taken by anything but rt-app during the replay (tracing, kernel
        # threads, the job's shell): the analysis marks runs where it is large.
        outside = {"seconds": max(busy - rtapp, 0) / hz,
                   "share_of_busy": (max(busy - rtapp, 0) / busy) if busy else 0.0}
    record = {
        "status": status,
        "profile": os.path.relpath(os.path.abspath(profile)),
        "profile_sha256": sha256(profile),
        "kernel": kernel,
        "kconfig": kconfig,
        "kernel_release": stats.get("kernel", kinfo.get("release")),
        "kernel_commit": kinfo.get("commit"),
        "series_hash": kinfo.get("series_hash"),
        "debian_version": kinfo.get("debian_version"),
        "patches": kinfo.get("patches"),
        "cmdline": cmdline,
        "qemu_args": qemu_args,
        "cpus_online": stats.get("cpus_online"),
        "rtapp_exit_status": stats.get("rtapp_status"),
        "lost_events": stats.get("lost_events"),
        "outside_profile_cpu": outside,
        "timeout": read_text(os.path.join(run, "timeout")),
        # Capacity-faithful speed at the end of the run (None: no simulator).
        "faithful_speed": None if faithful is None else faithful == "1",
        # The SETUP snippet sourced in the guest (sched_features, sysctls...), if any.
        "setup": read_text(os.path.join(run, "guest", "setup.sh")),
        # Its file name, which names the run in A/B tables.
        "setup_name": read_text(os.path.join(run, "guest", "setup-name")),
    }
    with open(os.path.join(run, "run.json.new"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(run, "run.json.new"), os.path.join(run, "run.json"))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
