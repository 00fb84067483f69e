"""Reading hybrid_sim/faithful_stats copies (what make bench-speed and the debug test use)."""
import os
import sys

import pytest

from conftest import TOP

sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan.fidelity import read_faithful_stats  # noqa: E402


def test_reads_each_cpu_line(tmp_path):
    path = tmp_path / "faithful_stats.txt"
    path.write_text("0 100000 41400 97\n3 2500 1000 4\n", encoding="ascii")
    assert read_faithful_stats(path) == {0: (100000, 41400, 97), 3: (2500, 1000, 4)}


@pytest.mark.parametrize("text", ["0 100000 41400\n", "1 100000 -5 3\n", "cpu0 1 2 3\n"])
def test_malformed_line_names_the_file_and_line(tmp_path, text):
    path = tmp_path / "faithful_stats.txt"
    path.write_text("0 1 1 1\n" + text, encoding="ascii")
    with pytest.raises(ValueError, match=r"faithful_stats.txt:2: not 'CPU BUSY_US"):
        read_faithful_stats(path)
