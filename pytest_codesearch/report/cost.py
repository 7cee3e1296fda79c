"""Cost and tokens: what agents report in their answer's metadata, summed per agent (``render/cost.py``
shows them).

An agent may return ``cost_usd``, ``tokens_in`` and ``tokens_out`` in ``RetrievalResult.metadata``;
they reach ``CaseResult.metadata`` unchanged. ``summarize_costs`` sums them per agent (numbers only:
a string or a bool is ignored) and divides the cost by the answers that scored 1 on the run's success
metric (``report.success``: ``hit@10``, else the largest ``hit@k``): the cost per correct answer.
Agents that returned none of the three are left out, so a run without costs shows nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.report.model import AgentCost, CaseResult

COST_KEYS = ("cost_usd", "tokens_in", "tokens_out")
"""Metadata keys summed per agent."""


def summarize_costs(cases: Sequence[CaseResult], success: str | None) -> dict[str, AgentCost]:
    """Return agent -> summed cost and tokens, for the agents whose cases returned any (pure, order-free).

    ``success`` is the run's success metric: an answer scoring 1 on it is correct (none without it).
    """
    by_agent: dict[str, list[CaseResult]] = {}
    for case in cases:
        by_agent.setdefault(case.agent, []).append(case)
    costs = {}
    for agent in sorted(by_agent):
        summary = _agent_cost(by_agent[agent], success)
        if summary is not None:
            costs[agent] = summary
    return costs


def case_cost(case: CaseResult) -> dict[str, float]:
    """Return the case's ``COST_KEYS`` that hold a number (not a string, a bool or NaN), as floats."""
    metadata = case.metadata
    if not metadata:
        return {}
    return {k: float(v) for k in COST_KEYS if _is_number(v := metadata.get(k))}  # type: ignore[arg-type]


def _agent_cost(cases: list[CaseResult], metric: str | None) -> AgentCost | None:
    sums: dict[str, float] = {}
    reporting = 0
    for case in cases:
        values = case_cost(case)
        reporting += bool(values)
        for key, value in values.items():
            sums[key] = sums.get(key, 0.0) + value
    if not reporting:
        return None
    correct = 0 if metric is None else sum(1 for c in cases if c.metrics.get(metric) == 1.0)
    cost = sums.get("cost_usd")
    return AgentCost(
        cost_usd=cost,
        tokens_in=None if "tokens_in" not in sums else int(sums["tokens_in"]),
        tokens_out=None if "tokens_out" not in sums else int(sums["tokens_out"]),
        cases=reporting,
        correct=correct,
        correct_metric=metric,
        cost_per_correct=None if cost is None or not correct else cost / correct,
    )


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
