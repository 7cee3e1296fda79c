"""Comparisons of saved runs: what changed between run A (before) and run B (after), and is it real?

A comparison is scoped to the gold sets both runs hold (by name, as cases carry it): cases of a gold
set only one run holds are left out and named, and two runs that share none cannot be compared
(``ComparisonError``). For every agent in both runs and every compared metric: each run's figure on
those gold sets (its summary's when nothing is left out), and a paired test on the cases both runs
carry for that agent, matched by (gold set, case id): the mean paired difference (after - before),
its bootstrap 95% interval (``stats.bootstrap_ci``), the two-sided sign-flip p-value
(``stats.sign_flip_pvalues``) and Holm's correction over the family of every test of the comparison
(agents x metrics; ``family`` says how many). The gates (``runs/gates.py``) run this same comparison
on the gated metrics only, so their family, and so their p, differs. Latency figures
(``latency_p50``, ``latency_p90``, ``latency_p99``, ``latency_mean``) are paired on each case's cost as
the report counts it (``report.table.case_latency``: a failed case costs the time until it failed, a
timeout at least its budget). Per case, the rank of the first relevant file in each run
(``CaseResult.first_relevant_rank``) gives the biggest wins and losses; the cases hit by one run and
missed by the other are counted on the success metric both runs share (``report.success``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pytest_codesearch.report.model import AgentSummary, CaseResult, RunReport
from pytest_codesearch.report.stats import bootstrap_ci, holm, seeded_rng, sign_flip_pvalues, summarize_present
from pytest_codesearch.report.success import success_metric
from pytest_codesearch.report.table import case_latency, latency_summary, metric_matrix
from pytest_codesearch.scoring import metric_names as required_metric_names

LATENCY_FIGURES = ("latency_p50", "latency_p90", "latency_p99", "latency_mean")
"""Latency figures a comparison (and a gate) can name; lower is better."""


class ComparisonError(ValueError):
    """Two runs that cannot be compared; str() is one line saying why."""


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
class RankChange:
    """A case whose first relevant file moved: its rank in each run (None: none found, or the case failed)."""

    agent: str
    goldset: str
    case_id: str
    query: str
    before: int | None
    after: int | None

    @property
    def gain(self) -> float:
        """Return the change of the reciprocal rank, after - before (a miss counts 0): > 0 is a win."""
        return (1.0 / self.after if self.after else 0.0) - (1.0 / self.before if self.before else 0.0)


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
    goldsets: list[str] = field(default_factory=list)
    """The gold sets both runs hold: the comparison's scope."""
    goldsets_only_before: list[str] = field(default_factory=list)
    goldsets_only_after: list[str] = field(default_factory=list)
    ranks: list[RankChange] = field(default_factory=list)
    """The paired cases whose first relevant rank changed, biggest win first."""
    family: int = 0
    """Tests Holm's correction was made over (the tested agent x metric pairs)."""
    alpha: float = 0.05

    @property
    def wins(self) -> list[RankChange]:
        """Return the cases whose first relevant file moved up, biggest win first."""
        return [c for c in self.ranks if c.gain > 0]

    @property
    def losses(self) -> list[RankChange]:
        """Return the cases whose first relevant file moved down, biggest loss first."""
        return [c for c in reversed(self.ranks) if c.gain < 0]

    def hit_note(self) -> str:
        """Return how many cases the success metric lost and gained ('' without one)."""
        if self.hit_metric is None:
            return ""
        lost = sum(not c.hit_after for c in self.changed)
        return f"On {self.hit_metric}: {lost} hit before and missed now, {len(self.changed) - lost} missed before and hit now."


def summary_value(summary: AgentSummary, metric: str) -> float | None:
    """Return an agent's figure for ``metric``: a metric's mean or a latency percentile (ms)."""
    if metric in LATENCY_FIGURES:
        value: float | None = getattr(summary.latency_ms, metric.removeprefix("latency_"))
        return value
    found = summary.metrics.get(metric)
    return None if found is None else found.mean


def case_value(case: CaseResult, metric: str) -> float | None:
    """Return one case's value behind ``metric``: its score, or its cost in ms for a latency figure
    (``case_latency``: what the report's latency counts, failed cases included)."""
    if metric in LATENCY_FIGURES:
        return case_latency(case)
    return case.metrics.get(metric)


def paired_values(before: RunReport, after: RunReport, agent: str, metric: str) -> tuple[list[float], list[float]]:
    """Return the values of ``metric`` on the cases of ``agent`` that both runs carry, in case order."""
    old = {(c.goldset, c.id): case_value(c, metric) for c in before.cases if c.agent == agent}
    new = {(c.goldset, c.id): case_value(c, metric) for c in after.cases if c.agent == agent}
    keys = sorted(k for k in old.keys() & new.keys() if old[k] is not None and new[k] is not None)
    return [float(old[k]) for k in keys], [float(new[k]) for k in keys]  # type: ignore[arg-type]


def goldsets_of(report: RunReport) -> list[str]:
    """Return the gold sets a run holds: those its settings name and those its cases come from."""
    return sorted({*report.run.goldsets, *(case.goldset for case in report.cases)})


def compare_runs(
    before: RunReport,
    after: RunReport,
    metrics: Sequence[str],
    *,
    labels: tuple[str, str] = ("before", "after"),
    alpha: float | None = None,
) -> RunComparison:
    """Return the comparison of ``after`` against ``before`` on ``metrics`` (seeded by the later run's seed),
    on the gold sets both hold; ``ComparisonError`` when they hold none in common."""
    old_sets, new_sets = goldsets_of(before), goldsets_of(after)
    shared = sorted(set(old_sets) & set(new_sets))
    if not shared:
        raise ComparisonError(
            f"{labels[0]} and {labels[1]} share no gold set ({labels[0]}: {', '.join(old_sets) or 'none'}; "
            f"{labels[1]}: {', '.join(new_sets) or 'none'}): nothing to compare"
        )
    scoped_before, scoped_after = _scoped(before, shared), _scoped(after, shared)
    agents = [a for a in after.agents if a in before.agents]
    level = after.run.alpha if alpha is None else alpha
    raw = [
        _delta(scoped_before, scoped_after, agent, metric, (before, after))
        for agent in agents
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
        changed=_changed(scoped_before, scoped_after, agents, hit) if hit else [],
        hit_metric=hit,
        only_before=[a for a in before.agents if a not in after.agents],
        only_after=[a for a in after.agents if a not in before.agents],
        goldsets=shared,
        goldsets_only_before=[g for g in old_sets if g not in shared],
        goldsets_only_after=[g for g in new_sets if g not in shared],
        ranks=rank_changes(scoped_before, scoped_after, agents),
        family=len(tested),
        alpha=level,
    )


def compare_headline(before: RunReport, after: RunReport, labels: tuple[str, str]) -> RunComparison:
    """Return the comparison a person reads: ``after``'s headline metrics and the latency figures, on the
    gold sets both runs hold (``ComparisonError`` when none)."""
    from pytest_codesearch.report.headline import headline_metrics

    metrics = [*headline_metrics(after), "latency_p50", "latency_p90"]
    metrics = [m for m in metrics if m in LATENCY_FIGURES or m in before.metric_names()]
    return compare_runs(before, after, metrics, labels=labels)


def _scoped(report: RunReport, goldsets: list[str]) -> RunReport:
    """Return ``report`` with only the cases of ``goldsets`` (itself when it holds no other)."""
    keep = set(goldsets)
    if all(case.goldset in keep for case in report.cases):
        return report
    return report.model_copy(update={"cases": [c for c in report.cases if c.goldset in keep]})


def _figure(report: RunReport, whole: RunReport, agent: str, metric: str) -> float | None:
    """Return the agent's figure on the scoped run: its summary's when the scope left nothing out."""
    if report is whole:
        return summary_value(whole.agents[agent], metric)
    cases = [case for case in report.cases if case.agent == agent]
    if not cases:
        return None
    if metric in LATENCY_FIGURES:
        value: float | None = getattr(latency_summary(cases), metric.removeprefix("latency_"))
        return value
    required = {metric} & set(required_metric_names(report.run.ks))  # a failed case without it scores 0
    (summary,) = summarize_present(metric_matrix(cases, [metric], required))
    return None if summary is None else summary["mean"]


def _delta(
    before: RunReport, after: RunReport, agent: str, metric: str, whole: tuple[RunReport, RunReport]
) -> MetricDelta:
    old, new = paired_values(before, after, agent, metric)
    figures = (_figure(before, whole[0], agent, metric), _figure(after, whole[1], agent, metric))
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


def rank_changes(before: RunReport, after: RunReport, agents: Sequence[str]) -> list[RankChange]:
    """Return the cases both runs carry whose first relevant rank differs, biggest win first (ties by
    agent, gold set and case id), biggest loss last."""
    old = {(c.agent, c.goldset, c.id): c for c in before.cases if c.agent in agents}
    moved = []
    for case in after.cases:
        was = old.get((case.agent, case.goldset, case.id))
        if was is None:
            continue
        change = RankChange(case.agent, case.goldset, case.id, case.query, was.first_relevant_rank(),
                            case.first_relevant_rank())  # fmt: skip
        if change.before != change.after:
            moved.append(change)
    return sorted(moved, key=lambda c: (-c.gain, c.agent, c.goldset, c.case_id))
