"""A mining process with lines gives large freed blocks back to the system (``mining/heap.py``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from pytest_codesearch.mining.heap import map_large_blocks_alone

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096

if sys.argv[1] == "fixed":
    assert map_large_blocks_alone()
big = bytearray(1 << 20)
del big  # glibc's own policy then maps only blocks over 1 MiB alone
before = rss()
blocks = [bytearray(512 << 10) for _ in range(64)]
del blocks[:-1]  # the last one stays: a heap cannot shrink below it
print((rss() - before) >> 20)
"""


def _retained_mib(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc policy")
def test_freed_large_blocks_go_back_to_the_system_once_mapped_alone() -> None:
    """63 freed blocks of 512 KiB (31.5 MiB) stay resident under glibc's own policy after a 1 MiB block was
    freed, and none do with the threshold fixed."""
    assert _retained_mib("default") >= 24
    assert _retained_mib("fixed") <= 4
