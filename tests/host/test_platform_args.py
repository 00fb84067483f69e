"""PLATFORM is checked on the host before any boot."""
from conftest import TOP, run


def run_sh(tmp_path, **env):
    return run([f"{TOP}/guest/host/run.sh", f"{TOP}/rt-app-profiles/smoke.json", "base"],
               env={"RUNS": str(tmp_path / "runs"), **env}, timeout=60)


def test_malformed_platform_is_refused(tmp_path):
    r = run_sh(tmp_path, PLATFORM="e:4")
    assert r.returncode != 0
    assert "PLATFORM 'e:4' is not TYPE:COUNT:CAPACITY" in r.stderr
    assert not (tmp_path / "runs").exists()


def test_cpu_count_must_match_platform(tmp_path):
    r = run_sh(tmp_path, PLATFORM="e:4:600,p:2:1024", CPUS="4")
    assert r.returncode != 0
    assert "has 6 CPUs but CPUS=4" in r.stderr
