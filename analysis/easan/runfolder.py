"""A run folder (from `make run`) loaded and checked: every input in one place."""
import functools
import json
import os
from dataclasses import dataclass, field

from . import em as em_mod
from . import platform as platform_mod
from . import rtapp, tables as tables_mod
from contract import rtapp_profile

from .errors import AnalysisError

# What guest/host/run.sh always puts on the kernel command line.
STANDARD_CMDLINE = ("console=", "panic=", "oops=", "loglevel=", "sched_verbose", "hybrid_sim=")


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
    def pids(self):
        return set(self.threads["pid"])

    @functools.cached_property
    def task_of(self):
        """{pid: task} of the profile's threads."""
        return {int(p): t for p, t in zip(self.threads["pid"], self.threads["task"])}

    def uclamp(self, pid):
        """(util_min, util_max) of a profile thread: its task's keys, else no clamp."""
        keys = self.attrs.get(self.task_of[int(pid)], {})
        return keys.get("util_min", 0), keys.get("util_max", 1024)

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
        """Threads of the tasks with a util_max key in the profile."""
        return {p for p, t in self.task_of.items() if "util_max" in self.attrs.get(t, {})}


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
