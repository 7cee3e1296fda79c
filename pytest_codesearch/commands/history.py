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
    write ``comparison.md``. Two runs that share no gold set are a usage error, in one line."""
    from pytest_codesearch.atomic import write_atomic
    from pytest_codesearch.runs.compare import LATENCY_FIGURES, ComparisonError, compare_runs
    from pytest_codesearch.runs.compare_render import render_comparison
    from pytest_codesearch.report.headline import headline_metrics

    if len(refs) < 2:
        raise pytest.UsageError("--codesearch-compare: give at least two runs, e.g. previous latest")
    history = history_dir(settings.cache_dir)
    try:
        reports = [load_report(resolve_run(ref, history, here)) for ref in refs]
    except HistoryError as exc:
        raise pytest.UsageError(str(exc)) from None
    base = reports[0]
    parts = []
    for ref, report in zip(refs[1:], reports[1:]):
        metrics = [*headline_metrics(report), "latency_p50", "latency_p90"]
        metrics = [m for m in metrics if m in LATENCY_FIGURES or m in base.metric_names()]
        try:
            comparison = compare_runs(base, report, metrics, labels=(refs[0], ref))
        except ComparisonError as exc:
            raise pytest.UsageError(f"--codesearch-compare: {exc}") from None
        parts.append(render_comparison(comparison))
    text = "\n".join(parts)
    target = settings.report_dir / "comparison.md"
    sys.stdout.write(text + f"\ncomparison written to {target}\n")
    write_atomic(target, text)
    return 0
