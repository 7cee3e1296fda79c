"""Pausing Python's cyclic garbage collector around work that allocates many objects and makes no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector, then restore its previous state.

    For work that allocates many long-lived or acyclic objects (syntax trees, collected items, report
    data): nothing is missed, and the collector's repeated passes over a growing heap are skipped.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


RARE_FULL_COLLECTIONS = 100
"""Young-generation passes between two full collections while cases run (Python's default is 10)."""


@contextmanager
def rare_full_collections() -> Iterator[None]:
    """Make full collections of the cyclic garbage collector rarer (``RARE_FULL_COLLECTIONS``), then restore
    its thresholds.

    For a long loop that keeps what it makes (a run's records, pytest's reports): every full pass walks all
    of it, about every 70,000 allocations by default, so their cost grows with the square of the loop. Young
    cycles are still collected as often as before; only cycles that outlived two younger passes wait longer.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], max(thresholds[2], RARE_FULL_COLLECTIONS))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
