"""``pytest --codesearch-generate``: mine a repository's history into a gold set, then stop."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

import pytest

from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import MiningError, MiningStats, format_stats, generate_goldset
from pytest_codesearch.mining.progress import ProgressEvent
from pytest_codesearch.repo.remote import is_remote
from pytest_codesearch.session.progress import format_duration, progress_wanted
from pytest_codesearch.settings.model import Settings


def run_generate(config: pytest.Config, settings: Settings, filters: FilterConfig | None) -> int:
    """Mine the history the settings name, with the YAML file's filters; print progress and the kept/dropped table.

    ``settings.repo`` (default: the invocation directory), ``settings.rev`` and ``settings.output`` (default
    ``goldsets/<name>.jsonl``, the name being ``settings.name`` or the repository's folder name).
    """
    here = config.invocation_params.dir
    repo = settings.repo or here
    output = settings.output or here / "goldsets" / f"{settings.name or repo.resolve().name}.jsonl"
    printer = ProgressPrinter(sys.stdout)
    try:
        stats = generate_goldset(
            repo, output, filters or FilterConfig(), rev=settings.rev, transform=_hook_transform(config),
            progress=printer if progress_wanted(config, settings.progress) else None,
            name=settings.name, lines=settings.generate_lines,
        )
    except MiningError as exc:
        printer.finish()
        raise pytest.UsageError(str(exc)) from None
    printer.finish()
    notes = "".join(f"codesearch: {note}\n" for note in stats.notes)
    sys.stdout.write(format_stats(stats) + "\n" + notes + _next_step(stats, here, (here / repo).resolve()) + "\n")
    return 0


def progress_text(event: ProgressEvent) -> str:
    """Return ``mining: <walked> of <total> commits (<share>), <rate> commits/s, about <time> left; <kept> kept,
    <dropped> dropped`` (the total and time left once the walk was counted)."""
    seen = f"{event.walked:,} commits"
    if event.total:
        seen = f"{event.walked:,} of {event.total:,} commits ({min(event.walked / event.total, 1.0):.0%})"
    left = event.left_s
    until = "" if left is None or event.done else f", about {format_duration(left)} left"
    return f"mining: {seen}, {event.rate:,.0f} commits/s{until}; {event.kept:,} kept, {event.dropped:,} dropped"


def _hook_transform(config: pytest.Config) -> Any:
    """Return a query transform calling ``pytest_codesearch_transform_query``, or None when nobody implements it."""
    hook = config.pluginmanager.hook.pytest_codesearch_transform_query
    if not hook.get_hookimpls():
        return None

    def transform(query: str, commit: Any) -> str | None:
        result: str | None = hook(query=query, commit=commit, config=config)
        return result

    return transform


def _next_step(stats: MiningStats, here: Path, repo: Path) -> str:
    """Return the command that runs the new gold set; with the map to this clone when the cases name the
    repository by its remote (so the run reads this clone, offline)."""
    try:
        shown = stats.output.relative_to(here)
    except ValueError:
        shown = stats.output
    command = f"run it: pytest --codesearch-agent=bm25 {shown}"
    if stats.repo is not None and is_remote(stats.repo):
        command += f" --codesearch-repo-map {stats.repo}={repo}"
    return command


class ProgressPrinter:
    """Shows commits examined of the walk's total, the rate, the time left, kept and dropped: one rewritten
    line on a terminal, a line every 5 s otherwise (``--codesearch-progress on`` in a log)."""

    def __init__(self, stream: TextIO, every_s: float = 5.0) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.every_s = every_s
        self._last_line_at = 0.0
        self._open = False

    def __call__(self, event: ProgressEvent) -> None:
        """Print one progress report (throttled when the output is not a terminal)."""
        text = progress_text(event)
        if self.tty:
            self.stream.write("\r" + text)
            self._open = True
        elif event.done or event.elapsed_s - self._last_line_at >= self.every_s:
            self.stream.write(text + "\n")
            self._last_line_at = event.elapsed_s
        self.stream.flush()

    def finish(self) -> None:
        """End the rewritten progress line."""
        if self._open:
            self.stream.write("\n")
            self._open = False
