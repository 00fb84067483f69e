"""Reading hybrid_sim/faithful_stats copies and splitting bench-speed's alternating log."""
import os
import sys

import pytest

from conftest import TOP

sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan.fidelity import alternating_blocks, read_faithful_stats  # noqa: E402


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


def test_alternating_blocks_splits_and_skips_each_move():
    # Blocks of 3: A A A B B B A A; the first run of each block dropped.
    values = [100, 11, 12, 200, 21, 22, 300, 13]
    assert alternating_blocks(values, 3) == ([11, 12, 13], [21, 22])
    assert alternating_blocks(values, 3, skip=0) == ([100, 11, 12, 300, 13], [200, 21, 22])


@pytest.mark.parametrize("block, skip", [(0, 0), (3, 3), (2, -1)])
def test_alternating_blocks_rejects_a_bad_split(block, skip):
    with pytest.raises(ValueError, match="need block >= 1"):
        alternating_blocks([1, 2, 3], block, skip)

