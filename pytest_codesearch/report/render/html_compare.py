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
    from pytest_codesearch.runs.compare import MetricDelta, RunComparison

SHOWN_CASES = 10
"""Wins and as many losses listed per comparison."""


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
    from pytest_codesearch.runs.compare_render import rank_cells

    wins, losses = comparison.wins, comparison.losses
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
        hit_note=comparison.hit_note(),
        wins=[RankRow(*rank_cells(c)) for c in wins[:SHOWN_CASES]],
        losses=[RankRow(*rank_cells(c)) for c in losses[:SHOWN_CASES]],
        more_wins=max(0, len(wins) - SHOWN_CASES),
        more_losses=max(0, len(losses) - SHOWN_CASES),
    )  # fmt: skip


def _row(delta: MetricDelta) -> DeltaRow:
    """Return a delta's cells as ``comparison.md`` writes them, with the Δ cell's colour."""
    from pytest_codesearch.runs.compare import LATENCY_FIGURES
    from pytest_codesearch.runs.compare_render import delta_cells

    agent, metric, before, after, diff, paired, n, p, p_holm = delta_cells(delta)
    trend = ""
    if delta.diff is not None and round(delta.diff, 3) != 0:  # a change the shown digits cannot see has no colour
        better = delta.diff < 0 if delta.metric in LATENCY_FIGURES else delta.diff > 0
        trend = "better" if better else "worse"
    return DeltaRow(agent, metric, before, after, diff, trend, paired, int(n), p, p_holm, delta.significant)
