"""The aggregates again, per group of cases: per complexity, category, gold set and repository.

``breakdowns.<dimension>.<value>.<agent>`` is a ``GroupSummary`` of that agent's cases having that
value. Cases without a value (no complexity in the gold set, a crashed worker's case without a
repository) are grouped under ``NO_VALUE``. Values are sorted, ``NO_VALUE`` last; agents keep the
report's order and appear only in groups where they have cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_codesearch.report.model import Breakdowns, CaseResult, GroupSummary, RunInfo
from pytest_codesearch.report.table import AgentTable, summarize_group
from pytest_codesearch.report.stats import seeded_rng

DIMENSIONS = ("complexity", "category", "goldset", "repo")
"""The case fields the report breaks down by, as keys of ``breakdowns``."""
NO_VALUE = "(none)"
"""The group of cases that have no value for a dimension."""


def build_breakdowns(
    tables: Sequence[AgentTable],
    names: Sequence[str],
    run: RunInfo,
    whole: Mapping[str, GroupSummary] | None = None,
) -> Breakdowns:
    """Return every dimension's groups, each holding one summary per agent with cases in it.

    ``whole`` (agent -> the summary of all its cases) is reused for a group that holds every case
    of an agent, as the gold set and repository groups of a one-gold-set run do: same figures, no
    second bootstrap.
    """
    return Breakdowns(**{dim: breakdown(dim, tables, names, run, whole or {}) for dim in DIMENSIONS})


def breakdown(
    dimension: str,
    tables: Sequence[AgentTable],
    names: Sequence[str],
    run: RunInfo,
    whole: Mapping[str, GroupSummary] | None = None,
) -> dict[str, dict[str, GroupSummary]]:
    """Return value -> agent -> summary for one dimension; each group's draws are seeded by its value."""
    whole = whole or {}
    rows: dict[str, dict[str, list[int]]] = {}
    for table in tables:
        for row, case in enumerate(table.cases):
            rows.setdefault(group_value(case, dimension), {}).setdefault(table.agent, []).append(row)
    found: dict[str, dict[str, GroupSummary]] = {}
    for value in sorted(rows, key=lambda v: (v == NO_VALUE, v)):
        found[value] = {
            table.agent: _whole_or(whole, table, rows[value][table.agent])
            or summarize_group(
                table.take(rows[value][table.agent]),
                names,
                run.bootstrap,
                seeded_rng(run.seed, "breakdown", dimension, value),
            )
            for table in tables
            if table.agent in rows[value]
        }
    return found


def _whole_or(whole: Mapping[str, GroupSummary], table: AgentTable, rows: list[int]) -> GroupSummary | None:
    """Return the agent's whole summary when ``rows`` are all its cases, else None."""
    summary = whole.get(table.agent)
    if summary is None or len(rows) != len(table.cases):
        return None
    return GroupSummary(
        metrics=summary.metrics, latency_ms=summary.latency_ms, counts=summary.counts, failures=summary.failures
    )


def group_value(case: CaseResult, dimension: str) -> str:
    """Return the case's value for ``dimension`` (a ``CaseResult`` field), or ``NO_VALUE``."""
    value = getattr(case, dimension)
    return NO_VALUE if value is None or value == "" else str(value)
