"""Validate an rt-app profile on the host and prepare the copy the guest runs.

rt-app 1.0 silently ignores keys it does not know, so a typo ("peroid", "util_max" at
the wrong level) would go unnoticed; this checker knows rt-app 1.0's keys and the
project's extension keys, and names the file and the key of the first problem.

The one owner of the profile format: the runner calls it as a command, the analysis
imports it.

  python3 -m contract.rtapp_profile check [--platform SPEC] FILE...
                                    validate, print nothing on success; SPEC "none"
                                    (a plain SMP guest) refuses "faithful_speed"
  python3 -m contract.rtapp_profile prepare FILE OUTDIR
                                    validate, then write OUTDIR/rt-app.json (what rt-app
                                    reads, extension keys removed, logs sent to the
                                    guest's log directory), OUTDIR/sched-attrs.json
                                    and .txt (the extension keys per task, the
                                    .txt for the guest's shim) and
                                    OUTDIR/task-names.txt (the task keys) and, for
                                    "faithful_speed": true, OUTDIR/faithful-speed
"""
import json
import os
import re
import sys

GLOBAL_KEYS = {
    "duration": int, "calibration": (str, int), "default_policy": str,
    "pi_enabled": bool, "lock_pages": bool, "logdir": str, "log_size": (str, int),
    "log_basename": str, "ftrace": bool, "gnuplot": bool, "io_device": str,
    "mem_buffer_size": int, "cumulative_slack": bool,
}
TASK_KEYS = {
    "instance": int, "policy": str, "priority": int, "dl-runtime": int,
    "dl-period": int, "dl-deadline": int, "cpus": list, "delay": int,
    "phases": dict, "loop": int,
}
PHASE_KEYS = {"loop": int, "cpus": list}
# Project extensions, applied by the guest helper before the task's first event;
# uclamp_change, by the same helper after_ms after that, while the task runs.
EXTENSION_TASK_KEYS = {"util_min": int, "util_max": int, "slice_us": int,
                       "uclamp_change": dict}
UCLAMP_CHANGE_KEYS = {"after_ms": int, "util_min": int, "util_max": int}
# faithful_speed: the guest switches hybrid_sim's capacity-faithful speed on first.
EXTENSION_TOP_KEYS = {"description": str, "faithful_speed": bool}
POLICIES = {"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE"}
# rt-app matches event names by prefix, so "run0" and "sleep1" are events too.
EVENT_RE = re.compile(r"^(run|runtime|sleep|timer|lock|unlock|wait|signal|broad|sync|"
                      r"barrier|suspend|resume|mem|iorun|yield)[0-9]*$")
INT_EVENTS = {"run", "runtime", "sleep", "mem", "iorun"}
STR_EVENTS = {"lock", "unlock", "signal", "broad", "barrier", "suspend", "resume"}
# Guest paths: rt-app logs go to tmpfs and are copied to the share afterwards.
GUEST_LOGDIR = "/tmp/rt-app-logs"
LOG_BUFFER_MB = 4
LOG_BASENAME = "rt-app"


class ProfileError(Exception):
    pass


def _type_ok(value, want):
    kinds = want if isinstance(want, tuple) else (want,)
    # bool is an int in Python; do not accept true for a number.
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _check_keys(obj, allowed, where, extra_ok=None):
    for key, value in obj.items():
        if extra_ok and extra_ok(key, value, where):
            continue
        if key not in allowed:
            raise ProfileError(f"{where}: unknown key '{key}'")
        if not _type_ok(value, allowed[key]):
            raise ProfileError(f"{where}.{key}: expected {_type_name(allowed[key])}, got {json.dumps(value)}")


def _type_name(want):
    kinds = want if isinstance(want, tuple) else (want,)
    names = {int: "an integer", str: "a string", bool: "true/false", list: "a list", dict: "an object"}
    return " or ".join(names[k] for k in kinds)


def _check_event(key, value, where):
    m = EVENT_RE.match(key)
    if not m:
        return False
    kind = m.group(1)
    here = f"{where}.{key}"
    if kind in INT_EVENTS:
        if not _type_ok(value, int) or value < 0:
            raise ProfileError(f"{here}: expected a duration >= 0 (integer), got {json.dumps(value)}")
    elif kind in STR_EVENTS:
        if not isinstance(value, str) or not value:
            raise ProfileError(f"{here}: expected a resource name, got {json.dumps(value)}")
    elif kind == "timer":
        if not isinstance(value, dict):
            raise ProfileError(f"{here}: expected an object with 'ref' and 'period'")
        _check_keys(value, {"ref": str, "period": int, "mode": str}, here)
        if "ref" not in value or "period" not in value or value["period"] <= 0:
            raise ProfileError(f"{here}: needs 'ref' and a 'period' > 0")
        if value.get("mode", "relative") not in ("relative", "absolute"):
            raise ProfileError(f"{here}.mode: expected 'relative' or 'absolute'")
    elif kind in ("wait", "sync"):
        if not isinstance(value, dict):
            raise ProfileError(f"{here}: expected an object with 'ref' and 'mutex'")
        _check_keys(value, {"ref": str, "mutex": str}, here)
    return True


def _check_cpus(cpus, where):
    if not cpus or not all(_type_ok(c, int) and 0 <= c < 64 for c in cpus):
        raise ProfileError(f"{where}.cpus: expected a non-empty list of CPU numbers")


def _check_uclamp_change(task, where):
    """{"after_ms": N, "util_min"/"util_max": V}: the clamps the task gets N ms after
    the shim set its first attributes (at least one of the two, each 0..1024)."""
    here = f"{where}.uclamp_change"
    change = task["uclamp_change"]
    _check_keys(change, UCLAMP_CHANGE_KEYS, here)
    if not 1 <= change.get("after_ms", 0) <= 3600000:
        raise ProfileError(f"{here}.after_ms: expected 1..3600000 (ms), got "
                           f"{json.dumps(change.get('after_ms'))}")
    if "util_min" not in change and "util_max" not in change:
        raise ProfileError(f"{here}: expected util_min or util_max (or both)")
    for key in ("util_min", "util_max"):
        if key in change and not 0 <= change[key] <= 1024:
            raise ProfileError(f"{here}.{key}: expected 0..1024, got {change[key]}")
    # The clamps after the change: the changed ones, else the task's own.
    low = change.get("util_min", task.get("util_min", 0))
    high = change.get("util_max", task.get("util_max", 1024))
    if low > high:
        raise ProfileError(f"{here}: util_min would be above util_max after the change")


def _check_task(name, task, where):
    if not isinstance(task, dict):
        raise ProfileError(f"{where}: expected an object")
    if len(name) > 15:
        # rt-app then leaves the thread named "rt-app" and tasks cannot be told apart.
        raise ProfileError(f"{where}: task name longer than 15 characters")

    def extension(key, value, w):
        if key in EXTENSION_TASK_KEYS:
            want = EXTENSION_TASK_KEYS[key]
            if not _type_ok(value, want):
                raise ProfileError(f"{w}.{key}: expected {_type_name(want)}")
            return True
        return _check_event(key, value, w)

    _check_keys(task, TASK_KEYS, where, extension)
    if "policy" in task and task["policy"] not in POLICIES:
        raise ProfileError(f"{where}.policy: expected one of {', '.join(sorted(POLICIES))}")
    for key in ("util_min", "util_max"):
        if key in task and not 0 <= task[key] <= 1024:
            raise ProfileError(f"{where}.{key}: expected 0..1024, got {task[key]}")
    if task.get("util_min", 0) > task.get("util_max", 1024):
        raise ProfileError(f"{where}: util_min is above util_max")
    if "uclamp_change" in task:
        _check_uclamp_change(task, where)
    if "slice_us" in task and not 100 <= task["slice_us"] <= 100000:
        # The kernel clamps sched_runtime for fair tasks to 0.1..100 ms.
        raise ProfileError(f"{where}.slice_us: expected 100..100000, got {task['slice_us']}")
    if task.get("instance", 1) < 1:
        raise ProfileError(f"{where}.instance: expected >= 1")
    if task.get("policy", "SCHED_OTHER") == "SCHED_OTHER" and not -20 <= task.get("priority", 0) <= 19:
        raise ProfileError(f"{where}.priority: a SCHED_OTHER task's priority is its nice value, -20..19")
    if "cpus" in task:
        _check_cpus(task["cpus"], where)
    phases = task.get("phases")
    has_events = any(EVENT_RE.match(k) for k in task)
    if phases is not None:
        if has_events:
            raise ProfileError(f"{where}: has both 'phases' and events")
        if not phases:
            raise ProfileError(f"{where}.phases: empty")
        for pname, phase in phases.items():
            pwhere = f"{where}.phases.{pname}"
            if not isinstance(phase, dict):
                raise ProfileError(f"{pwhere}: expected an object")
            _check_keys(phase, PHASE_KEYS, pwhere, _check_event)
            if "cpus" in phase:
                _check_cpus(phase["cpus"], pwhere)
            if not any(EVENT_RE.match(k) for k in phase):
                raise ProfileError(f"{pwhere}: no events")
    elif not has_events:
        raise ProfileError(f"{where}: no events and no phases")


def load(path):
    """Parse and validate a profile; return the parsed object or raise ProfileError."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ProfileError(f"cannot read profile: {e.strerror}") from None
    try:
        prof = json.loads(text)
    except json.JSONDecodeError as e:
        raise ProfileError(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    if not isinstance(prof, dict):
        raise ProfileError("top level: expected an object")
    allowed = {"global": dict, "tasks": dict, "resources": dict, **EXTENSION_TOP_KEYS}
    _check_keys(prof, allowed, "top level")
    _check_keys(prof.get("global", {}), GLOBAL_KEYS, "global")
    if prof.get("global", {}).get("default_policy", "SCHED_OTHER") not in POLICIES:
        raise ProfileError("global.default_policy: unknown policy")
    if prof.get("global", {}).get("duration", 1) == 0:
        raise ProfileError("global.duration: 0 would run nothing")
    tasks = prof.get("tasks")
    if not tasks:
        raise ProfileError("tasks: missing or empty")
    for name, task in tasks.items():
        _check_task(name, task, f"tasks.{name}")
    return prof


def prepare(prof):
    """Split a validated profile into what rt-app reads and the extension settings."""
    prof = json.loads(json.dumps(prof))
    prof.pop("description", None)
    prof.pop("faithful_speed", None)
    attrs = {}
    for name, task in prof["tasks"].items():
        ext = {k: task.pop(k) for k in list(task) if k in EXTENSION_TASK_KEYS}
        if ext:
            attrs[name] = ext
    glob = prof.setdefault("global", {})
    glob["logdir"] = GUEST_LOGDIR
    glob["log_basename"] = LOG_BASENAME
    glob["ftrace"] = True
    # rt-app 1.0 loses the rows of "file" and "auto" logs (the stdio buffer is
    # never flushed when the run ends); an in-memory buffer, in MB, is written
    # out at exit. 4 MB holds ~40000 rows per thread.
    glob["log_size"] = LOG_BUFFER_MB
    return prof, attrs


def shim_lines(attrs):
    """The shim's file (guest/vm/helpers/eas-sched-attrs.c), a line per task:
    "NAME UTIL_MIN UTIL_MAX SLICE_US AFTER_MS NEW_UTIL_MIN NEW_UTIL_MAX", -1 where
    the profile says nothing (AFTER_MS -1: no uclamp_change)."""
    lines = []
    for name, a in attrs.items():
        change = a.get("uclamp_change", {})
        cols = [a.get("util_min", -1), a.get("util_max", -1), a.get("slice_us", -1),
                change.get("after_ms", -1), change.get("util_min", -1),
                change.get("util_max", -1)]
        lines.append(" ".join([name] + [str(c) for c in cols]) + "\n")
    return "".join(lines)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "prepare"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    platform = None
    if argv[1] == "check" and argv[2] == "--platform" and len(argv) > 4:
        platform, argv = argv[3], argv[:2] + argv[4:]
    paths = argv[2:] if argv[1] == "check" else argv[2:3]
    for path in paths:
        try:
            prof = load(path)
            if platform == "none" and prof.get("faithful_speed"):
                # The simulator's option: refused on the host, not in the guest.
                raise ProfileError("asks for faithful_speed, which needs a simulated platform "
                                   "(PLATFORM=none)")
        except ProfileError as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 1
    if argv[1] == "prepare":
        if len(argv) != 4:
            print("usage: python3 -m contract.rtapp_profile prepare FILE OUTDIR", file=sys.stderr)
            return 2
        rtapp, attrs = prepare(prof)
        with open(f"{argv[3]}/rt-app.json", "w", encoding="utf-8") as f:
            json.dump(rtapp, f, indent=1)
        with open(f"{argv[3]}/sched-attrs.json", "w", encoding="utf-8") as f:
            json.dump(attrs, f, indent=1)
        # The same for the guest's LD_PRELOAD shim (busy box has no JSON parser).
        with open(f"{argv[3]}/sched-attrs.txt", "w", encoding="utf-8") as f:
            f.write(shim_lines(attrs))
        # The guest job switches capacity-faithful speed on when this file exists.
        faithful = f"{argv[3]}/faithful-speed"
        if prof.get("faithful_speed"):
            with open(faithful, "w", encoding="utf-8") as f:
                f.write("1\n")
        elif os.path.exists(faithful):
            os.remove(faithful)
        # rt-app names each thread after its task key: the guest filters the
        # per-task trace events on these names.
        with open(f"{argv[3]}/task-names.txt", "w", encoding="utf-8") as f:
            f.write("".join(f"{name}\n" for name in rtapp["tasks"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
