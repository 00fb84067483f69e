"""The rules that make a verdict (easlab/claims.py) and the results kept per batch
(easlab/results.py), each edge case on hand-made run metrics."""
import json
import os

import pytest

from contract.paths import TOP
from easan import stats
from easlab import claims, results
from easlab import experiment as ex
from test_experiments import MOVES, claim, runs, with_, write


def verdict(c, by, metric=MOVES, **kw):
    return claims.evaluate(c, metric, by, **kw)


# ------------------------------------------------------------- runs per group

def test_a_group_needs_five_runs():
    a, b = runs(100, 110, 120, 105, 115), runs(10, 12, 9, 11, 13)
    assert verdict(claim(), {"a": a, "b": b})["verdict"] == claims.HELD
    r = verdict(claim(), {"a": a, "b": b[:4]})
    assert r["verdict"] == claims.INCONCLUSIVE and "fewer than 5 runs in a group" in r["detail"]


def test_a_file_may_ask_for_more_runs_never_fewer(tmp_path):
    with pytest.raises(ex.ExperimentError, match="min_runs: expected a whole number, at least 5"):
        ex.load(write(tmp_path, with_(min_runs=4)))
    exp = ex.load(write(tmp_path, with_(min_runs=6)))
    five = {"smoke": {"a": runs(100, 110, 120, 105, 115), "b": runs(10, 12, 9, 11, 13)}}
    (v,) = claims.judge(exp, five)
    assert v["verdict"] == claims.INCONCLUSIVE and "fewer than 6 runs" in v["detail"]


def test_min_max_are_rules_about_every_run_with_five_runs():
    c = claim(stat="max", op="<", rhs=None, value=20)
    assert verdict(c, {"b": runs(10, 12, 9, 11, 13)})["verdict"] == claims.HELD
    # One run of five breaks the rule: failed, whatever the others.
    assert verdict(c, {"b": runs(10, 12, 9, 11, 25)})["verdict"] == claims.FAILED
    r = verdict(c, {"b": runs(10, 12, 9, 11)})
    assert r["verdict"] == claims.INCONCLUSIVE and "fewer than 5 runs" in r["detail"]


# ------------------------------------------------------------- intervals

def test_a_zero_width_interval_is_inconclusive():
    # Five identical runs: mean 10 with no spread says nothing of the next run.
    c = claim(rhs=None, value=20)
    r = verdict(c, {"b": runs(10, 10, 10, 10, 10)})
    assert r["verdict"] == claims.INCONCLUSIVE and "zero width" in r["detail"]
    r = verdict(claim(), {"a": runs(5, 5, 5, 5, 5), "b": runs(1, 1, 1, 1, 1)})
    assert r["verdict"] == claims.INCONCLUSIVE and "zero width" in r["detail"]


def test_percentiles_interpolate_without_a_low_bias():
    # The old "lower" estimator made the p95 of three values their median.
    assert stats.lower_percentile([1, 2, 3], 95) == 2.0
    # Type 8: h = (3 + 1/3) x 0.95 + 1/3 = 3.5 is past the 3rd value: the largest.
    assert stats.percentile([1, 2, 3], 95) == 3.0
    # h = (5 + 1/3) x 0.5 + 1/3 = 3: the 3rd of five; x 0.25: h = 1.667, 2/3 of the way
    # from the 1st to the 2nd.
    assert stats.percentile([10, 20, 30, 40, 50], 50) == 30.0
    assert stats.percentile([10, 20, 30, 40, 50], 25) == pytest.approx(10 + 2 / 3 * 10)


# ------------------------------------------------------------- the two views

def test_drops_cannot_make_a_claim_hold():
    # On the passing runs b < a holds; the dropped runs of b are the high ones, so on all
    # the runs it does not: inconclusive, and the detail says both.
    a = runs(100, 110, 120, 105, 115)
    b = runs(10, 12, 9, 11, 13, 400, 420, distorted=(5, 6))
    r = verdict(claim(), {"a": a, "b": b})
    assert r["views"][claims.PASSING]["verdict"] == claims.HELD
    assert r["views"][claims.ALL]["verdict"] != claims.HELD
    assert r["verdict"] == claims.INCONCLUSIVE
    assert "all runs: " in r["detail"] and "fidelity-passing runs: held" in r["detail"]


def test_drops_cannot_hide_a_failure():
    # The reverse: all the runs say failed, the passing ones (the two low ones kept)
    # say nothing: not failed either.
    a = runs(100, 110, 120, 105, 115)
    b = runs(200, 210, 190, 205, 195, 199, 90, 95, distorted=(0, 1, 2, 3, 4, 5))
    r = verdict(claim(), {"a": a, "b": b})
    assert r["views"][claims.ALL]["verdict"] == claims.FAILED
    assert r["verdict"] == claims.INCONCLUSIVE


def test_both_views_held_is_held():
    a = runs(100, 110, 120, 105, 115, 111, distorted=(5,))
    b = runs(10, 12, 9, 11, 13, 12, distorted=(5,))
    r = verdict(claim(), {"a": a, "b": b})
    assert r["views"][claims.ALL]["verdict"] == r["views"][claims.PASSING]["verdict"] == claims.HELD
    assert r["verdict"] == claims.HELD


# ------------------------------------------------------------- Holm

def holm_file(tmp_path, values):
    """A file with one value claim per entry of values: 'mean moves of b < value'."""
    d = with_()
    d["claims"] = [{"written": "2026-12-06", "metric": "moves", "lhs": "b", "op": "<", "value": v}
                   for v in values]
    return ex.load(write(tmp_path, d))


def test_holm_corrects_across_the_claims_of_a_file(tmp_path):
    # b: 1..5, mean 3, sd 1.58, se 0.707, df 4. "mean < 5.33": t = -3.3, one-sided
    # p = 0.015, and the 95 % interval's top, 3 + 2.776 x 0.707 = 4.96, is below 5.33.
    b = runs(1, 2, 3, 4, 5)
    by = {"smoke": {"b": b}}
    (alone,) = claims.judge(holm_file(tmp_path, [5.33]), by)
    assert alone["verdict"] == claims.HELD
    assert 0.01 < alone["views"][claims.ALL]["p"] < 0.02
    # With two more claims tested (p near 0.5), Holm's smallest threshold is 0.025 / 3
    # = 0.0083: p 0.015 is not enough.
    first, *_ = claims.judge(holm_file(tmp_path, [5.33, 3.0, 3.01]), by)
    assert first["verdict"] == claims.INCONCLUSIVE
    assert "not held after Holm's correction over 3 claims" in first["detail"]


def test_holm_leaves_strong_claims_held(tmp_path):
    by = {"smoke": {"b": runs(1, 2, 3, 4, 5)}}
    out = claims.judge(holm_file(tmp_path, [50, 60, 3.0]), by)
    assert [v["verdict"] for v in out] == [claims.HELD, claims.HELD, claims.INCONCLUSIVE]


# ------------------------------------------------------------- claims fixed before data

def test_a_claim_needs_its_date(tmp_path):
    d = with_()
    del d["claims"][0]["written"]
    with pytest.raises(ex.ExperimentError, match=r"claims\[0\].written: missing"):
        ex.load(write(tmp_path, d))
    with pytest.raises(ex.ExperimentError, match="is not a date YYYY-MM-DD"):
        ex.load(write(tmp_path, with_(claims__0__written="last week")))


def test_rule_hash_follows_the_rule_not_the_words(tmp_path):
    base = ex.load(write(tmp_path, with_()))
    h = base.claims[0].rule_hash(base.metrics["moves"])

    def hash_with(**changes):
        e = ex.load(write(tmp_path, with_(**changes)))
        return e.claims[0].rule_hash(e.metrics["moves"])
    assert hash_with(claims__0__text="reworded") == h
    assert hash_with(claims__0__written="2026-12-07") == h
    assert hash_with(claims__0__op="<=") != h
    assert hash_with(claims__0__factor=1.05) != h
    assert hash_with(metrics__moves__path="migrations.total") != h


def batch_file(tmp_path, exp, stamp, rule_hash=None):
    d = tmp_path / "results"
    d.mkdir(exist_ok=True)
    c = exp.claims[0]
    batch = {"experiment": exp.name, "variant": "default", "stamp": stamp,
             "claims": [{"text": c.text, "written": c.written,
                         "rule_hash": rule_hash or c.rule_hash(exp.metrics[c.metric])}]}
    (d / f"{exp.name}-{stamp}.json").write_text(json.dumps(batch))
    return str(d)


def test_history_marks_a_claim_changed_after_data(tmp_path):
    exp = ex.load(write(tmp_path, with_()))
    text = exp.claims[0].text
    same = batch_file(tmp_path, exp, "20261207T000000Z")
    assert results.history(exp, results.batches(exp.name, same)) == {}
    (tmp_path / "results" / f"{exp.name}-20261207T000000Z.json").unlink()
    edited = batch_file(tmp_path, exp, "20261207T000000Z", rule_hash="0" * 16)
    assert "edited after its first batch" in results.history(exp, results.batches(exp.name, edited))[text]
    (tmp_path / "results" / f"{exp.name}-20261207T000000Z.json").unlink()
    early = batch_file(tmp_path, exp, "20261201T000000Z")
    assert "dated 2026-12-06, after its first batch" in \
        results.history(exp, results.batches(exp.name, early))[text]


# ------------------------------------------------------------- results files

@pytest.mark.parametrize("replays", [False, True])
def test_a_batch_writes_its_results_file(tmp_path, fake_build, replays):
    """replays: each run is the last replay of its boot, as with warmup, and every
    boot names it alike (02-push-on): each run keeps its own values."""
    from easlab import experiment_report, sweep  # pylint: disable=import-outside-toplevel
    exp = ex.load(write(tmp_path, with_(repetitions=5)))
    specs = sweep.with_keys(sweep.plan(exp, None, fake_build), fake_build)
    done_dir = os.path.join(fake_build, "sweeps", "done")
    os.makedirs(done_dir)
    for i, s in enumerate(specs):
        d = tmp_path / "runs" / s["key"]
        if replays:
            d = d / "replays" / "02-push-on"
        (d / "analysis" / "report").mkdir(parents=True)
        (d / "trace.dat").write_text("")
        (d / "run.json").write_text(json.dumps({"status": "ok", "kernel": s["kernel"],
                                                "kernel_commit": f"c0ffee{s['kernel']}",
                                                "series_hash": "5e71e5"}))
        # As analysis/report writes it: the run folder's name, not its path.
        m = {"run": d.name, "migrations": {"same": {"a": 100, "b": 10}[s["group"]] + i},
             "fidelity": {}}
        (d / "analysis" / "report" / "metrics.json").write_text(json.dumps({"runs": [m]}))
        with open(os.path.join(done_dir, s["key"] + ".json"), "w", encoding="utf-8") as f:
            json.dump({"run": str(d)}, f)
    sweep.write_index(exp, specs, fake_build)
    out = tmp_path / "results"
    experiment_report.build([exp], fake_build, plots=False, out=lambda m: None, batch={"exp"},
                            results_dir=str(out))
    (path,) = out.iterdir()
    batch = json.loads(path.read_text())
    assert batch["experiment"] == "exp" and batch["file_sha256"] == exp.sha256
    assert batch["kernels"]["a"]["commit"] == "c0ffeebase"
    assert batch["kernels"]["b"]["commit"] == "c0ffeepatched"
    assert len(batch["runs"]) == 10 and batch["runs"][0]["values"] == {"moves": 100.0,
                                                                       "reaction": None}
    assert [r["values"]["moves"] for r in batch["runs"]] == [
        {"a": 100, "b": 10}[s["group"]] + i for i, s in enumerate(specs)]
    assert [r["run"] for r in batch["runs"]] == [
        f"{s['key']}/replays/02-push-on" if replays else s["key"] for s in specs]
    assert batch["claims"][0]["rule_hash"] == exp.claims[0].rule_hash(exp.metrics["moves"])
    (v,) = batch["verdicts"]
    assert v["verdict"] == v["all_runs"] == v["fidelity_passing"] == claims.HELD
    # The index without a batch writes no file.
    experiment_report.build([exp], fake_build, plots=False, out=lambda m: None,
                            results_dir=str(out))
    assert len(list(out.iterdir())) == 1


def test_quoted_numbers_must_be_in_the_cited_file(tmp_path):
    (tmp_path / "x-1.json").write_text(json.dumps(
        {"runs": [{"values": {"share": 0.0571}}], "verdicts": [{"detail": "push-on 0.057 vs base 0.499"}]}))
    ok = "Capped hogs on P-cores: 0.057 with push, 49.9 % on base (experiments/results/x-1.json)."
    assert results.quoted_mismatches(ok, str(tmp_path)) == []
    bad = "Capped hogs on P-cores: 0.061 with push (experiments/results/x-1.json)."
    assert results.quoted_mismatches(bad, str(tmp_path)) == ["1: 0.061 is not a value of x-1.json"]
    gone = "see experiments/results/y-2.json"
    assert "cites y-2.json, which is not in" in results.quoted_mismatches(gone, str(tmp_path))[0]
    # A line that cites no file is not checked.
    assert results.quoted_mismatches("0.061 somewhere", str(tmp_path)) == []


@pytest.mark.parametrize("doc", ["README.md", "experiments/lab-notes.md", "analysis/README.md"])
def test_documents_quote_results_files_faithfully(doc):
    with open(os.path.join(TOP, doc), encoding="utf-8") as f:
        assert results.quoted_mismatches(f.read()) == []


def test_json_out_has_no_nan_tokens():
    import json  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    from easan import jsonout  # pylint: disable=import-outside-toplevel
    text = jsonout.dumps({"lo": float("nan"), "n": np.int64(3), "xs": [1.5, float("nan")],
                          "t": (np.float64("nan"),)})
    assert "NaN" not in text and json.loads(text) == {"lo": None, "n": 3, "xs": [1.5, None],
                                                      "t": [None]}
