"""Cases as numbers: one metric matrix per agent, and the summaries read from it.

Aggregates, breakdowns and comparisons all start from an ``AgentTable``: an agent's cases in
report order and a (cases x metrics) matrix in which NaN means "this metric does not apply to
this case". Only the always-present metrics (``required``) are filled with 0.0 for an error case
that carries no scores (a crashed worker's case, or a record written before error cases carried
their zeros), so no case silently leaves the mean of those.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from pytest_codesearch.status import Status
from pytest_codesearch.report.model import CaseResult, GroupSummary, LatencySummary, MetricSummary
from pytest_codesearch.scoring.registry import needs_order
from pytest_codesearch.report.stats import bootstrap_ci_present, latency_percentiles, summarize_present


@dataclass(frozen=True)
class AgentTable:
    """One agent's cases, in report order, and their metric matrix (NaN where a metric is absent)."""

    agent: str
    cases: tuple[CaseResult, ...]
    matrix: npt.NDArray[np.float64]

    def take(self, rows: Sequence[int]) -> AgentTable:
        """Return the table of the cases at ``rows`` only."""
        index = np.asarray(rows, dtype=np.intp)
        return AgentTable(self.agent, tuple(self.cases[i] for i in rows), self.matrix[index])


def report_metric_names(
    cases: Sequence[CaseResult], required: Sequence[str], optional: Sequence[str] = ()
) -> list[str]:
    """Return the metric names of the report: ``required``, then every other name some case carries.

    The other names come in ``optional`` order, then in order of first appearance in ``cases``
    (callers pass cases sorted by ``case_sort_key``, so the order does not depend on arrival).
    """
    known = set(required)
    seen = dict.fromkeys(name for case in cases for name in case.metrics if name not in known)
    listed = [name for name in dict.fromkeys(optional) if name in seen]
    return [*required, *listed, *(name for name in seen if name not in listed)]


def metric_matrix(
    cases: Sequence[CaseResult], names: Sequence[str], required: Collection[str] | None = None
) -> npt.NDArray[np.float64]:
    """Return a (cases x names) array of scores; NaN where a case does not carry a metric.

    ``required`` (default: every name) are the metrics every case must carry: an error case
    without a score for one of them gets 0.0, and an ``ok`` case without one raises
    ``ValueError``, because scoring and aggregation disagree and scoring it 0 would hide that.
    """
    must = set(names) if required is None else set(required)
    if not cases or not names:
        return np.full((len(cases), len(names)), np.nan, dtype=np.float64)
    every = itemgetter(*names)  # a case carrying every name (most do) is one C call
    rows: list[Sequence[float]] = []
    for case in cases:
        scores = case.metrics
        try:
            found = every(scores)
        except KeyError:
            rows.append(_filled_row(case, names, must))
            continue
        rows.append(found if len(names) > 1 else (found,))
    return np.array(rows, dtype=np.float64)


def _filled_row(case: CaseResult, names: Sequence[str], must: set[str]) -> list[float]:
    """Return the scores of a case that lacks some of ``names``: 0.0 for a required one (NaN otherwise); an
    ``ok`` case without a required one raises ``ValueError``."""
    needed = must - _refused(names) if case.unordered else must
    missing = [n for n in names if n in needed and n not in case.metrics]
    if missing and case.status.answered:
        raise ValueError(f"{case.nodeid}: status ok but no score for {', '.join(missing)}")
    scores = case.metrics
    return [scores.get(n, 0.0 if n in needed else np.nan) for n in names]


def _refused(names: Sequence[str]) -> set[str]:
    """Return the names that read an answer's order: an unordered answer (a replayed patch) has none of them."""
    return {name for name in names if needs_order(name)}


def summarize_metrics(
    matrix: npt.NDArray[np.float64],
    names: Sequence[str],
    resamples: int,
    rng: np.random.Generator,
) -> dict[str, MetricSummary]:
    """Return mean, median, std, bootstrap ci95 and n of every metric some row carries."""
    if matrix.shape[0] == 0:
        return {}
    summaries = summarize_present(matrix)
    intervals = bootstrap_ci_present(matrix, resamples, rng)
    counts = (~np.isnan(matrix)).sum(axis=0).tolist()
    return {
        name: MetricSummary(**summary, ci95=list(interval), n=int(count))
        for name, summary, interval, count in zip(names, summaries, intervals, counts)
        if summary is not None and interval is not None
    }


def summarize_group(
    table: AgentTable, names: Sequence[str], resamples: int, rng: np.random.Generator
) -> GroupSummary:
    """Return the aggregates of a table: metrics, latency, outcome counts, failure counts."""
    return GroupSummary(
        metrics=summarize_metrics(table.matrix, names, resamples, rng),
        latency_ms=latency_summary(table.cases),
        counts=count_outcomes(table.cases),
        failures=count_failures(table.cases),
    )


def case_latency(case: CaseResult) -> float | None:
    """Return what the case cost the agent in ms, as latency summaries and recommendations count it.

    An answered case: ``latency_ms`` (the median of its timed runs). A failed case (error, timeout,
    crashed): ``elapsed_ms``, the time until its agent call failed (a timeout's is at least its budget),
    so an agent that fails is never faster for it. None when that is unknown (the agent was never
    called, or its worker died): such a case is left out of latency, never counted as 0.
    """
    if case.status.answered:
        return case.latency_ms
    return case.elapsed_ms if case.status.failed else None


def latency_summary(cases: Sequence[CaseResult]) -> LatencySummary:
    """Return latency percentiles over the cases whose cost is known (``case_latency``)."""
    latencies = [latency for latency in map(case_latency, cases) if latency is not None]
    return LatencySummary(**latency_percentiles(latencies))


def count_outcomes(cases: Sequence[CaseResult]) -> dict[str, int]:
    """Return the number of cases, one count per status (every ``Status`` value), and nondeterministic answers."""
    by_status = Counter(c.status for c in cases)
    return {
        "cases": len(cases),
        **{status.value: by_status[status] for status in Status},
        "nondeterministic": sum(1 for c in cases if c.nondeterministic),
    }


def count_failures(cases: Sequence[CaseResult]) -> dict[str, int]:
    """Return failure category -> number of cases in it, categories sorted by name."""
    counts = Counter(c.failure_category for c in cases if c.failure_category is not None)
    return dict(sorted(counts.items()))
