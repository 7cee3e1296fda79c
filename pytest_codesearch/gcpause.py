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
