"""Fold per-case results into the ``RunReport`` every writer renders."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from pytest_codesearch.report.model import (
    AgentSummary,
    CaseResult,
    InvalidEntry,
    LatencySummary,
    MetricSummary,
    RunInfo,
    RunReport,
)
from pytest_codesearch.stats import latency_percentiles, summarize_columns


def build_run_report(
    run: RunInfo,
    cases: Sequence[CaseResult],
    metric_names: Sequence[str],
    invalid: Iterable[InvalidEntry] = (),
    not_run: Iterable[str] = (),
) -> RunReport:
    """Return the run's report: cases in a stable order and one summary per agent.

    Agents come in the order of ``run.agents``, then any other agent seen in ``cases``. The
    result does not depend on the order of ``cases``, so a serial run and an xdist run give
    the same report apart from timings and worker ids.
    """
    ordered = sorted(cases, key=case_sort_key)
    by_agent = _group_by_agent(run, ordered)
    agents = {name: summarize_agent(group, metric_names) for name, group in by_agent.items()}
    return RunReport(
        run=run,
        agents=agents,
        cases=ordered,
        invalid=sorted(invalid, key=lambda e: (e.goldset, e.line, e.case_id or "")),
        not_run=sorted(set(not_run)),
    )


def case_sort_key(case: CaseResult) -> tuple[str, str, str, str]:
    """Order cases by gold set, case id and agent (node id breaks any remaining tie)."""
    return (case.goldset, case.id, case.agent, case.nodeid)


def summarize_agent(cases: Sequence[CaseResult], metric_names: Sequence[str]) -> AgentSummary:
    """Aggregate one agent's cases; an agent with no cases gets empty metrics and null latency."""
    metrics: dict[str, MetricSummary] = {}
    if cases:
        summaries = summarize_columns(metric_matrix(cases, metric_names))
        metrics = {n: MetricSummary(**s) for n, s in zip(metric_names, summaries)}
    latencies = [c.latency_ms for c in cases if c.status == "ok" and c.latency_ms is not None]
    indexed = [c.index_ms for c in cases if c.indexed and c.index_ms is not None]
    return AgentSummary(
        metrics=metrics,
        latency_ms=LatencySummary(**latency_percentiles(latencies)),
        index_ms={"total": float(sum(indexed)), "count": float(len(indexed))},
        counts=_counts(cases),
        workers=len({c.worker for c in cases}),
    )


def metric_matrix(
    cases: Sequence[CaseResult], metric_names: Sequence[str]
) -> npt.NDArray[np.float64]:
    """Return a (cases x metrics) array; every metric of an error case is 0.0.

    Raises ``ValueError`` when an ``ok`` case lacks one of ``metric_names``: scoring and
    aggregation disagree, and silently scoring it 0 would hide that.
    """
    matrix = np.zeros((len(cases), len(metric_names)), dtype=np.float64)
    for row, case in enumerate(cases):
        if case.status != "ok":
            continue
        missing = [n for n in metric_names if n not in case.metrics]
        if missing:
            raise ValueError(f"{case.nodeid}: status ok but no score for {', '.join(missing)}")
        matrix[row] = [case.metrics[n] for n in metric_names]
    return matrix


def _group_by_agent(run: RunInfo, cases: Sequence[CaseResult]) -> dict[str, list[CaseResult]]:
    """Group cases by agent: ``run.agents`` order first, then agents in case order."""
    groups: dict[str, list[CaseResult]] = {name: [] for name in run.agents}
    for case in cases:
        groups.setdefault(case.agent, []).append(case)
    return groups


def _counts(cases: Sequence[CaseResult]) -> dict[str, int]:
    """Count cases by outcome."""
    ok = sum(1 for c in cases if c.status == "ok")
    return {
        "cases": len(cases),
        "ok": ok,
        "error": len(cases) - ok,
        "nondeterministic": sum(1 for c in cases if c.nondeterministic),
    }
