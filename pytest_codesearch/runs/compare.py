"""Comparisons of saved runs: what changed between run A (before) and run B (after), and is it real?

For every agent in both runs and every compared metric: the means of each run (from its
summaries), and a paired test on the cases both runs answered with that agent, matched by
(gold set, case id): the mean paired difference (after - before), its bootstrap 95% interval
(``stats.bootstrap_ci``), the two-sided sign-flip p-value (``stats.sign_flip_pvalues``) and Holm's
correction over every test of the comparison (``stats.holm``). Latency figures
(``latency_p50``, ``latency_p90``, ``latency_p99``, ``latency_mean``) are paired on the per-case
median latency of the cases both runs answered. The cases that changed are those hit by one run and
missed by the other, on the success metric of the metrics both runs share (``report.success``:
``hit@10``, else the largest ``hit@k``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pytest_codesearch.report.render.mdtable import MISSING, escape_cell, table
from pytest_codesearch.report.model import AgentSummary, CaseResult, RunReport
from pytest_codesearch.report.stats import bootstrap_ci, holm, seeded_rng, sign_flip_pvalues
from pytest_codesearch.report.success import success_metric

LATENCY_FIGURES = ("latency_p50", "latency_p90", "latency_p99", "latency_mean")
"""Latency figures a comparison (and a gate) can name; lower is better."""


@dataclass(frozen=True)
class MetricDelta:
    """One agent's metric in two runs, with the paired test on the cases both answered."""

    agent: str
    metric: str
    before: float | None
    after: float | None
    n: int
    mean_diff: float | None
    ci95: tuple[float, float] | None
    p_value: float | None
    p_holm: float | None = None
    significant: bool = False

    @property
    def diff(self) -> float | None:
        """Return after - before of the runs' own figures (None when either is missing)."""
        return None if self.before is None or self.after is None else self.after - self.before


@dataclass(frozen=True)
class ChangedCase:
    """A case one run hit and the other missed."""

    agent: str
    goldset: str
    case_id: str
    query: str
    hit_after: bool


@dataclass(frozen=True)
class RunComparison:
    """Everything a comparison of two runs shows."""

    before: str
    after: str
    deltas: list[MetricDelta]
    changed: list[ChangedCase]
    hit_metric: str | None
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)


def summary_value(summary: AgentSummary, metric: str) -> float | None:
    """Return an agent's figure for ``metric``: a metric's mean or a latency percentile (ms)."""
    if metric in LATENCY_FIGURES:
        value: float | None = getattr(summary.latency_ms, metric.removeprefix("latency_"))
        return value
    found = summary.metrics.get(metric)
    return None if found is None else found.mean


def case_value(case: CaseResult, metric: str) -> float | None:
    """Return one case's value behind ``metric``: its score, or its latency for a latency figure."""
    if metric in LATENCY_FIGURES:
        return case.latency_ms
    return case.metrics.get(metric)


def paired_values(before: RunReport, after: RunReport, agent: str, metric: str) -> tuple[list[float], list[float]]:
    """Return the values of ``metric`` on the cases of ``agent`` that both runs carry, in case order."""
    old = {(c.goldset, c.id): case_value(c, metric) for c in before.cases if c.agent == agent}
    new = {(c.goldset, c.id): case_value(c, metric) for c in after.cases if c.agent == agent}
    keys = sorted(k for k in old.keys() & new.keys() if old[k] is not None and new[k] is not None)
    return [float(old[k]) for k in keys], [float(new[k]) for k in keys]  # type: ignore[arg-type]


def compare_runs(
    before: RunReport,
    after: RunReport,
    metrics: Sequence[str],
    *,
    labels: tuple[str, str] = ("before", "after"),
    alpha: float | None = None,
) -> RunComparison:
    """Return the comparison of ``after`` against ``before`` on ``metrics`` (seeded by the later run's seed)."""
    shared = [a for a in after.agents if a in before.agents]
    level = after.run.alpha if alpha is None else alpha
    raw = [
        _delta(before, after, agent, metric)
        for agent in shared
        for metric in metrics
        if summary_value(after.agents[agent], metric) is not None
        or summary_value(before.agents[agent], metric) is not None
    ]
    tested = [i for i, d in enumerate(raw) if d.p_value is not None]
    adjusted = holm([raw[i].p_value for i in tested])  # type: ignore[misc]
    deltas = list(raw)
    for i, p in zip(tested, adjusted):
        deltas[i] = MetricDelta(**{**raw[i].__dict__, "p_holm": p, "significant": p < level})
    hit = _hit_metric(before, after)
    return RunComparison(
        before=labels[0],
        after=labels[1],
        deltas=deltas,
        changed=_changed(before, after, shared, hit) if hit else [],
        hit_metric=hit,
        only_before=[a for a in before.agents if a not in after.agents],
        only_after=[a for a in after.agents if a not in before.agents],
    )


def _delta(before: RunReport, after: RunReport, agent: str, metric: str) -> MetricDelta:
    old, new = paired_values(before, after, agent, metric)
    figures = (summary_value(before.agents[agent], metric), summary_value(after.agents[agent], metric))
    if not old:
        return MetricDelta(agent, metric, *figures, n=0, mean_diff=None, ci95=None, p_value=None)
    diffs = (np.asarray(new) - np.asarray(old))[:, None]
    rng = seeded_rng(after.run.seed, "compare-runs", agent, metric)
    ((low, high),) = bootstrap_ci(diffs, after.run.bootstrap, rng)
    (p,) = sign_flip_pvalues(diffs, rng)
    return MetricDelta(agent, metric, *figures, n=len(old), mean_diff=float(diffs.mean()), ci95=(low, high), p_value=p)


def _hit_metric(before: RunReport, after: RunReport) -> str | None:
    """Return the success metric (``report.success``) of the metrics both runs have."""
    return success_metric(set(before.metric_names()) & set(after.metric_names()))


def _changed(before: RunReport, after: RunReport, agents: list[str], hit: str) -> list[ChangedCase]:
    old = {(c.agent, c.goldset, c.id): c.metrics.get(hit) for c in before.cases}
    changed = []
    for case in sorted(after.cases, key=lambda c: (c.agent, c.goldset, c.id)):
        was = old.get((case.agent, case.goldset, case.id))
        now = case.metrics.get(hit)
        if case.agent in agents and was is not None and now is not None and bool(was) != bool(now):
            changed.append(ChangedCase(case.agent, case.goldset, case.id, case.query, hit_after=bool(now)))
    return changed


def render_comparison(comparison: RunComparison, max_cases: int = 50) -> str:
    """Return the comparison as GitHub-flavoured markdown: deltas with tests, then the changed cases."""
    rows = [_delta_row(d) for d in comparison.deltas]
    header = ["agent", "metric", comparison.before, comparison.after, "Δ", "paired Δ [95% CI]", "n", "p (Holm)"]
    parts = [
        f"# Comparison: {escape_cell(comparison.before)} → {escape_cell(comparison.after)}",
        table(header, [":---", ":---", "---:", "---:", "---:", "---:", "---:", "---:"], rows),
        "Δ is after − before. The paired test compares the cases both runs answered with the agent "
        "(sign-flip test, Holm's correction over the table); * marks a significant difference.",
    ]
    for label, agents in ((comparison.before, comparison.only_before), (comparison.after, comparison.only_after)):
        if agents:
            parts.append(f"Agents only in {escape_cell(label)}: {escape_cell(', '.join(agents))}")
    parts.append(_changed_section(comparison, max_cases))
    return "\n\n".join(parts) + "\n"


def _delta_row(d: MetricDelta) -> list[str]:
    paired = MISSING
    if d.mean_diff is not None and d.ci95 is not None:
        paired = f"{d.mean_diff:+.3f} [{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]"
    p = MISSING if d.p_holm is None else f"{d.p_holm:.3g}{' *' if d.significant else ''}"
    return [d.agent, d.metric, _num(d.before), _num(d.after), _num(d.diff, sign=True), paired, str(d.n), p]


def _num(value: float | None, *, sign: bool = False) -> str:
    if value is None:
        return MISSING
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def _changed_section(comparison: RunComparison, max_cases: int) -> str:
    if comparison.hit_metric is None:
        return "## Cases that changed\n\nThe runs share no hit@k metric."
    lost = [c for c in comparison.changed if not c.hit_after]
    won = [c for c in comparison.changed if c.hit_after]
    head = (
        f"## Cases that changed\n\nOn {comparison.hit_metric}: {len(lost)} hit before and missed now, "
        f"{len(won)} missed before and hit now."
    )
    rows = [[c.agent, "lost" if not c.hit_after else "won", c.goldset, c.case_id, c.query] for c in lost + won]
    shown = table(["agent", "change", "gold set", "case", "query"], [":---"] * 5, rows[:max_cases]) if rows else ""
    more = f"… and {len(rows) - max_cases} more." if len(rows) > max_cases else ""
    return "\n\n".join(p for p in (head, shown, more) if p)
