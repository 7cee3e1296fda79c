"""Progress while cases run: one line every ``INTERVAL_S`` with the total, the rate, the time left and
the indexing paid so far, printed on the controller in pytest's terminal conventions.

``--codesearch-progress auto`` (the default) prints on a terminal only (where pytest prints colours),
not under ``-q`` and not in CI
(``$CI`` set, as GitHub Actions, GitLab and most CI services set it), so logs stay as they were; ``on``
prints anyway, ``off`` never::

    codesearch: cases 1,200 of 8,220 (15%), 41.2/s, about 2 min 50 s left; indexing 113.0 s over 12 snapshot x agent
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from pytest_codesearch.report.model import CaseResult

INTERVAL_S = 10.0
"""Seconds between two progress lines."""


def progress_wanted(config: pytest.Config, setting: str) -> bool:
    """Return True when progress lines are printed: ``on``; ``auto`` on a terminal, not under ``-q``, not in CI."""
    if setting != "auto":
        return setting == "on"
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        return False
    terminal = config.get_terminal_writer().hasmarkup  # pytest's own test for a terminal (colours)
    return terminal and config.get_verbosity() >= 0 and not os.environ.get("CI")


@dataclass
class Progress:
    """Counts the cases of a run as their records arrive and says, at most every ``interval`` s, how far it is."""

    clock: Callable[[], float] = time.monotonic
    interval: float = field(default_factory=lambda: INTERVAL_S)
    total: int = 0
    done: int = 0
    index_ms: float = 0.0
    indexed: int = 0
    started: float = field(default=0.0)
    shown: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started = self.shown = self.clock()

    def case(self, case: CaseResult) -> str | None:
        """Count one case record; return a progress line when one is due, else None."""
        self.done += 1
        if case.indexed and case.index_ms is not None:
            self.indexed += 1
            self.index_ms += case.index_ms
        now = self.clock()
        if now - self.shown < self.interval or self.done >= self.total:
            return None
        self.shown = now
        return self.line(now)

    def line(self, now: float) -> str:
        """Return the progress line: done of total, the rate, the time left at that rate, indexing so far."""
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        left = ""
        if self.total > self.done and rate > 0:
            left = f", about {format_duration((self.total - self.done) / rate)} left"
        text = f"codesearch: cases {self.done:,} of {self.total:,}{share}, {rate:.1f}/s{left}"
        if self.indexed:
            text += f"; indexing {self.index_ms / 1000:.1f} s over {self.indexed:,} snapshot x agent"
        return text


def format_duration(seconds: float) -> str:
    """Return ``seconds`` as people read it: ``45 s``, ``2 min 50 s``, ``1 h 5 min``."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
