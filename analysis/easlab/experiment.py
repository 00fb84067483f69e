"""Experiments as data: experiments/NAME.json, checked (claims.py judges its claims).

An experiment compares groups of runs (a kernel, command-line parameters, setup
snippets, a platform) on one or more profiles, with repetitions, and states claims
about metrics of metrics.json that each come out held, failed or inconclusive.

    {
      "description": "what it asks and why",          required
      "busy_vcpus": 4,            vCPUs its profiles keep busy (host cores it needs)
      "repetitions": 10,          runs per group and profile (REPS= overrides)
      "min_runs": 5,              runs a group needs for a verdict (MIN_RUNS at least)
      "warmup": 1,                replays of the profile in the same boot before the
                                  one measured (default 0; every group needs a setup)
      "profiles": ["many-small"], in rt-app-profiles/ (name or path)
      "platform": "e:4:600,p:2:1024",   default of the groups (PLATFORM grammar)
      "kernel": "patched",              default of the groups (base|patched)
      "groups": {"NAME": {"kernel", "kconfig", "cmdline", "setup", "platform"}},
      "metrics": {"NAME": {"path": "migrations.same", "default": 0, "unit", "scale"}},
      "claims": [{"text", "written": "YYYY-MM-DD", "metric", "lhs", "op",
                  "rhs" | "value", "stat", "factor", "offset", "profiles",
                  "max_half_width"}],
      "small": {"platform": "e:1:600,p:1:1024", "busy_vcpus": 1, "why": "..."}
    }

setup: a snippet of guest/vm/setups/ (name without .sh, or a path) or a list of them,
sourced in that order. warmup: a TCG guest translates kernel code the first time it
runs, so a path's first runs in a boot take many times their later guest time (the
push's first decisions: lab notes, "A test of the mechanism"); an experiment about
such a cost replays the profile warmup times after the setup before the replay it
measures. A metric's path walks metrics.json's run entry by dotted keys;
"[]" walks every element of a list ("reaction.list[].from_crossing_ns"), giving a
run a list of values. "default" stands for a key a run does not have (a count of a
reason never seen); a value that is null (not traced by that kernel) stays missing.

A claim reads "lhs op factor x rhs + offset" (rhs a group) or "lhs op value". stat:
"mean" (default; Welch's interval for a difference of groups, Student's t for one
group), "pNN" (the NNth percentile of the runs' values pooled, bootstrap interval
over runs and values: tail percentiles over a few runs are not normal), "min" or
"max" over the runs (no interval: a rule about every run). claims.py says how a
claim is judged (on all runs and on those that pass the fidelity check, MIN_RUNS
runs a group, Holm's correction across the file's claims).

"written" is the day the claim was written, before the runs that judge it: a batch
of runs records each claim's rule_hash(), and the report marks a claim whose rule
changed after a batch had judged it (results.py).

Every error is one line naming the file and the key (ExperimentError).
"""
import glob
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field

from easan.errors import AnalysisError
from contract.constants import DEFAULT_PLATFORM, KCONFIGS, KERNELS, PLATFORM_RE
from contract.paths import TOP

EXPERIMENTS_DIR = os.path.join(TOP, "experiments")
PROFILES_DIR = os.path.join(TOP, "rt-app-profiles")
SETUPS_DIR = os.path.join(TOP, "guest", "vm", "setups")
OPS = {"<": lambda d: d < 0, "<=": lambda d: d <= 0, ">": lambda d: d > 0,
       ">=": lambda d: d >= 0, "==": lambda d: d == 0}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_STAT_RE = re.compile(r"^(mean|min|max|p(\d{1,2}(\.\d+)?|100))$")

TOP_KEYS = {"description", "busy_vcpus", "repetitions", "min_runs", "profiles", "platform",
            "kernel", "groups", "metrics", "claims", "small", "warmup"}
GROUP_KEYS = {"kernel", "kconfig", "cmdline", "setup", "platform"}
METRIC_KEYS = {"path", "default", "unit", "scale"}
CLAIM_KEYS = {"text", "written", "metric", "lhs", "op", "rhs", "value", "stat", "factor",
              "offset", "profiles", "max_half_width"}
# Warm-up replays a boot at most: each adds a replay's time to run.sh's fixed TIMEOUT.
MAX_WARMUP = 3
# Runs a group needs, after drops, for a claim's verdict; a file may ask for more.
MIN_RUNS = 5
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
SMALL_KEYS = {"platform", "busy_vcpus", "why"}


class ExperimentError(AnalysisError):
    """A bad experiment file: 'FILE: KEY: problem'."""


@dataclass
class Group:
    name: str
    kernel: str
    kconfig: str
    cmdline: str
    setups: list            # absolute paths of the snippets, in order
    platform: str

    @property
    def vcpus(self):
        return platform_cpus(self.platform)

    @property
    def setup_label(self):
        """How the run folder names its setup: the snippets' names joined by '+'."""
        return "+".join(os.path.basename(s)[:-3] if s.endswith(".sh") else os.path.basename(s)
                        for s in self.setups)


@dataclass
class MetricSpec:
    name: str
    path: str
    default: object = None
    unit: str = ""
    scale: float = 1.0

    def values(self, run_metrics):
        """The run's value (a number), or its values (a list) for a path with "[]";
        None when missing."""
        return extract(run_metrics, self.path, self.default)


@dataclass
class Claim:
    text: str
    metric: str
    lhs: str
    op: str
    rhs: str = None
    value: float = None
    stat: str = "mean"
    factor: float = 1.0
    offset: float = 0.0
    profiles: list = None
    max_half_width: float = None
    written: str = ""
    raw: dict = field(default_factory=dict)

    def rule_hash(self, metric):
        """A hash of what decides the verdict: the claim's rule and its metric's
        definition (not its text or date)."""
        rule = {k: v for k, v in self.raw.items() if k not in ("text", "written")}
        spec = {"path": metric.path, "default": metric.default, "scale": metric.scale}
        return hashlib.sha256(json.dumps([rule, spec], sort_keys=True).encode()).hexdigest()[:16]

    def describe(self, metric=None):
        """The rule in words, numbers in the metric's display unit when given."""
        scale, unit = (metric.scale, f" {metric.unit}" if metric.unit else "") if metric else (1.0, "")
        if self.rhs is None:
            right = f"{_num(self.value * scale)}{unit}"
        else:
            right = (f"{_num(self.factor)} x " if self.factor != 1 else "") + self.rhs
            if self.offset:
                right += f" {'+' if self.offset >= 0 else '-'} {_num(abs(self.offset) * scale)}{unit}"
        return f"{self.stat} {self.metric}: {self.lhs} {self.op} {right}"


@dataclass
class Experiment:
    name: str
    path: str
    description: str
    busy_vcpus: int
    repetitions: int
    profiles: list          # absolute paths
    groups: dict            # name -> Group
    metrics: dict           # name -> MetricSpec
    claims: list
    small: dict = None
    min_runs: int = MIN_RUNS
    warmup: int = 0
    sha256: str = ""
    variant: str = "default"
    raw: dict = field(default_factory=dict)

    @property
    def vcpus(self):
        """vCPUs of its biggest guest (what a Slurm task asks for)."""
        return max(g.vcpus for g in self.groups.values())

    def profile_name(self, path):
        return os.path.basename(path)[:-5] if path.endswith(".json") else os.path.basename(path)


def _num(x):
    return f"{x:g}" if isinstance(x, (int, float)) else str(x)


def platform_cpus(spec):
    return sum(int(part.split(":")[1]) for part in spec.split(","))


def _fail(path, key, msg):
    raise ExperimentError(f"{os.path.relpath(path)}: {key}: {msg}")


def _check_keys(path, where, obj, allowed, required=()):
    if not isinstance(obj, dict):
        _fail(path, where, "expected an object")
    for k in obj:
        if k not in allowed:
            _fail(path, f"{where}.{k}" if where else k,
                  f"unknown key (expected one of: {', '.join(sorted(allowed))})")
    for k in required:
        if k not in obj:
            _fail(path, f"{where}.{k}" if where else k, "missing")


def _str(path, key, v, allow_empty=False):
    if not isinstance(v, str) or (not allow_empty and not v.strip()):
        _fail(path, key, "expected a non-empty string" if not allow_empty else "expected a string")
    return v


def _int(path, key, v, lo, hi=None):
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        _fail(path, key, f"expected a whole number {lo}..{hi}" if hi else
              f"expected a whole number, at least {lo}")
    return v


def _number(path, key, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        _fail(path, key, "expected a number")
    return float(v)


def _platform(path, key, v):
    _str(path, key, v)
    if not PLATFORM_RE.match(v):
        _fail(path, key, f"'{v}' is not TYPE:COUNT:CAPACITY[:SCALING][,...]")
    if platform_cpus(v) < 1:
        _fail(path, key, f"'{v}' has no CPU")
    return v


def _resolve(path, key, name, directory, ext):
    """A file of directory by name (without ext), or a path relative to the project."""
    _str(path, key, name)
    for cand in (os.path.join(directory, name + ext), os.path.join(TOP, name), name):
        if os.path.isfile(cand):
            return os.path.abspath(cand)
    return _fail(path, key, f"'{name}' not found (expected a name in "
                 f"{os.path.relpath(directory, TOP)}/ or a path)")


def _calibration_cpu(profile_path):
    try:
        with open(profile_path, encoding="utf-8") as f:
            cal = json.load(f).get("global", {}).get("calibration")
    except (OSError, ValueError):
        return None
    m = re.fullmatch(r"CPU(\d+)", cal) if isinstance(cal, str) else None
    return int(m.group(1)) if m else None


def _group(path, name, obj, defaults):
    where = f"groups.{name}"
    if not _NAME_RE.match(name):
        _fail(path, where, "a group name is letters, digits and . _ + -")
    _check_keys(path, where, obj, GROUP_KEYS)
    kernel = obj.get("kernel", defaults["kernel"])
    if kernel not in KERNELS:
        _fail(path, f"{where}.kernel", f"'{kernel}' is not one of {', '.join(KERNELS)}")
    kconfig = obj.get("kconfig", "default")
    if kconfig not in KCONFIGS:
        _fail(path, f"{where}.kconfig", f"'{kconfig}' is not one of {', '.join(KCONFIGS)}")
    cmdline = _str(path, f"{where}.cmdline", obj.get("cmdline", ""), allow_empty=True)
    if "hybrid_sim=" in cmdline:
        _fail(path, f"{where}.cmdline", "give the platform in 'platform', not hybrid_sim=")
    setup = obj.get("setup", [])
    setup = [setup] if isinstance(setup, str) else setup
    if not isinstance(setup, list):
        _fail(path, f"{where}.setup", "expected a snippet name or a list of them")
    setups = [_resolve(path, f"{where}.setup[{i}]", s, SETUPS_DIR, ".sh") for i, s in enumerate(setup)]
    platform = _platform(path, f"{where}.platform", obj.get("platform", defaults["platform"]))
    return Group(name, kernel, kconfig, cmdline.strip(), setups, platform)


def _claim(path, i, obj, groups, metrics):
    where = f"claims[{i}]"
    _check_keys(path, where, obj, CLAIM_KEYS, required=("metric", "lhs", "op", "written"))
    written = _str(path, f"{where}.written", obj["written"])
    if not _DATE_RE.match(written):
        _fail(path, f"{where}.written", f"'{written}' is not a date YYYY-MM-DD")
    if ("rhs" in obj) == ("value" in obj):
        _fail(path, where, "give either 'rhs' (a group) or 'value' (a number)")
    metric = _str(path, f"{where}.metric", obj["metric"])
    if metric not in metrics:
        _fail(path, f"{where}.metric", f"'{metric}' is not in 'metrics'")
    for side in ("lhs", "rhs"):
        if side in obj and obj[side] not in groups:
            _fail(path, f"{where}.{side}", f"'{obj[side]}' is not a group")
    op = obj["op"]
    if op not in OPS:
        _fail(path, f"{where}.op", f"'{op}' is not one of {' '.join(OPS)}")
    stat = obj.get("stat", "mean")
    if not isinstance(stat, str) or not _STAT_RE.match(stat):
        _fail(path, f"{where}.stat", f"'{stat}' is not mean, min, max or pNN")
    if op == "==" and stat not in ("min", "max"):
        _fail(path, f"{where}.op", "'==' needs stat min or max (an interval never equals)")
    if "[]" not in metrics[metric].path and stat.startswith("p"):
        _fail(path, f"{where}.stat", f"a percentile needs a metric with a list of values "
              f"('{metric}' has one value per run)")
    profiles = obj.get("profiles")
    if profiles is not None:
        if not isinstance(profiles, list) or not profiles:
            _fail(path, f"{where}.profiles", "expected a list of profile names")
    claim = Claim(text=_str(path, f"{where}.text", obj.get("text", "") or "-"), metric=metric,
                  lhs=obj["lhs"], op=op, rhs=obj.get("rhs"), stat=stat, profiles=profiles,
                  value=_number(path, f"{where}.value", obj["value"]) if "value" in obj else None,
                  factor=_number(path, f"{where}.factor", obj.get("factor", 1.0)),
                  offset=_number(path, f"{where}.offset", obj.get("offset", 0.0)),
                  written=written, raw=obj)
    if "max_half_width" in obj:
        claim.max_half_width = _number(path, f"{where}.max_half_width", obj["max_half_width"])
    if claim.text == "-":
        claim.text = claim.describe()
    return claim


def load(path, small=False):
    """The experiment of a file, checked (ExperimentError otherwise); small: with the
    smaller platform its "small" entry offers."""
    name = os.path.basename(path)[:-5] if path.endswith(".json") else os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        raw = json.loads(data)
    except FileNotFoundError:
        raise ExperimentError(f"{os.path.relpath(path)}: no such experiment file") from None
    except (OSError, ValueError) as e:
        raise ExperimentError(f"{os.path.relpath(path)}: invalid JSON ({e})") from None
    _check_keys(path, "", raw, TOP_KEYS, required=("description", "busy_vcpus", "profiles",
                                                    "groups", "metrics", "claims"))
    _str(path, "description", raw["description"])
    busy = _int(path, "busy_vcpus", raw["busy_vcpus"], 1)
    reps = _int(path, "repetitions", raw.get("repetitions", 3), 1)
    min_runs = _int(path, "min_runs", raw.get("min_runs", MIN_RUNS), MIN_RUNS)
    warmup = _int(path, "warmup", raw.get("warmup", 0), 0, MAX_WARMUP)
    defaults = {"kernel": raw.get("kernel", "patched"),
                "platform": raw.get("platform", DEFAULT_PLATFORM)}
    _platform(path, "platform", defaults["platform"])
    if defaults["kernel"] not in KERNELS:
        _fail(path, "kernel", f"'{defaults['kernel']}' is not one of {', '.join(KERNELS)}")
    small_spec = raw.get("small")
    if small_spec is not None:
        _check_keys(path, "small", small_spec, SMALL_KEYS, required=("platform", "busy_vcpus", "why"))
        _platform(path, "small.platform", small_spec["platform"])
        _int(path, "small.busy_vcpus", small_spec["busy_vcpus"], 1)
        _str(path, "small.why", small_spec["why"])
    if small:
        if small_spec is None:
            _fail(path, "small", "this experiment offers no smaller platform")
        defaults["platform"] = small_spec["platform"]
        busy = small_spec["busy_vcpus"]
    profiles = raw["profiles"]
    if not isinstance(profiles, list) or not profiles:
        _fail(path, "profiles", "expected a non-empty list of profiles")
    profiles = [_resolve(path, f"profiles[{i}]", p, PROFILES_DIR, ".json")
                for i, p in enumerate(profiles)]
    if not isinstance(raw["groups"], dict) or len(raw["groups"]) < 1:
        _fail(path, "groups", "expected an object of at least one group")
    groups = {}
    for gname, gobj in raw["groups"].items():
        if small:   # the smaller platform replaces every group's
            gobj = {k: v for k, v in gobj.items() if k != "platform"} if isinstance(gobj, dict) else gobj
        groups[gname] = _group(path, gname, gobj, defaults)
        if warmup and not groups[gname].setups:
            _fail(path, f"groups.{gname}.setup", "warmup replays need a setup snippet")
    for g in groups.values():
        for p in profiles:
            cpu = _calibration_cpu(p)
            if cpu is not None and cpu >= g.vcpus:
                _fail(path, f"groups.{g.name}.platform", f"{os.path.basename(p)} calibrates on "
                      f"CPU{cpu}, which platform {g.platform} does not have")
    if not isinstance(raw["metrics"], dict) or not raw["metrics"]:
        _fail(path, "metrics", "expected an object of at least one metric")
    metrics = {}
    for mname, mobj in raw["metrics"].items():
        where = f"metrics.{mname}"
        _check_keys(path, where, mobj, METRIC_KEYS, required=("path",))
        mpath = _str(path, f"{where}.path", mobj["path"])
        if not re.fullmatch(r"[\w-]+(\.[\w-]+)*(\[\](\.[\w-]+)*)?", mpath):
            _fail(path, f"{where}.path", f"'{mpath}' is not dotted keys with at most one []")
        default = mobj.get("default")
        if default is not None:
            _number(path, f"{where}.default", default)
        metrics[mname] = MetricSpec(mname, mpath, default,
                                    _str(path, f"{where}.unit", mobj.get("unit", ""), allow_empty=True),
                                    _number(path, f"{where}.scale", mobj.get("scale", 1.0)))
    if not isinstance(raw["claims"], list) or not raw["claims"]:
        _fail(path, "claims", "expected a list of at least one claim")
    claims = [_claim(path, i, c, groups, metrics) for i, c in enumerate(raw["claims"])]
    names = {os.path.basename(p)[:-5] for p in profiles}
    for i, c in enumerate(claims):
        for p in c.profiles or ():
            if p not in names:
                _fail(path, f"claims[{i}].profiles", f"'{p}' is not one of the experiment's profiles")
    return Experiment(name=name, path=os.path.abspath(path), description=raw["description"],
                      busy_vcpus=busy, repetitions=reps, profiles=profiles, groups=groups,
                      metrics=metrics, claims=claims, small=small_spec, min_runs=min_runs,
                      warmup=warmup,
                      sha256=hashlib.sha256(data).hexdigest(),
                      variant="small" if small else "default", raw=raw)


def _offers_small(path):
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return False     # load() says what is wrong with it
    return isinstance(raw, dict) and "small" in raw


def find(names=(), small=False):
    """The experiments named (file names without .json, or paths), else every file of
    experiments/."""
    if not names:
        # Every experiment: the smaller platform where one is offered.
        out = []
        for p in sorted(glob.glob(os.path.join(EXPERIMENTS_DIR, "*.json"))):
            out.append(load(p, small=small and _offers_small(p)))
        return out
    paths = []
    for n in names:
        p = n if n.endswith(".json") and os.path.exists(n) else os.path.join(EXPERIMENTS_DIR, n + ".json")
        if not os.path.exists(p):
            have = sorted(os.path.basename(x)[:-5] for x in glob.glob(os.path.join(EXPERIMENTS_DIR, "*.json")))
            raise ExperimentError(f"unknown experiment '{n}' (have: {', '.join(have)})")
        paths.append(p)
    return [load(p, small) for p in paths]


# ---------------------------------------------------------------------------- values

def extract(m, path, default=None):
    """The value at a metric path in a run's metrics dict: a number, a list of numbers
    (a path with "[]"), or None when missing or not traced."""
    head, sep, tail = path.partition("[]")
    node = m
    for key in [k for k in head.split(".") if k]:
        if node is None:
            return None
        if not isinstance(node, dict):
            return None
        if key not in node:
            return default
        node = node[key]
    if not sep:
        return None if node is None else _as_number(node)
    if node is None:
        return None
    if not isinstance(node, list):
        return None
    out = []
    for item in node:
        v = extract(item, tail.lstrip("."), default) if tail.strip(".") else _as_number(item)
        if v is not None:
            out.append(v)
    return out


def _as_number(v):
    if isinstance(v, bool):
        return float(v)
    return float(v) if isinstance(v, (int, float)) else None
