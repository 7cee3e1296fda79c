"""Fold per-case results into the ``RunReport`` every writer renders.

Every figure is computed here, once, from the cases alone: per-agent summaries with bootstrap
intervals and status counts (``table``), the headline and each column's leaders (``headline``),
paired comparisons and power checks (``compare``), breakdowns (``breakdown``), the success metric
(``success``), costs (``cost``) and the recommendations (``recommend``). Writers render these
fields and compute none of their own. Random draws are seeded from ``run.seed`` and a label naming
what they are for, so the same cases and settings always give the same report. Every agent's cases are resampled
with the same draws (their rows are in the same case order), so two agents with the same
per-case scores get the same intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_codesearch.report.breakdown import build_breakdowns
from pytest_codesearch.report.compare import compare_agents, power_warnings
from pytest_codesearch.report.cost import summarize_costs
from pytest_codesearch.report.headline import choose_headline, find_leaders
from pytest_codesearch.report.model import AgentSummary, CaseResult, InvalidEntry, RunInfo, RunReport
from pytest_codesearch.report.recommend import recommend
from pytest_codesearch.report.success import success_metric
from pytest_codesearch.report.table import (
    AgentTable,
    metric_matrix,
    report_metric_names,
    summarize_group,
)
from pytest_codesearch.report.stats import seeded_rng
from pytest_codesearch.status import STATUS_VALUES


def build_run_report(
    run: RunInfo,
    cases: Sequence[CaseResult],
    metric_names: Sequence[str],
    invalid: Iterable[InvalidEntry] = (),
    not_run: Iterable[str] = (),
    *,
    optional: Sequence[str] = (),
    headline: Sequence[str] | None = None,
    compared: Sequence[str] | None = None,
) -> RunReport:
    """Return the run's report: cases in a stable order, summaries, headline, leaders, comparisons,
    status counts, success metric, costs and recommendations.

    ``metric_names`` are the metrics every case carries (``scoring.metric_names``); any other
    metric some case carries is aggregated over the cases that carry it and listed after them,
    in ``optional`` order first. ``headline`` names the metrics the tables show (None: chosen
    automatically, see ``report.headline``; a name the report lacks raises ValueError with the
    closest one). ``compared`` are the metrics on which every pair of agents is tested (None: the
    headline). Agents come in the order of ``run.agents``, then any other agent seen in ``cases``.
    The result does not depend on the order of ``cases``, so a serial run and an xdist run give
    the same report apart from timings and worker ids.
    """
    ordered = sorted(cases, key=case_sort_key)
    names = report_metric_names(ordered, metric_names, optional)
    chosen = choose_headline(ordered, names, run, headline)
    tables = [
        AgentTable(agent, tuple(group), metric_matrix(group, names, metric_names))
        for agent, group in _group_by_agent(run, ordered).items()
    ]
    comparisons, power = compare_agents(tables, names, chosen if compared is None else compared, run)
    agents = {table.agent: summarize_agent(table, names, run) for table in tables}
    success = success_metric(names)
    report = RunReport(
        run=run,
        agents=agents,
        headline=chosen,
        leaders=find_leaders(agents, comparisons, names),
        comparisons=comparisons,
        power=power,
        warnings=power_warnings(power, run.alpha),
        breakdowns=build_breakdowns(tables, names, run, whole=agents),
        cases=ordered,
        invalid=sorted(invalid, key=lambda e: (e.goldset, e.line, e.case_id or "")),
        not_run=sorted(set(not_run)),
        costs=summarize_costs(ordered, success),
        success_metric=success,
        status_counts=total_counts(agents.values()),
    )
    report.recommendations = recommend(report)
    return report


def case_sort_key(case: CaseResult) -> tuple[str, str, str, str]:
    """Order cases by gold set, case id and agent (node id breaks any remaining tie)."""
    return (case.goldset, case.id, case.agent, case.nodeid)


def total_counts(summaries: Iterable[AgentSummary]) -> dict[str, int]:
    """Return every status (in ``Status`` order) to its count summed over the agents' ``counts``."""
    totals = dict.fromkeys(STATUS_VALUES, 0)
    for summary in summaries:
        for status in STATUS_VALUES:
            totals[status] += summary.counts.get(status, 0)
    return totals


def summarize_agent(table: AgentTable, names: Sequence[str], run: RunInfo) -> AgentSummary:
    """Aggregate one agent's cases; an agent with no cases gets empty metrics and null latency."""
    rng = seeded_rng(run.seed, "agent")  # the same draws for every agent: twins get equal intervals
    group = summarize_group(table, names, run.bootstrap, rng)
    indexed = [c.index_ms for c in table.cases if c.indexed and c.index_ms is not None]
    return AgentSummary(
        **dict(group),
        index_ms={"total": float(sum(indexed)), "count": float(len(indexed))},
        workers=len({c.worker for c in table.cases}),
    )


def _group_by_agent(run: RunInfo, cases: Sequence[CaseResult]) -> dict[str, list[CaseResult]]:
    """Group cases by agent: ``run.agents`` order first, then agents in case order."""
    groups: dict[str, list[CaseResult]] = {name: [] for name in run.agents}
    for case in cases:
        groups.setdefault(case.agent, []).append(case)
    return groups
