"""Every patch of the series is signed off and checkpatch --strict clean, or its
changelog explains the warning ("checkpatch: ..."). Needs the extracted tree."""
import os
import re
import subprocess

import pytest

from conftest import BUILD, TOP

PATCHES = os.path.join(TOP, "patches")
CHECKPATCH = os.path.join(BUILD, "linux", "scripts", "checkpatch.pl")


def series():
    with open(os.path.join(PATCHES, "series"), encoding="utf-8") as f:
        return [l.split()[0] for l in f if l.strip() and not l.startswith("#")]


@pytest.mark.parametrize("patch", series())
def test_patch_is_signed_off_and_checkpatch_clean(patch):
    path = os.path.join(PATCHES, patch)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    changelog = text.split("\n---\n", 1)[0]
    assert re.search(r"^Signed-off-by: .+ <.+@.+>$", changelog, re.M), "no Signed-off-by"
    r = subprocess.run([CHECKPATCH, "--strict", "--no-color", "--showfile", path],
                       capture_output=True, text=True, check=False,
                       cwd=os.path.join(BUILD, "linux"))
    assert "total:" in r.stdout, r.stdout + r.stderr
    found = re.findall(r"(?:^|: )(ERROR|WARNING|CHECK): (.*)$", r.stdout, re.M)
    # An exception is explained by a "checkpatch:" paragraph quoting the message.
    note = changelog.split("checkpatch:", 1)[1].split("\n\n")[0] if "checkpatch:" in changelog else ""
    quoted = [" ".join(q.split()) for q in re.findall(r'"([^"]+)"', note)]
    unexplained = [f"{kind}: {msg}" for kind, msg in found
                   if kind == "ERROR" or not any(q and q in msg for q in quoted)]
    assert not unexplained, r.stdout
