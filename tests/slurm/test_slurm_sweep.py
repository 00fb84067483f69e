"""A sweep on Slurm, end to end (make check-slurm, inside guest/host/slurm-local.sh's
single-node cluster): experiments/smoke.json (the smoke profile once on each kernel)
submitted as a job array with analysis/sweep slurm, the analysis job run when the
array is over, and its report checked; submitted again, nothing is run twice.

The sweep gets a build directory of its own (the kernels and the initramfs linked
from build/), so that earlier sweeps' runs are not reused."""
import glob
import json
import os

import pytest

from conftest import BUILD, TOP, run

SWEEP = os.path.join(TOP, "analysis", "sweep")
WAIT_S = 1500    # the hard limit for the whole array and its analysis


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    if not os.environ.get("SLURM_CONF"):
        pytest.skip("no cluster: run it with make check-slurm")
    b = tmp_path_factory.mktemp("slurm-build")
    for name in ("kernels", "initramfs.cpio.gz", "analysis"):
        os.symlink(os.path.join(BUILD, name), b / name)
    return str(b)


def results_dir(build):
    """Where the sweep's results files go: not experiments/results/ of the checkout."""
    return os.path.join(build, "results")


def sweep(build, *args):
    return run([SWEEP, "slurm", "--wait", "--timeout", str(WAIT_S), *args, "smoke"],
               env={"BUILD": build, "EAS_RESULTS_DIR": results_dir(build)}, timeout=WAIT_S + 120)


def test_smoke_sweep_on_slurm(build):
    r = sweep(build)
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "0 of 2 runs done already, 2 to submit" in r.stdout
    assert "job array" in r.stdout and "2 tasks, 2 CPUs each" in r.stdout
    # One guest per array task, each with its log.
    logs = sorted(glob.glob(os.path.join(build, "sweeps", "slurm", "*-smoke", "task-*.log")))
    assert [os.path.basename(p) for p in logs] == ["task-0.log", "task-1.log"]
    with open(os.path.join(build, "reports", "experiments", "smoke", "runs.json"), encoding="utf-8") as f:
        index = json.load(f)
    assert [(x["group"], x["status"]) for x in index["runs"]] == [("base", "ok"), ("patched", "ok")]
    for x in index["runs"]:
        assert x["run"].startswith(os.path.join(build, "runs", "smoke-"))
        assert os.path.exists(os.path.join(x["run"], "analysis", "report", "metrics.json"))
    with open(os.path.join(build, "reports", "experiments", "smoke", "claims.json"), encoding="utf-8") as f:
        claims = json.load(f)
    # One run a group: the pipeline judges, and a verdict needs five runs a group.
    assert [v["verdict"] for v in claims["verdicts"]] == ["inconclusive"] * 2, claims["verdicts"]
    assert all("fewer than 5 runs" in v["detail"] for v in claims["verdicts"])
    (batch,) = glob.glob(os.path.join(results_dir(build), "smoke-small-*.json")) or \
        glob.glob(os.path.join(results_dir(build), "smoke-*.json"))
    with open(batch, encoding="utf-8") as f:
        runs = json.load(f)["runs"]
    assert [r["status"] for r in runs] == ["ok", "ok"]
    # The invariant itself, in each run: an unclamped estimate never below the bound.
    assert [r["values"]["buckets below the bound"] for r in runs] == [0, 0], runs
    with open(os.path.join(build, "reports", "experiments", "index.html"), encoding="utf-8") as f:
        page = f.read()
    assert "smoke" in page and "inconclusive" in page and 'src="smoke/smoke.png"' in page
    assert "experiments: smoke [smoke] INCONCLUSIVE" in r.stdout


def test_a_second_submission_runs_nothing_again(build):
    r = sweep(build)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "2 of 2 runs done already, 0 to submit" in r.stdout
    assert "job array" not in r.stdout
    assert "experiments: smoke [smoke] INCONCLUSIVE" in r.stdout
