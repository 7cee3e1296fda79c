"""Saved runs: every run's journal and results under ``<cache_dir>/history/<UTC time>-<short id>/``.

A saved run is a directory holding ``journal.jsonl`` (the case records as they arrived),
``results.json`` (the run report) and ``run.json`` (``SavedRun``: when, which agents, how many
cases, complete or not, the git commit of the project under test and the SHA-256 of each gold set).
It is built in a temporary directory beside the others and renamed into place, so a reader never
sees half a run. ``resolve_run`` turns what a user types (a path, an id or its prefix, ``latest``,
``previous``) into a saved ``results.json``.
"""

from __future__ import annotations

import fnmatch
import os
import secrets
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from pydantic import Field, ValidationError

from pytest_codesearch.report.render.json_report import render_json
from pytest_codesearch.report.model import RunReport, _Record

HISTORY_DIR = "history"
"""Sub-directory of the cache directory holding saved runs."""
RUN_FILE = "run.json"
RESULTS_FILE = "results.json"
JOURNAL_FILE = "journal.jsonl"


def history_dir(cache_dir: Path) -> Path:
    """Return the directory of saved runs under the cache directory."""
    return cache_dir / HISTORY_DIR


class HistoryError(ValueError):
    """A saved run that cannot be found or read; str() says which and how to fix it."""


class SavedRun(_Record):
    """``run.json``: what a saved run is, for listing and comparing without reading its results."""

    id: str = Field(description="Directory name: '<UTC time>-<short id>', e.g. '20261123T101500Z-3fa2c1d0'.")
    saved_at: str = Field(description="ISO 8601, UTC, with microseconds (orders runs saved in one second).")
    commit: str | None = Field(description="HEAD of the project's git repository; null when there is none.")
    goldsets: dict[str, str] = Field(description="Gold-set path (as in node ids) -> SHA-256 of its content.")
    agents: list[str]
    cases: int = Field(description="Case records (case x agent) in the run.")
    complete: bool = Field(description="False when the run was interrupted or some collected case never ran.")
    partial: bool = Field(default=False, description="True when only some of the gold sets' cases were selected.")
    report_dir: str | None = Field(default=None, description="The folder the run wrote its report to; null if unknown.")


def save_run(
    history: Path,
    report: RunReport,
    journal: Path | None,
    *,
    commit: str | None,
    goldsets: dict[str, str],
    partial: bool = False,
    report_dir: Path | None = None,
    now: datetime | None = None,
    results: Path | None = None,
) -> SavedRun:
    """Save ``report`` (and a copy of ``journal`` when given) as a new run under ``history``; return it.

    The run is written into a temporary directory in ``history`` and renamed into place in one step.
    ``results`` is the ``results.json`` of this very report when it was just written: it is copied rather
    than made again (0.2 s at 10,000 cases, issue 23).
    """
    moment = now or datetime.now(timezone.utc)
    run_id = f"{moment.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(4)}"
    saved = SavedRun(
        id=run_id,
        saved_at=moment.isoformat(timespec="microseconds"),
        commit=commit,
        goldsets=dict(sorted(goldsets.items())),
        agents=list(report.agents),
        cases=len(report.cases),
        complete=not report.incomplete,
        partial=partial,
        report_dir=None if report_dir is None else str(report_dir),
    )
    history.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=history, prefix=f".{run_id}.", suffix=".tmp"))
    try:
        if results is not None:
            shutil.copyfile(results, tmp / RESULTS_FILE)
        else:
            (tmp / RESULTS_FILE).write_bytes(render_json(report))  # the same bytes as the report's results.json
        (tmp / RUN_FILE).write_text(saved.model_dump_json(indent=2), encoding="utf-8")
        if journal is not None and journal.is_file():
            shutil.copyfile(journal, tmp / JOURNAL_FILE)
        os.chmod(tmp, 0o777 & ~_umask())
        os.rename(tmp, history / run_id)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return saved


def prune_runs(history: Path, keep: int) -> list[str]:
    """Remove the oldest saved runs under ``history`` beyond the newest ``keep``; return the ids removed.

    A run is removed by renaming it aside first (a reader never sees half of one); one that cannot be
    removed is left for the next save.
    """
    removed = []
    runs = list_runs(history)
    for run in runs[: max(0, len(runs) - keep)]:
        aside = history / f".{run.id}.removing"
        try:
            os.rename(history / run.id, aside)
        except OSError:
            continue
        shutil.rmtree(aside, ignore_errors=True)
        removed.append(run.id)
    return removed


def list_runs(history: Path) -> list[SavedRun]:
    """Return the saved runs under ``history``, oldest first; unreadable entries are skipped."""
    runs = []
    if not history.is_dir():
        return []
    for entry in history.iterdir():
        if entry.name.startswith(".") or not (entry / RUN_FILE).is_file():
            continue
        try:
            runs.append(SavedRun.model_validate_json((entry / RUN_FILE).read_text(encoding="utf-8")))
        except (OSError, ValidationError):
            continue
    return sorted(runs, key=lambda r: (r.saved_at, r.id))


def resolve_run(ref: str, history: Path, base: Path) -> Path:
    """Return the ``results.json`` that ``ref`` names.

    ``ref`` is ``latest``, ``previous`` (the run before the latest), either followed by ``:PATTERN`` to
    count only the runs holding a gold set that matches it (``latest:yaml/*``; see ``holds_goldset``),
    a saved run's id or a unique prefix of it, a run directory, or a ``results.json`` path (relative to
    ``base``). Raises ``HistoryError`` saying what was looked for and what exists.
    """
    path = base / ref
    if path.is_file():
        return path
    if path.is_dir() and (path / RESULTS_FILE).is_file():
        return path / RESULTS_FILE
    runs = list_runs(history)
    which, colon, pattern = ref.partition(":")
    if which in ("latest", "previous") and (not colon or pattern):
        if pattern:
            runs = [run for run in runs if holds_goldset(run, pattern)]
        needed = 1 if which == "latest" else 2
        if len(runs) < needed:
            held = f"{len(runs)} saved run(s) holding a gold set matching {pattern!r}" if pattern else f"{len(runs)} saved run(s)"
            raise HistoryError(
                f"{ref}: {history} holds {held}; run the benchmark (without --codesearch-no-save) to save one"
            )
        return history / runs[-needed].id / RESULTS_FILE
    matches = [r.id for r in runs if r.id.startswith(ref) or r.id.endswith(ref)]
    if len(matches) == 1:
        return history / matches[0] / RESULTS_FILE
    if matches:
        raise HistoryError(f"{ref}: names {len(matches)} saved runs ({', '.join(matches)}); give more of the id")
    raise HistoryError(
        f"{ref}: no such file, run directory or saved run in {history}; "
        "list saved runs with --codesearch-history, or use 'latest' / 'previous' (':PATTERN' for a gold set)"
    )


def holds_goldset(run: SavedRun, pattern: str) -> bool:
    """Return True when one of the run's gold sets matches ``pattern``: a glob (``fnmatch``) when it holds
    ``*``, ``?`` or ``[``, else a part of the gold set's path (``queries.yaml``, ``flask``)."""
    if any(char in pattern for char in "*?["):
        return any(fnmatch.fnmatchcase(goldset, pattern) for goldset in run.goldsets)
    return any(pattern in goldset for goldset in run.goldsets)


def load_report(path: Path) -> RunReport:
    """Return the run report in the ``results.json`` at ``path``; ``HistoryError`` names the file."""
    try:
        return RunReport.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HistoryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise HistoryError(f"{path}: not a results.json: {where}: {first['msg']}") from None


def git_commit(root: Path) -> str | None:
    """Return the commit HEAD names in the git repository holding ``root``; None without one."""
    import pygit2

    try:
        found = pygit2.discover_repository(str(root))
        if found is None:
            return None
        repo = pygit2.Repository(found)
        return None if repo.head_is_unborn else str(repo.head.target)
    except (pygit2.GitError, KeyError, ValueError):
        return None


def render_history(runs: list[SavedRun]) -> list[str]:
    """Return two lines per saved run, oldest first: id, time, cases, commit, state and agents, then its
    gold sets and report folder."""
    if not runs:
        return ["no saved runs"]
    lines = [f"{'id':<26} {'saved (UTC)':<19} {'cases':>6} {'commit':<12} {'state':<10} agents"]
    for run in runs:
        state = "partial" if run.partial else "complete" if run.complete else "incomplete"
        commit = (run.commit or "-")[:12]
        lines.append(
            f"{run.id:<26} {run.saved_at[:19]:<19} {run.cases:>6} {commit:<12} {state:<10} {', '.join(run.agents)}"
        )
        lines.append(f"{'':<26} gold sets: {', '.join(run.goldsets) or '-'}; report: {run.report_dir or '-'}")
    return lines


def is_partial(selected: int, available: int) -> bool:
    """Return True when a run selected fewer items than its gold sets hold (``-k``, ``--lf``, a node id)."""
    return selected < available


def _umask() -> int:
    from pytest_codesearch.atomic import current_umask

    return current_umask()
