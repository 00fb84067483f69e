"""Which CPUs each profile thread was allowed over time, from the profile's "cpus".

rt-app sets a phase's "cpus" (or else the task's) when the phase begins, and
writes "[N] begins loop L phase P ..." as it does; those markers (the
reader's markers table) give the times. Threads without any "cpus" may run anywhere.
"""
import json
import os

import numpy as np

from .rtapp import phase_starts


def phase_cpus(rtapp_json):
    """[per thread: [cpus of phase 0, of phase 1, ...] (None: any CPU)]."""
    with open(rtapp_json, encoding="utf-8") as f:
        prof = json.load(f)
    out = []
    for task in prof.get("tasks", {}).values():
        default = task.get("cpus")
        phases = list(task.get("phases", {}).values()) or [task]
        per = [p.get("cpus", default) for p in phases]
        out.extend([per] * int(task.get("instance", 1)))
    return out


def allowed_masks(run, times, pids=None):
    """{pid: bool array [len(times), ncpus]}: CPUs the thread could use at each time,
    for the profile's threads (or those of them in pids)."""
    ncpus = run.platform.ncpus
    per_thread = phase_cpus(os.path.join(run.path, "guest", "rt-app.json"))
    out = {}
    for pid, thread in zip(run.threads["pid"], run.threads["thread"]):
        if pids is not None and pid not in pids:
            continue
        mask = np.ones((len(times), ncpus), bool)
        phases = per_thread[thread]
        for ts, phase in zip(*phase_starts(run.tables["markers"], pid)):
            if phase >= len(phases):
                continue
            cpus = phases[phase]
            row = np.ones(ncpus, bool)
            if cpus is not None:
                row[:] = False
                row[[c for c in cpus if c < ncpus]] = True
            mask[times >= ts] = row
        out[int(pid)] = mask
    return out
