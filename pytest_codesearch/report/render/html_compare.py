"""The comparison of two runs as HTML: a section of ``report.html`` (against ``--codesearch-baseline``)
and ``comparison.html`` (``--codesearch-compare``), laid out from ``runs.compare.RunComparison``.

Each comparison shows what ``comparison.md`` shows: its scope (the gold sets both runs hold, those left
out), one row per agent and metric (both runs' figures, Δ marked better or worse, the paired difference
with its 95% interval, n, the raw p and Holm's p over the named family), the agents only one run has,
and per case the rank of the first relevant file in each run, with the biggest wins and losses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_codesearch.runs.compare import MetricDelta, RankChange, RunComparison

SHOWN_CASES = 10
"""Wins and as many losses listed per comparison."""
MISSING = "–"


@dataclass(frozen=True)
class DeltaRow:
    """One agent and metric of a comparison, as shown."""

    agent: str
    metric: str
    before: str
    after: str
    diff: str
    trend: str
    """``better``, ``worse`` or '' (no change, or no figure): the Δ cell's colour."""
    paired: str
    n: int
    p: str
    p_holm: str
    significant: bool


@dataclass(frozen=True)
class RankRow:
    """A case whose first relevant file moved."""

    agent: str
    goldset: str
    case_id: str
    before: str
    after: str
    query: str


@dataclass(frozen=True)
class ComparisonView:
    """Everything the comparison section shows of one ``RunComparison``."""

    before: str
    after: str
    goldsets: list[str]
    left_out: list[tuple[str, list[str]]]
    rows: list[DeltaRow]
    family: int
    alpha: float
    only: list[tuple[str, list[str]]]
    moved_up: int
    moved_down: int
    hit_note: str
    wins: list[RankRow]
    losses: list[RankRow]
    more_wins: int
    more_losses: int


def comparison_views(comparisons: Sequence[RunComparison]) -> list[ComparisonView]:
    """Return what the page shows of each comparison."""
    return [_view(c) for c in comparisons]


def _view(comparison: RunComparison) -> ComparisonView:
    wins = [c for c in comparison.ranks if c.gain > 0]
    losses = [c for c in reversed(comparison.ranks) if c.gain < 0]
    hit_note = ""
    if comparison.hit_metric is not None:
        lost = sum(not c.hit_after for c in comparison.changed)
        hit_note = (f"On {comparison.hit_metric}: {lost} hit before and missed now, "
                    f"{len(comparison.changed) - lost} missed before and hit now.")  # fmt: skip
    return ComparisonView(
        before=comparison.before,
        after=comparison.after,
        goldsets=comparison.goldsets,
        left_out=[(label, sets) for label, sets in ((comparison.before, comparison.goldsets_only_before),
                                                    (comparison.after, comparison.goldsets_only_after)) if sets],
        rows=[_row(d) for d in comparison.deltas],
        family=comparison.family,
        alpha=comparison.alpha,
        only=[(label, agents) for label, agents in ((comparison.before, comparison.only_before),
                                                     (comparison.after, comparison.only_after)) if agents],
        moved_up=len(wins),
        moved_down=len(losses),
        hit_note=hit_note,
        wins=[_rank_row(c) for c in wins[:SHOWN_CASES]],
        losses=[_rank_row(c) for c in losses[:SHOWN_CASES]],
        more_wins=max(0, len(wins) - SHOWN_CASES),
        more_losses=max(0, len(losses) - SHOWN_CASES),
    )  # fmt: skip


def _row(delta: MetricDelta) -> DeltaRow:
    from pytest_codesearch.runs.compare import LATENCY_FIGURES

    diff = delta.diff
    trend = ""
    if diff is not None and round(diff, 3) != 0:  # a change the shown digits cannot see has no colour
        better = diff < 0 if delta.metric in LATENCY_FIGURES else diff > 0
        trend = "better" if better else "worse"
    paired = MISSING
    if delta.mean_diff is not None and delta.ci95 is not None:
        paired = f"{delta.mean_diff:+.3f} [{delta.ci95[0]:+.3f}, {delta.ci95[1]:+.3f}]"
    return DeltaRow(
        agent=delta.agent,
        metric=delta.metric,
        before=_num(delta.before),
        after=_num(delta.after),
        diff=MISSING if diff is None else f"{diff:+.3f}",
        trend=trend,
        paired=paired,
        n=delta.n,
        p=MISSING if delta.p_value is None else f"{delta.p_value:.3g}",
        p_holm=MISSING if delta.p_holm is None else f"{delta.p_holm:.3g}",
        significant=delta.significant,
    )


def _rank_row(change: RankChange) -> RankRow:
    before, after = (MISSING if rank is None else str(rank) for rank in (change.before, change.after))
    return RankRow(change.agent, change.goldset, change.case_id, before, after, change.query)


def _num(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3f}"
