"""Run reports: the ``RunReport`` model, its aggregation, and one writer per output format.

Aggregation decides (statuses, leaders, recommendations); the writers in ``render/`` render a finished
``RunReport`` and compute nothing of their own (``render/formats.py`` is their registry).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codesearch.report.aggregate import build_run_report
    from pytest_codesearch.report.headline import HEADLINE_METRICS, headline_metrics
    from pytest_codesearch.report.model import (
        AgentInfo,
        AgentSummary,
        Breakdowns,
        CaseResult,
        Comparison,
        GroupSummary,
        InvalidEntry,
        LatencySummary,
        Leader,
        MetricSummary,
        Pick,
        PowerCheck,
        Recommendations,
        RunInfo,
        RunReport,
    )

_LAZY = {
    "build_run_report": "aggregate",
    "HEADLINE_METRICS": "headline",
    "headline_metrics": "headline",
    **dict.fromkeys(
        ("AgentInfo", "AgentSummary", "Breakdowns", "CaseResult", "Comparison", "GroupSummary", "InvalidEntry",
         "LatencySummary", "Leader", "MetricSummary", "Pick", "PowerCheck", "Recommendations", "RunInfo", "RunReport"),
        "model",
    ),
}


def __getattr__(name: str) -> Any:
    """Import the report machinery (pydantic, numpy) on first use: ``report.formats`` stays cheap."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_codesearch.report' has no attribute {name!r}")
    return getattr(importlib.import_module(f"pytest_codesearch.report.{module}"), name)


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
    "Leader",
    "MetricSummary",
    "Pick",
    "PowerCheck",
    "Recommendations",
    "RunInfo",
    "RunReport",
    "build_run_report",
    "headline_metrics",
]
