"""Every patch of the series is signed off and checkpatch --strict clean, or a note
below its "---" line (a "checkpatch: ..." paragraph of the Notes block, which git am
drops) quotes the message it explains. Needs the extracted tree."""
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


def split_patch(text):
    """(changelog, notes): the commit message, and the Notes block below "---"."""
    changelog, _, rest = text.partition("\n---\n")
    notes = []
    lines = rest.split("\n")
    if len(lines) > 1 and lines[0] == "" and lines[1] == "Notes:":
        for line in lines[2:]:
            if not line.startswith("    ") and line != "    ":
                break
            notes.append(line[4:])
    return changelog, "\n".join(notes)


def explained(notes):
    """The messages quoted in the notes' "checkpatch:" paragraphs."""
    quoted = []
    for para in notes.split("\n\n"):
        if para.startswith("checkpatch:"):
            quoted += [" ".join(q.split()) for q in re.findall(r'"([^"]+)"', para)]
    return quoted


@pytest.mark.parametrize("patch", series())
def test_patch_is_signed_off_and_checkpatch_clean(patch):
    path = os.path.join(PATCHES, patch)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    changelog, notes = split_patch(text)
    assert re.search(r"^Signed-off-by: .+ <.+@.+>$", changelog, re.M), "no Signed-off-by"
    # Port notes and checkpatch exceptions go below the line, where git am drops them.
    assert not re.search(r"^checkpatch:", changelog, re.M), \
        "a checkpatch note in the changelog: move it below the --- line (git notes)"
    r = subprocess.run([CHECKPATCH, "--strict", "--no-color", "--showfile", path],
                       capture_output=True, text=True, check=False,
                       cwd=os.path.join(BUILD, "linux"))
    assert "total:" in r.stdout, r.stdout + r.stderr
    found = re.findall(r"(?:^|: )(ERROR|WARNING|CHECK): (.*)$", r.stdout, re.M)
    quoted = explained(notes)
    unexplained = [f"{kind}: {msg}" for kind, msg in found
                   if not any(q and q in msg for q in quoted)]
    assert not unexplained, r.stdout


def test_notes_survive_format_patch():
    """split_patch() reads the block git format-patch --notes writes."""
    text = ("Subject\n\nBody\n\nSigned-off-by: A <a@b.c>\n---\n\nNotes:\n"
            "    checkpatch: \"foo bar\" is\n    expected.\n    \n"
            "    checkpatch: \"baz\" too.\n\n a.c | 1 +\n")
    changelog, notes = split_patch(text)
    assert changelog.endswith("Signed-off-by: A <a@b.c>")
    assert explained(notes) == ["foo bar", "baz"]
