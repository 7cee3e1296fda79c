"""``results.csv``: one row per case, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.model import CaseResult, RunReport

Cell: TypeAlias = "str | float | None"

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
LEADING_COLUMNS = ("id", "goldset", "agent", "status", "query", "retrieved", "ground_truth")
TRAILING_COLUMNS = ("latency_ms", "index_ms", "indexed", "error")
LIST_SEPARATOR = ";"


def csv_columns(report: RunReport) -> list[str]:
    """Return the header: case fields, one column per metric, then timings and error."""
    return [*LEADING_COLUMNS, *report.metric_names(), *TRAILING_COLUMNS]


def neutralize(text: str) -> str:
    """Prefix ``'`` to text a spreadsheet would run as a formula (OWASP CSV injection)."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def render_csv(report: RunReport) -> str:
    """Return ``results.csv``; numbers stay numeric, text cells are neutralised."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    metrics = report.metric_names()
    writer.writerow(csv_columns(report))
    for case in report.cases:
        writer.writerow(_row(case, metrics))
    return buffer.getvalue()


def write_csv(report: RunReport, path: Path) -> None:
    """Write ``results.csv`` atomically."""
    write_atomic(path, render_csv(report))


def _row(case: CaseResult, metrics: Sequence[str]) -> list[Cell]:
    """Return one case's cells; a metric the case has no score for is left blank."""
    text = [
        case.id,
        case.goldset,
        case.agent,
        case.status,
        case.query,
        LIST_SEPARATOR.join(case.retrieved),
        LIST_SEPARATOR.join(case.ground_truth),
    ]
    numbers: list[Cell] = [case.metrics.get(name) for name in metrics]
    numbers += [case.latency_ms, case.index_ms]
    tail = ["true" if case.indexed else "false", case.error or ""]
    return [*map(neutralize, text), *numbers, *map(neutralize, tail)]
