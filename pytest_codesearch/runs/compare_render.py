"""A comparison of two runs as markdown: ``comparison.md`` and what ``--codesearch-compare`` prints.

The scope first (the gold sets both runs hold, and those left out), then one row per agent and metric
(each run's figure, the difference, the paired difference with its 95% interval, n, the raw p and
Holm's p, the family it was corrected over named under the table), the agents only one run has, and
per case the rank of the first relevant file in each run: how many cases won, lost and kept it, and
the biggest wins and losses.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.report.model import RunReport
from pytest_codesearch.report.render.mdtable import MISSING, escape_cell, table
from pytest_codesearch.runs.compare import MetricDelta, RankChange, RunComparison


def render_comparisons(report: RunReport, comparisons: Sequence[RunComparison]) -> str:
    """Return ``comparison.md``: each comparison of ``report``'s run with another (the writer registry's entry)."""
    return "\n".join(render_comparison(c) for c in comparisons)


def render_comparison(comparison: RunComparison, max_cases: int = 10) -> str:
    """Return the comparison as GitHub-flavoured markdown; ``max_cases`` wins and as many losses are listed."""
    rows = [delta_cells(d) for d in comparison.deltas]
    header = ["agent", "metric", comparison.before, comparison.after, "Δ", "paired Δ [95% CI]", "n", "p", "p (Holm)"]
    parts = [
        f"# Comparison: {escape_cell(comparison.before)} → {escape_cell(comparison.after)}",
        _scope(comparison),
        table(header, [":---", ":---", *["---:"] * 7], rows),
        "Δ is after − before, on the gold sets both runs hold. The paired test compares the cases both "
        "runs carry for the agent (two-sided sign-flip test, the gates' test); Holm's correction is over "
        f"the {comparison.family} tests of this table (agents × metrics); a gate on the same metric is "
        "corrected over the gated metrics only, so its p may be smaller. * marks p (Holm) < "
        f"{comparison.alpha:g}. Latency counts a failed case at the time it cost (a timeout at least its budget).",
    ]
    for label, agents in ((comparison.before, comparison.only_before), (comparison.after, comparison.only_after)):
        if agents:
            parts.append(f"Agents only in {escape_cell(label)}: {escape_cell(', '.join(agents))}")
    parts.append(_ranks_section(comparison, max_cases))
    return "\n\n".join(parts) + "\n"


def _scope(comparison: RunComparison) -> str:
    lines = [f"Gold sets compared: {escape_cell(', '.join(comparison.goldsets))}."]
    for label, left in ((comparison.before, comparison.goldsets_only_before),
                        (comparison.after, comparison.goldsets_only_after)):  # fmt: skip
        if left:
            lines.append(f"Left out, only in {escape_cell(label)}: {escape_cell(', '.join(left))}.")
    return " ".join(lines)


def delta_cells(d: MetricDelta) -> list[str]:
    """Return a delta's cells as every rendering shows them: agent, metric, both figures, Δ, the paired
    difference with its interval, n, p and Holm's p (``*`` when significant)."""
    paired = MISSING
    if d.mean_diff is not None and d.ci95 is not None:
        paired = f"{d.mean_diff:+.3f} [{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]"
    raw = MISSING if d.p_value is None else f"{d.p_value:.3g}"
    p = MISSING if d.p_holm is None else f"{d.p_holm:.3g}{' *' if d.significant else ''}"
    return [d.agent, d.metric, _num(d.before), _num(d.after), _num(d.diff, sign=True), paired, str(d.n), raw, p]


def _num(value: float | None, *, sign: bool = False) -> str:
    if value is None:
        return MISSING
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def _ranks_section(comparison: RunComparison, max_cases: int) -> str:
    wins, losses = comparison.wins, comparison.losses
    parts = [
        "## Cases that changed",
        f"Rank of the first relevant file: {len(wins)} case(s) moved up, {len(losses)} moved down "
        "(– : none found, or the case failed).",
    ]
    if comparison.hit_metric is not None:
        parts[-1] += " " + comparison.hit_note()
    for title, cases in (("Biggest wins", wins), ("Biggest losses", losses)):
        if cases:
            rows = [rank_cells(c) for c in cases[:max_cases]]
            head = ["agent", "gold set", "case", comparison.before, comparison.after, "query"]
            parts.append(f"### {title}\n\n" + table(head, [":---", ":---", ":---", "---:", "---:", ":---"], rows))
            if len(cases) > max_cases:
                parts.append(f"… and {len(cases) - max_cases} more.")
    return "\n\n".join(parts)


def rank_cells(change: RankChange) -> list[str]:
    """Return a rank change's cells: agent, gold set, case, rank in each run (– : none), query."""
    ranks = [MISSING if rank is None else str(rank) for rank in (change.before, change.after)]
    return [change.agent, change.goldset, change.case_id, *ranks, change.query]
