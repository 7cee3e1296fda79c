"""``pytest --codesearch-history`` and ``--codesearch-compare A B ...``: read saved runs, run no case."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_codesearch.runs.history import (
    HistoryError,
    history_dir,
    list_runs,
    load_report,
    render_history,
    resolve_run,
)
from pytest_codesearch.settings.model import Settings


def run_history_command(settings: Settings, here: Path) -> int | None:
    """Run ``--codesearch-history`` or ``--codesearch-compare`` when asked; None lets the session run."""
    if settings.history:
        history = history_dir(settings.cache_dir)
        sys.stdout.write(f"saved runs in {history}:\n" + "\n".join(render_history(list_runs(history))) + "\n")
        return 0
    if settings.compare:
        return _compare(settings, list(settings.compare), here)
    return None


def _compare(settings: Settings, refs: list[str], here: Path) -> int:
    """Compare each run after the first with the first, on the gold sets both hold; print the markdown and
    write ``comparison.md`` and ``comparison.html`` (the formats asked for). Two runs that share no gold set are a usage error, in one line."""
    from pytest_codesearch.report.render.formats import write_reports
    from pytest_codesearch.runs.compare import ComparisonError, compare_headline
    from pytest_codesearch.runs.compare_render import render_comparison

    if len(refs) < 2:
        raise pytest.UsageError("--codesearch-compare: give at least two runs, e.g. previous latest")
    history = history_dir(settings.cache_dir)
    try:
        reports = [load_report(resolve_run(ref, history, here)) for ref in refs]
    except HistoryError as exc:
        raise pytest.UsageError(str(exc)) from None
    base = reports[0]
    comparisons = []
    for ref, report in zip(refs[1:], reports[1:]):
        try:
            comparisons.append(compare_headline(base, report, labels=(refs[0], ref)))
        except ComparisonError as exc:
            raise pytest.UsageError(f"--codesearch-compare: {exc}") from None
    sys.stdout.write("\n".join(render_comparison(c) for c in comparisons))
    written = write_reports(reports[-1], settings.report_dir, settings.formats, comparisons, only_comparisons=True)
    if written:
        sys.stdout.write(f"\ncomparison written to {', '.join(str(p) for p in written)}\n")
    return 0
