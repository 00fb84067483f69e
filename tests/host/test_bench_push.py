"""make bench-push's analysis (easlab.bench_push) on bench.txt files written here."""
import re

import pytest

from conftest import PY_MODULE, run

SCRIPT = PY_MODULE + ["easlab.bench_push"]


def boot_folder(tmp_path, name, rows):
    d = tmp_path / name
    d.mkdir()
    (d / "bench.txt").write_text("".join(f"{r} {s} {w} {t}\n" for r, s, w, t in rows))
    return d


def rows_with(ratio_of, reps=10):
    """Pairs whose on/off ratio is ratio_of(rep), off times drifting by tens of percent."""
    out = []
    for rep in range(1, reps + 1):
        off = 1.0 + 0.3 * (rep % 3)
        for w in ("hackbench-process", "hackbench-pipe", "pingpong"):
            out += [(rep, "push-off", w, off), (rep, "push-on", w, off * ratio_of(rep, w))]
    return out


def line(out, workload):
    return next(l for l in out.splitlines() if l.startswith(workload))


def test_paired_ratios_and_verdicts(tmp_path):
    def ratio(rep, w):
        if w == "hackbench-process":
            return 1.002 + (0.001 if rep % 2 else -0.001)    # tight, under 1 %: met
        if w == "hackbench-pipe":
            return 1.05 + (0.002 if rep % 2 else -0.002)     # tight, 5 % over: not met
        return 1.0 + (0.2 if rep % 2 else -0.2)              # wide: inconclusive
    folder = boot_folder(tmp_path, "a", rows_with(ratio))
    r = run(SCRIPT + [str(folder)], timeout=60)
    assert r.returncode == 0, r.stderr
    proc = line(r.stdout, "hackbench-process")
    # The drift of the off times (up to 60 %) cancels in the pairs.
    assert re.search(r"\s10\s+1\.0020 \+- 0\.000\d", proc), proc
    assert proc.endswith(" met")
    assert line(r.stdout, "hackbench-pipe").endswith("not met")
    assert line(r.stdout, "pingpong").endswith("inconclusive")


def test_two_boots_are_pooled(tmp_path):
    a = boot_folder(tmp_path, "a", rows_with(lambda rep, w: 1.004 + (0.001 if rep % 2 else -0.001)))
    b = boot_folder(tmp_path, "b", rows_with(lambda rep, w: 1.006 + (0.001 if rep % 2 else -0.001)))
    r = run(SCRIPT + [str(a), str(b)], timeout=60)
    assert r.returncode == 0, r.stderr
    assert "2 boot(s)" in r.stdout
    assert re.search(r"\s20\s+1\.005\d", line(r.stdout, "pingpong")), r.stdout


@pytest.mark.parametrize("reps", ["x", "0", "-2"])
def test_bad_reps_is_one_line_before_any_boot(reps):
    r = run(SCRIPT, env={"REPS": reps}, timeout=60)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"REPS='{reps}'" in lines[0], r.stderr
