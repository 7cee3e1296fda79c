"""The C heap of a mining process with lines: large blocks mapped alone, so that freeing one gives it back.

glibc's ``malloc`` maps a block of 128 KiB or more on its own, but raises that threshold to the size of
each such block freed (up to 32 MiB), so a process that reads large blobs and parses large files soon
carves them from its heap instead, whose freed space stays resident between other allocations. Fixing the
threshold at 128 KiB (``mallopt(M_MMAP_THRESHOLD)``, which also turns the raising off) lowered the
largest of two processes mining all of sympy's history with lines from 463 to 431 MiB (``git log -p``:
366 MiB), for about 1% more CPU on git's history (page faults of the blocks mapped anew); mining files
only pays about 8% more and needs no such help (1.05x ``git log``'s memory), so it is left alone
(``docs/mining.md``). The setting is process-wide and cannot be undone, so only the mining processes
that exit when done take it (``parallel._work``), never the process that called the miner.
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter for the size from which a block is mapped on its own."""
LARGE_BLOCK = 128 << 10
"""Blocks of this size or more are mapped alone (glibc's own starting threshold)."""


def map_large_blocks_alone() -> bool:
    """Fix this process's ``malloc`` threshold for mapping a block alone at :data:`LARGE_BLOCK`; return whether
    it was set (False where the C library has no glibc ``mallopt``: other systems keep their own policy)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK))
