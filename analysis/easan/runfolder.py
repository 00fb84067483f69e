"""A run folder (from `make run`) loaded and checked: every input in one place."""
import functools
import json
import os
import re
from dataclasses import dataclass, field

import numpy as np

from . import em as em_mod
from . import platform as platform_mod
from . import rtapp, tables as tables_mod
from contract import rtapp_profile
from contract.constants import GUEST_CMDLINE

from .errors import AnalysisError

# What guest/host/run.sh always puts on the kernel command line.
# What every guest's command line holds (contract.constants), and hybrid_sim= (the
# platform): words left out of a run's label. "console=ttyS0" is matched as "console=".
STANDARD_CMDLINE = tuple({w.split("=")[0] + "=" if "=" in w else w
                          for w in GUEST_CMDLINE.split()} | {"hybrid_sim="})

# The trace markers of guest/vm/helpers/eas-sched-attrs.c: a thread's attributes as read
# back right after they were set, by the thread itself before its first event (no
# "pid=") or by its uclamp_change helper thread ("pid=TID"); "pid=TID gone" when the
# thread ended before its change.
ATTRS_MARKER = re.compile(r"eas-sched-attrs: (?:pid=(\d+) )?util_min=(\d+) util_max=(\d+)")
GONE_MARKER = re.compile(r"eas-sched-attrs: pid=(\d+) gone")
# The start of a clamp timeline: before anything the trace holds.
SINCE_EVER = int(np.iinfo(np.int64).min)
UNTIL_EVER = int(np.iinfo(np.int64).max)
# uclamp's scale: a util_max below it caps a task.
CAPACITY_SCALE = 1024


@dataclass
class Run:
    path: str
    record: dict
    platform: platform_mod.Platform
    em: dict
    tables: dict
    threads: object            # DataFrame pid, thread, task
    logs: dict                 # thread index -> rt-app log DataFrame
    attrs: dict                # task -> extension keys (util_min, util_max, slice_us),
                               # as the guest got them (guest/sched-attrs.json)
    profile: dict
    meta: dict = field(default_factory=dict)

    @property
    def name(self):
        return os.path.basename(os.path.normpath(self.path))

    @property
    def label(self):
        """What the run measured, for A/B tables: the kernel, the command-line
        parameters a user added (a layout, a mode...) and the setup snippet, by its
        file name when the run recorded one (a snippet's text can be long)."""
        extra = [w for w in (self.record.get("cmdline") or "").split()
                 if not w.startswith(STANDARD_CMDLINE)]
        setup = self.record.get("setup_name") or "; ".join(
            line.strip() for line in (self.record.get("setup") or "").splitlines()
            if line.strip() and not line.lstrip().startswith("#"))
        return " ".join([self.record.get("kernel", "?")] + extra) + (f" [{setup}]" if setup else "")

    @property
    def faithful(self):
        """Whether the E-cores ran capacity-faithful speed (run.json, else the command line)."""
        if self.record.get("faithful_speed") is not None:
            return bool(self.record["faithful_speed"])
        return any(w in ("hybrid_sim.faithful=1", "hybrid_sim.faithful=y")
                   for w in (self.record.get("cmdline") or "").split())

    @property
    def speeds(self):
        """{cpu: the share of a capacity-1024 CPU's speed it delivers}: capacity/1024
        with capacity-faithful speed; without it every vCPU runs at the host's speed,
        1 each."""
        return {c.cpu: (min(c.capacity, CAPACITY_SCALE) / CAPACITY_SCALE if self.faithful
                        else 1.0) for c in self.platform.cpus}

    @property
    def pids(self):
        return set(self.threads["pid"])

    @functools.cached_property
    def task_of(self):
        """{pid: task} of the profile's threads."""
        return {int(p): t for p, t in zip(self.threads["pid"], self.threads["task"])}

    def uclamp(self, pid):
        """(util_min, util_max) a profile thread started with: its task's keys, else no
        clamp. For anything that spans time, uclamp_at() or uclamp_over()."""
        keys = self.attrs.get(self.task_of[int(pid)], {})
        return keys.get("util_min", 0), keys.get("util_max", 1024)

    @functools.cached_property
    def clamp_timeline(self):
        """{pid: (ts, util_min, util_max)}, int64 arrays of each profile thread: from
        ts[j] on, its clamps are (util_min[j], util_max[j]). ts[0] is SINCE_EVER with
        the clamps it started with (uclamp()); each later entry is a change, from the
        moment it took effect:

        - a shim marker about the thread (ATTRS_MARKER, the thread's own or its
          helper's): the clamps it read back, from the marker's time (written right
          after the sched_setattr() call);
        - a uclamp_change of its task (guest/sched-attrs.json) for which the trace
          holds no helper marker about the thread (neither the change nor "gone"):
          after_ms after the thread's own shim marker, else after its first rt-app
          marker (the shim's helper starts its sleep when the thread sets its first
          attributes, right before its first event), the changed clamps and the
          others as they were.

        Entries that change nothing are left out."""
        steps = {pid: [] for pid in self.task_of}
        helped, own = set(), {}
        pr = self.tables["print"]
        pr = pr[pr["text"].str.startswith("eas-sched-attrs:")] if len(pr) else pr
        for ts, writer, text in zip(pr["ts"], pr["pid"], pr["text"]):
            m = ATTRS_MARKER.match(text)
            if m:
                pid = int(m.group(1)) if m.group(1) else int(writer)
                if pid in steps:
                    steps[pid].append((int(ts), int(m.group(2)), int(m.group(3))))
                    if m.group(1):
                        helped.add(pid)
                    else:
                        own.setdefault(pid, int(ts))
            else:
                m = GONE_MARKER.match(text)
                if m:
                    helped.add(int(m.group(1)))
        markers = self.tables["markers"]
        out = {}
        for pid, task in self.task_of.items():
            lo, hi = self.uclamp(pid)
            change = self.attrs.get(task, {}).get("uclamp_change")
            if change and pid not in helped:
                mine = markers["ts"][markers["pid"] == pid]
                anchor = own.get(pid, int(mine.min()) if len(mine) else None)
                if anchor is not None:
                    steps[pid].append((anchor + int(change["after_ms"]) * 1_000_000,
                                       change.get("util_min", lo), change.get("util_max", hi)))
            rows = [(SINCE_EVER, lo, hi)]
            for step in sorted(steps[pid]):
                if step[1:] != rows[-1][1:]:
                    rows.append(step)
            ts, lows, highs = (np.array(col, np.int64) for col in zip(*rows))
            out[pid] = (ts, lows, highs)
        return out

    def uclamp_at(self, pid, ts):
        """(util_min, util_max) of a profile thread at time ts (ns): clamp_timeline()."""
        t, lo, hi = self.clamp_timeline[int(pid)]
        j = int(np.searchsorted(t, ts, side="right")) - 1
        return int(lo[j]), int(hi[j])

    def uclamp_over(self, pid, times):
        """(util_min, util_max) arrays of a profile thread at each of times (ns)."""
        t, lo, hi = self.clamp_timeline[int(pid)]
        j = np.searchsorted(t, np.asarray(times, np.int64), side="right") - 1
        return lo[j], hi[j]

    def capped_spans(self, pid):
        """[(start, end)] ns over which a profile thread's util_max was below
        CAPACITY_SCALE (SINCE_EVER and UNTIL_EVER for no end), in order."""
        t, _, hi = self.clamp_timeline[int(pid)]
        out = []
        for s, e, h in zip(t.tolist(), t[1:].tolist() + [UNTIL_EVER], hi.tolist()):
            if h >= CAPACITY_SCALE:
                continue
            if out and out[-1][1] == s:
                out[-1] = (out[-1][0], e)    # capped on, at another util_max
            else:
                out.append((s, e))
        return out

    def traced(self, event):
        """Whether the trace's kernel has the event (in the trace's formats)."""
        return tables_mod.traced(self.meta, event)

    def enum(self, event, field):
        """The names the trace's kernel gives the values of an event's enum field, in
        value order (the reader's symbols table, from the event's format): () when the
        kernel lacks the event or prints the field as a string."""
        return tables_mod.enum(self.tables["symbols"], event, field)

    @property
    def capped_pids(self):
        """Threads whose util_max was below CAPACITY_SCALE at some time (the profile's
        util_max, or a uclamp_change's from when it took effect: capped_spans())."""
        return {p for p in self.task_of if self.capped_spans(p)}


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError as e:
        raise AnalysisError(f"{path}: missing {what}") from e
    except (OSError, ValueError) as e:
        raise AnalysisError(f"{path}: malformed {what} ({e})") from e


def load(path):
    if not os.path.isdir(path):
        raise AnalysisError(f"{path}: no such run folder")
    record = _read_json(os.path.join(path, "run.json"), "run record")
    if record.get("status") != "ok":
        raise AnalysisError(f"{path}: the run did not complete (status '{record.get('status')}')")
    platform = (platform_mod.parse(record["platform"]) if record.get("platform")
                else platform_mod.from_cmdline(record.get("cmdline", "")))
    em = em_mod.load(path)
    em_mod.check_against(em, platform, os.path.join(path, "energy_model"))

    profile_path = os.path.join(path, "profile.json")
    try:
        profile = rtapp_profile.load(profile_path)
    except rtapp_profile.ProfileError as e:
        raise AnalysisError(f"{profile_path}: {e}") from e
    attrs = _read_json(os.path.join(path, "guest", "sched-attrs.json"), "record of the task attributes")

    tables = tables_mod.load(tables_mod.extract(path))
    names = rtapp.thread_names(os.path.join(path, "guest", "rt-app.json"))
    threads = rtapp.threads(tables["markers"], names)
    if threads.empty:
        raise AnalysisError(f"{path}: no rt-app thread markers in the trace (was ftrace on?)")
    return Run(path=path, record=record, platform=platform, em=em, tables=tables,
               threads=threads, logs=rtapp.read_logs(os.path.join(path, "rt-app")),
               attrs=attrs, profile=profile, meta=tables_mod.meta(tables))
