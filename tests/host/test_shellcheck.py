"""Every shell script of the project passes shellcheck (the guest's ones as POSIX sh)."""
import glob
import os
import subprocess

import pytest

from conftest import TOP

HOST = sorted(glob.glob(os.path.join(TOP, "guest", "host", "*.sh"))
              + glob.glob(os.path.join(TOP, "guest", "kernel", "*.sh")) + [os.path.join(TOP, ".ci", "run")])
GUEST = sorted(glob.glob(os.path.join(TOP, "guest", "vm", "*.sh"))
               + glob.glob(os.path.join(TOP, "guest", "vm", "jobs", "*.sh"))
               + glob.glob(os.path.join(TOP, "guest", "vm", "setups", "*.sh"))
               + glob.glob(os.path.join(TOP, "tests", "fixtures", "*.sh"))
               + [os.path.join(TOP, "guest", "vm", "init")])


@pytest.mark.parametrize("path", HOST + GUEST, ids=lambda p: os.path.relpath(p, TOP))
def test_shellcheck(path):
    if not os.path.exists(path):
        pytest.skip("not in this checkout")
    shell = ["-s", "sh"] if path in GUEST and not path.endswith("init") else []
    r = subprocess.run(["shellcheck", "-x", *shell, path], cwd=TOP, capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stdout
