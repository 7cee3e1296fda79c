"""Progress of a mining run: the figures a terminal shows while a long history is walked."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

INTERVAL_S = 0.5
"""Least time between two progress events."""


@dataclass(frozen=True)
class ProgressEvent:
    """Where a mining run is: commits examined, cases kept, commits dropped, time spent."""

    walked: int
    kept: int
    dropped: int
    elapsed_s: float
    done: bool = False
    total: int | None = None
    """Commits the walk holds (in the window, within ``max_commits``); None until known."""

    @property
    def rate(self) -> float:
        """Return commits examined per second (0.0 before any time has passed)."""
        return self.walked / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def left_s(self) -> float | None:
        """Return the seconds left at the rate so far, or None without a total or a rate."""
        if self.total is None or self.rate <= 0:
            return None
        return max(0, self.total - self.walked) / self.rate


class Reporter:
    """Calls a progress callback at most every ``INTERVAL_S`` seconds, and once more at the end."""

    def __init__(self, callback: Callable[[ProgressEvent], None] | None) -> None:
        self.callback = callback
        self.total: int | None = None
        """Commits to examine, once known (a walk's count), for the events' total and time left."""
        self.started = time.perf_counter()
        self._next = self.started + INTERVAL_S
        self._ticks = 0

    def elapsed(self) -> float:
        """Return the seconds since the run started."""
        return time.perf_counter() - self.started

    def tick(self, walked: int, kept: int) -> None:
        """Note one more commit examined; reports when the interval has passed (the clock is read every 64)."""
        self._ticks += 1
        if self.callback is not None and self._ticks % 64 == 0:
            self.report(walked, kept)

    def report(self, walked: int, kept: int) -> None:
        """Report the figures if the interval has passed since the last report."""
        now = time.perf_counter()
        if self.callback is not None and now >= self._next:
            self._next = now + INTERVAL_S
            self.callback(ProgressEvent(walked, kept, walked - kept, now - self.started, total=self.total))

    def finish(self, walked: int, kept: int) -> None:
        """Report the final figures, with ``done=True``."""
        if self.callback is not None:
            self.callback(ProgressEvent(walked, kept, walked - kept, self.elapsed(), done=True, total=self.total))
