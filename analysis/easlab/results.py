"""Results kept in the repository: one compact file per batch of an experiment's runs,
experiments/results/NAME[-VARIANT]-STAMP.json, written by `make experiments`.

A batch file holds what a reviewer needs to check a verdict without the traces: each
run's values of the experiment's metrics, its fidelity flag and the largest steal
of its busy vCPUs (max_steal, easan/fidelity.py; None when not measured), the kernel commit
and series hash it ran, each claim's rule_hash() and date, and the verdicts. Later
batches are judged against earlier ones: a claim whose rule changed after a batch
had judged it, or that was dated after its first batch, is marked (history()).

Numbers quoted from a batch (in the README or elsewhere) name its file on the same
line; quoted_mismatches() checks each such number against the file.
"""
import glob
import json
import os
import re
import time

from contract.paths import TOP
from easan import jsonout

from . import claims, sweep

# EAS_RESULTS_DIR: elsewhere, for a test sweep that must not add to the repository.
RESULTS_DIR = os.environ.get("EAS_RESULTS_DIR") or os.path.join(TOP, "experiments", "results")
FORMAT = 1


def _run_record(run_dir):
    try:
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def record(exp, index, by, verdicts, stamp=None):
    """The batch's dict: index is the sweep's runs.json, by {profile: {group: [run
    metrics]}} (experiment_report.collect), verdicts claims.judge()'s."""
    stamp = stamp or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    # The index names a run by its path, the metrics (experiment_report.collect) by its id.
    metrics_of = {str(m.get("run")): m for gs in by.values() for runs in gs.values() for m in runs}
    runs, kernels = [], {}
    for r in index["runs"]:
        m = metrics_of.get(sweep.run_id(r["run"])) if r["run"] else None
        rec = _run_record(r["run"]) if r["run"] else {}
        if rec.get("kernel_commit"):
            kernels.setdefault(r["group"], {"kernel": rec.get("kernel"), "commit": rec.get("kernel_commit"),
                                            "series_hash": rec.get("series_hash"),
                                            "release": rec.get("kernel_release")})
        runs.append({"profile": r["profile"], "group": r["group"], "rep": r["rep"],
                     "run": sweep.run_id(r["run"]) if r["run"] else None, "status": r["status"],
                     "kernel_commit": rec.get("kernel_commit"),
                     "distorted": claims.distorted(m) if m else None,
                     "max_steal": (m.get("fidelity") or {}).get("max_steal") if m else None,
                     "values": ({name: spec.values(m) for name, spec in exp.metrics.items()}
                                if m else None)})
    return {"format": FORMAT, "experiment": exp.name, "variant": exp.variant, "stamp": stamp,
            "file_sha256": exp.sha256, "min_runs": exp.min_runs,
            "claims": [{"text": c.text, "written": c.written, "metric": c.metric,
                        "rule_hash": c.rule_hash(exp.metrics[c.metric])} for c in exp.claims],
            "kernels": kernels, "runs": runs,
            "verdicts": [{"profile": v["profile"], "claim": v["claim"], "verdict": v["verdict"],
                          "all_runs": v["views"][claims.ALL]["verdict"],
                          "fidelity_passing": v["views"][claims.PASSING]["verdict"],
                          "detail": v["detail"]} for v in verdicts]}


def _name(exp_name, variant, stamp):
    return f"{exp_name}{'' if variant == 'default' else '-' + variant}-{stamp}.json"


def write(batch, results_dir=RESULTS_DIR):
    """Write a batch's file (never over another); its path."""
    os.makedirs(results_dir, exist_ok=True)
    path = os.path.join(results_dir, _name(batch["experiment"], batch["variant"], batch["stamp"]))
    if os.path.exists(path):
        raise FileExistsError(f"{path}: a batch of that time exists already")
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(jsonout.dumps(batch, indent=1) + "\n")
    os.replace(tmp, path)
    return path


def batches(exp_name, results_dir=RESULTS_DIR):
    """The experiment's batch dicts (both variants), oldest first, each with its 'path'."""
    out = []
    for path in glob.glob(os.path.join(results_dir, f"{exp_name}-*.json")):
        with open(path, encoding="utf-8") as f:
            b = json.load(f)
        if b.get("experiment") == exp_name:
            out.append({**b, "path": path})
    return sorted(out, key=lambda b: b["stamp"])


def history(exp, earlier):
    """{claim text: note} for the experiment's claims that earlier batches say were
    changed after data: a rule that differs from the one its first batch judged, or a
    date after that batch's."""
    notes = {}
    for c in exp.claims:
        first = next((b for b in earlier for bc in b["claims"] if bc["text"] == c.text), None)
        if first is None:
            continue
        then = next(bc for bc in first["claims"] if bc["text"] == c.text)
        name = os.path.basename(first["path"])
        if then["rule_hash"] != c.rule_hash(exp.metrics[c.metric]):
            notes[c.text] = f"edited after its first batch ({name}): the rule it judged then differs"
        elif c.written.replace("-", "") > first["stamp"][:8]:
            notes[c.text] = f"dated {c.written}, after its first batch ({name})"
    return notes


# A quoted figure: a number, optionally signed, with a decimal part or a percent sign.
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+\.\d+|(?<![\w.])\d+(?= ?%)")
_CITED = re.compile(r"experiments/results/([\w.+-]+\.json)")


def _numbers_of(node, out):
    if isinstance(node, bool):
        return out
    if isinstance(node, (int, float)):
        out.append(float(node))
    elif isinstance(node, dict):
        for v in node.values():
            _numbers_of(v, out)
    elif isinstance(node, list):
        for v in node:
            _numbers_of(v, out)
    elif isinstance(node, str):
        # Verdict details quote numbers in words ("push-on 0.057 vs base 0.499").
        out += [float(x) for x in re.findall(r"[-+]?\d+\.\d+", node)]
    return out


def _matches(quoted, values):
    """Whether a quoted number is a value of the file at the precision it is quoted,
    or that value as a percentage."""
    text = quoted.lstrip("+")
    digits = len(text.split(".")[1]) if "." in text else 0
    q = float(text)
    tol = 0.5 * 10 ** -digits + 1e-12
    return any(abs(v - q) <= tol or abs(100 * v - q) <= tol for v in values)


def quoted_mismatches(text, results_dir=RESULTS_DIR):
    """['LINE: problem'] for lines of text that cite a results file: the file must
    exist and every decimal number or percentage on the line must be one of its
    values (at the precision quoted)."""
    problems = []
    for i, line in enumerate(text.splitlines(), 1):
        cited = _CITED.findall(line)
        if not cited:
            continue
        values = []
        for name in cited:
            path = os.path.join(results_dir, name)
            if not os.path.isfile(path):
                problems.append(f"{i}: cites {name}, which is not in {os.path.relpath(results_dir, TOP)}/")
                continue
            with open(path, encoding="utf-8") as f:
                values += _numbers_of(json.load(f), [])
        for q in _NUMBER.findall(_CITED.sub("", line)):
            if values and not _matches(q, values):
                problems.append(f"{i}: {q} is not a value of {', '.join(cited)}")
    return problems
