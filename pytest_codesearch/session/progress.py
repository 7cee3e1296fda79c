"""Progress lines of a run's long phases, at most one every ``INTERVAL_S``, each with its total, rate and
time left, in pytest's terminal conventions.

- collection, per gold-set file (reading its entries, then making its items) and once at its end::

    codesearch: reading goldsets/git.jsonl: 20,480 of 43,093 entries (48%), 1,210/s, about 19 s left
    codesearch: collecting goldsets/git.jsonl: 30,720 of 43,092 cases (71%), 3,410/s, about 4 s left
    codesearch: collected 43,092 cases x 1 agent from 1 gold set in 29.5 s (1,460 cases/s)

- cases, on the controller as their records arrive, with the indexing each agent paid so far::

    codesearch: 1,200 of 8,220 cases (15%), 41/s, about 2 min 50 s left; indexing bm25 12 snapshots in 113.0 s (9.42 s each)

Mining prints its own (``commands/generate.py``), under the same rule. ``--codesearch-progress auto``
(the default) prints on a terminal only (where pytest prints colours), not under ``-q`` and not in CI
(``$CI`` set, as GitHub Actions, GitLab and most CI services set it), so logs stay as they were; ``on``
prints anyway, ``off`` never. Under xdist the workers collect, so collection has only its end line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest


INTERVAL_S = 10.0
"""Seconds between two progress lines."""
MIN_PHASE_S = 1.0
"""A phase of collection shorter than this so far has no rate worth showing yet."""
COLLECT_LINE_S = 2.0
"""A collection that took at least this many seconds ends with a line saying how many cases it made."""


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
    indexing: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Per agent: snapshots indexed, milliseconds spent indexing them."""
    started: float = field(default=0.0)
    shown: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started = self.shown = self.clock()

    def count(self, agent: str | None, index_ms: float | None) -> str | None:
        """Count one case done, with the indexing ``agent`` paid for it (None: none); return a progress line
        when one is due, else None."""
        self.done += 1
        if index_ms is not None:
            name = agent or "agents"
            count, spent = self.indexing.get(name, (0, 0.0))
            self.indexing[name] = (count + 1, spent + index_ms)
        now = self.clock()
        if now - self.shown < self.interval or self.done >= self.total:
            return None
        self.shown = now
        return self.line(now)

    def line(self, now: float) -> str:
        """Return the progress line: done of total, the rate, the time left at that rate, each agent's indexing."""
        text = "codesearch: " + rate_text("cases", self.done, self.total, now - self.started)
        if self.indexing:
            text += "; indexing " + ", ".join(
                f"{agent} {_plural(count, 'snapshot')} in {ms / 1000:.1f} s ({ms / 1000 / count:.2f} s each)"
                for agent, (count, ms) in sorted(self.indexing.items())
            )
        return text


@dataclass
class CollectProgress:
    """Says, at most every ``interval`` s, how far the collection of one gold-set file is (``write``: a line)."""

    name: str
    write: Callable[[str], None]
    clock: Callable[[], float] = time.monotonic
    interval: float = field(default_factory=lambda: INTERVAL_S)
    phase: str = ""
    phase_started: float = field(default=0.0)
    shown: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.phase_started = self.shown = self.clock()

    def step(self, phase: str, done: int, total: int) -> None:
        """Note that ``done`` of ``total`` units of ``phase`` (``reading entries``, ``collecting cases``) are done."""
        now = self.clock()
        if phase != self.phase:  # the first phase started with the file
            self.phase_started = now if self.phase else self.phase_started
            self.phase = phase
        if now - self.shown < self.interval or done >= total or now - self.phase_started < MIN_PHASE_S:
            return
        self.shown = now
        verb, _, unit = phase.partition(" ")
        self.write(f"codesearch: {verb} {self.name}: " + rate_text(unit, done, total, now - self.phase_started))


def collected_line(cases: int, agents: int, goldsets: int, seconds: float) -> str | None:
    """Return the line that ends a collection of at least ``COLLECT_LINE_S``: cases x agents from gold sets,
    the time and the rate; None for a shorter one (pytest's own count says enough)."""
    if seconds < COLLECT_LINE_S:
        return None
    rate = f" ({cases / seconds:,.0f} cases/s)" if seconds > 0 else ""
    return (
        f"codesearch: collected {cases:,} cases x {_plural(agents, 'agent')} from "
        f"{_plural(goldsets, 'gold set')} in {seconds:.1f} s{rate}"
    )


def rate_text(unit: str, done: int, total: int, elapsed: float) -> str:
    """Return ``<done> of <total> <unit> (<share>), <rate>/s, about <time> left`` (what the total allows)."""
    rate = done / max(elapsed, 1e-9)
    share = f" ({done / total:.0%})" if total else ""
    left = ""
    if total > done and rate > 0:
        left = f", about {format_duration((total - done) / rate)} left"
    shown = f"{rate:.1f}" if rate < 10 else f"{rate:,.0f}"
    return f"{done:,} of {total:,} {unit}{share}, {shown}/s{left}"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


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


def collect_progress(config: pytest.Config, display: str, setting: str) -> CollectProgress | None:
    """Return the progress lines of collecting the gold-set file ``display`` (``setting``: ``--codesearch-progress``),
    or None when they are not wanted."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is None or not progress_wanted(config, setting):
        return None
    capture = config.pluginmanager.get_plugin("capturemanager")

    def write(line: str) -> None:  # pytest captures output while a file is collected: print past it
        if capture is None:
            terminal.write_line(line)
            return
        with capture.global_and_fixture_disabled():
            terminal.write_line(line)

    return CollectProgress(display, write)
