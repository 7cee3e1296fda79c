"""Run reports: the ``RunReport`` model, its aggregation, and one writer per output format.

Writers render a finished ``RunReport`` and compute nothing of their own:
``json_report.write_json``, ``csv_report.write_csv``, ``markdown.render_markdown`` /
``write_markdown`` and ``terminal.render_terminal``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.compare import HEADLINE_METRICS
from pytest_codesearch.report.model import (
    AgentInfo,
    AgentSummary,
    Breakdowns,
    CaseResult,
    Comparison,
    GroupSummary,
    InvalidEntry,
    LatencySummary,
    MetricSummary,
    PowerCheck,
    RunInfo,
    RunReport,
)

def headline_metrics(report: RunReport, wanted: Sequence[str] = HEADLINE_METRICS) -> list[str]:
    """Return the metrics of ``wanted`` that the report holds, in ``wanted`` order."""
    present = set(report.metric_names())
    return [name for name in dict.fromkeys(wanted) if name in present]


__all__ = [
    "HEADLINE_METRICS",
    "AgentInfo",
    "AgentSummary",
    "Breakdowns",
    "CaseResult",
    "Comparison",
    "GroupSummary",
    "InvalidEntry",
    "LatencySummary",
    "MetricSummary",
    "PowerCheck",
    "RunInfo",
    "RunReport",
    "build_run_report",
    "headline_metrics",
]
