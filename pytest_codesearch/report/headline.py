"""The headline of a run (the metrics its tables show and its comparisons test) and each column's leader.

Both are computed once, by ``build_run_report``, and stored in the ``RunReport``; writers only
render them.

**Automatic headline.** Ranking quality first: ``ndcg@10, mrr, hit@1, hit@5, recall@10, map``
(a cut-off the run lacks becomes the nearest one it has). Then ``f1``, only when some agent
returns sets rather than long ranked lists: its median answer length (over its answered cases,
cut at ``--codesearch-k`` when given) is at most the largest cut-off. Then ``f1_partial``, only
when it differs from ``f1`` in some case. Latency is not a metric: every writer shows it anyway.

**Leaders.** For every aggregated metric and for ``latency_ms.p50`` / ``latency_ms.p90``: the
agent(s) with the best value at the precision the writers show (3 decimals for metrics, 2 for
milliseconds), among at least two agents that have one; ``significant`` when there is a single
best and a significant paired comparison favours it over every runner-up (the agents with the
second-best value).
"""

from __future__ import annotations

import difflib
import statistics
from collections.abc import Mapping, Sequence

from pytest_codesearch.report.model import AgentSummary, CaseResult, Comparison, Leader, RunInfo, RunReport
from pytest_codesearch.scoring.registry import higher_is_better

RANKING_HEADLINE = ("ndcg@10", "mrr", "hit@1", "hit@5", "recall@10", "map")
"""Ranking-quality metrics every automatic headline starts with, most telling first."""
SET_HEADLINE = ("f1", "f1_partial")
"""Set metrics an automatic headline adds when some agent returns sets (see the module)."""
HEADLINE_METRICS: tuple[str, ...] = RANKING_HEADLINE + SET_HEADLINE
"""Every metric an automatic headline may hold, in headline order."""
LATENCY_COLUMNS = ("latency_ms.p50", "latency_ms.p90")
"""Leader keys of the latency columns (lower is better)."""
METRIC_DIGITS = 3
LATENCY_DIGITS = 2

def choose_headline(
    cases: Sequence[CaseResult], names: Sequence[str], run: RunInfo, wanted: Sequence[str] | None = None
) -> list[str]:
    """Return the run's headline: ``wanted`` checked against ``names``, or the automatic one.

    Raises ValueError naming an unknown metric, with the closest known name.
    """
    if wanted is not None:
        return _checked(wanted, names)
    headline = [_nearest(metric, names, run.ks) for metric in RANKING_HEADLINE]
    if "f1" in names and returns_sets(cases, run):
        headline.append("f1")
        if "f1_partial" in names and any(_differs(case) for case in cases):
            headline.append("f1_partial")
    return [name for name in dict.fromkeys(headline) if name is not None]


def headline_metrics(report: RunReport, wanted: Sequence[str] | None = None) -> list[str]:
    """Return the metrics of ``wanted`` (default ``HEADLINE_METRICS``) that the report holds, in that order."""
    present = set(report.metric_names())
    return [name for name in dict.fromkeys(HEADLINE_METRICS if wanted is None else wanted) if name in present]


def significant_leaders(report: RunReport, metrics: Sequence[str]) -> dict[str, str]:
    """Return metric -> its leader, for the metrics of ``metrics`` whose single best is significantly ahead.

    Reads ``report.leaders`` (computed once by ``build_run_report``); computes nothing itself.
    """
    found: dict[str, str] = {}
    for metric in metrics:
        leader = report.leaders.get(metric)
        if leader is not None and leader.significant:
            found[metric] = leader.agents[0]
    return found


def returns_sets(cases: Sequence[CaseResult], run: RunInfo) -> bool:
    """Return True when some agent's median answer length is at most the largest cut-off."""
    if not run.ks:
        return False
    lengths: dict[str, list[int]] = {}
    for case in cases:
        if case.status.answered:
            size = len(case.retrieved) if run.k is None else min(len(case.retrieved), run.k)
            lengths.setdefault(case.agent, []).append(size)
    return any(statistics.median(sizes) <= max(run.ks) for sizes in lengths.values())


def find_leaders(
    agents: Mapping[str, AgentSummary], comparisons: Sequence[Comparison], names: Sequence[str]
) -> dict[str, Leader]:
    """Return the leader of every metric of ``names`` and of each latency column (module docstring)."""
    leaders: dict[str, Leader] = {}
    for name in names:
        values = {a: round(s.metrics[name].mean, METRIC_DIGITS) for a, s in agents.items() if name in s.metrics}
        leader = _leader(values, higher_is_better(name), comparisons, name)
        if leader is not None:
            leaders[name] = leader
    for column in LATENCY_COLUMNS:
        attribute = column.rsplit(".", 1)[1]
        values = {}
        for agent, summary in agents.items():
            value = getattr(summary.latency_ms, attribute)
            if value is not None:
                values[agent] = round(value, LATENCY_DIGITS)
        leader = _leader(values, False, comparisons, column)
        if leader is not None:
            leaders[column] = leader
    return leaders


def _leader(
    values: Mapping[str, float], higher: bool, comparisons: Sequence[Comparison], metric: str
) -> Leader | None:
    """Return the best agent(s) of ``values`` and whether a single best is significantly ahead."""
    if len(values) < 2:
        return None
    ranked = sorted(set(values.values()), reverse=higher)
    best = [agent for agent, value in values.items() if value == ranked[0]]
    significant = False
    if len(best) == 1 and len(ranked) > 1:
        runners = [agent for agent, value in values.items() if value == ranked[1]]
        significant = all(_beats(comparisons, metric, best[0], runner, higher) for runner in runners)
    return Leader(agents=best, significant=significant)


def _beats(comparisons: Sequence[Comparison], metric: str, winner: str, loser: str, higher: bool) -> bool:
    """Return True when a significant comparison on ``metric`` favours ``winner`` over ``loser``."""
    for c in comparisons:
        if c.metric == metric and c.significant and {c.agent_a, c.agent_b} == {winner, loser}:
            ahead = c.mean_diff if c.agent_a == winner else -c.mean_diff
            return ahead > 0 if higher else ahead < 0
    return False


def _checked(wanted: Sequence[str], names: Sequence[str]) -> list[str]:
    """Return ``wanted`` without repeats, after checking that every name is a metric of the run."""
    for name in wanted:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"unknown headline metric {name!r}{hint}; the run has: {', '.join(names)}")
    return list(dict.fromkeys(wanted))


def _nearest(metric: str, names: Sequence[str], ks: Sequence[int]) -> str | None:
    """Return ``metric`` if the run has it, else the same metric at the nearest cut-off it has."""
    if metric in names:
        return metric
    base, at, k = metric.partition("@")
    if not at or not ks:
        return None
    nearest = min(ks, key=lambda cutoff: (abs(cutoff - int(k)), cutoff))
    candidate = f"{base}@{nearest}"
    return candidate if candidate in names else None


def _differs(case: CaseResult) -> bool:
    """Return True when the case's f1_partial differs from its f1."""
    return "f1_partial" in case.metrics and case.metrics["f1_partial"] != case.metrics.get("f1")
