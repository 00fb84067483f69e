"""make bench-speed's analysis of earlier boots: the P-core's on/off ratio from switching replays."""
import os
import shutil

from conftest import PY_MODULE, TOP, run
from easlab.synthetic_run import LOG_HEADER

BENCH = PY_MODULE + ["easlab.bench_speed"]

# On at 1.00-1.02 s, off at 1.50-1.51 s, on again at 2.00-2.01 s (30 ms guard each side).
FLIPS = "1.00 1.02 1\n1.50 1.51 0\n2.00 2.01 1\n"
# (start s, run us): the first run is dropped (it includes the start), the one at
# 1.49 s is too near the off switch; on: 2000 and 2200, off: 1900 and 2100.
RUNS = [(0.5, 9999), (1.1, 2000), (1.2, 2200), (1.49, 9999), (1.6, 1900), (1.7, 2100)]


def boot_folder(tmp_path):
    folder = tmp_path / "speed-p-patched-x"
    folder.mkdir()
    shutil.copy(os.path.join(TOP, "rt-app-profiles", "bench", "speed-p.json"), folder / "profile.json")
    for n in (1, 2):
        d = folder / "speed" / f"flip-{n}"
        d.mkdir(parents=True)
        (d / "flips.txt").write_text(FLIPS, encoding="ascii")
        rows = "".join(f"0 6250 {r} 10000 {int(s * 1e6)} {int(s * 1e6) + r} 0 0 0 10000 0\n"
                       for s, r in RUNS)
        (d / "rt-app-probe-0.log").write_text(LOG_HEADER + rows, encoding="ascii")
    return folder


def test_switching_replays_give_the_p_core_ratio(tmp_path):
    r = run(BENCH + [str(boot_folder(tmp_path))], timeout=60)
    assert r.returncode == 0, r.stderr
    # 2100 / 2000 in both replays; no pair replays in this boot.
    assert "per switching replay: 1.050 1.050" in r.stdout
    assert "inside switching replays: +5.0% +/-" in r.stdout
    assert "target under 2 %: NOT met" in r.stdout
    assert "E-core run over P-core run with the option: no replays" in r.stdout


def test_a_folder_that_is_not_a_bench_boot_is_one_line(tmp_path):
    r = run(BENCH + [str(tmp_path)], timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip() == f"bench-speed: {tmp_path}: no speed/ folder (not a bench-speed boot)"
