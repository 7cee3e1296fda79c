"""The statistical sections of ``summary.md``: comparisons, breakdowns and failure counts."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.report.breakdown import DIMENSIONS
from pytest_codesearch.report.render.mdtable import MISSING, mean_interval, table
from pytest_codesearch.report.model import Comparison, GroupSummary, RunReport
from pytest_codesearch.report.stats import PERMUTATIONS

_DIMENSION_TITLES = {
    "complexity": "complexity",
    "category": "category",
    "goldset": "gold set",
    "repo": "repository",
}


def comparisons_section(report: RunReport) -> str | None:
    """Return the table of paired comparisons (significant rows in bold), or None without any."""
    if not report.comparisons:
        return None
    exact = max(1, PERMUTATIONS.bit_length() - 1)
    intro = (
        "Every pair of agents on each headline metric, paired on the cases both were given "
        "(an error scores 0). Mean difference A − B with its 95% bootstrap interval; p from a "
        f"two-sided sign-flip randomization test (every sign vector enumerated up to {exact} "
        f"paired cases, else {PERMUTATIONS:,} random ones), then Holm-corrected over all "
        f"{len(report.comparisons)} tests of the run. Bold: significant, p (Holm) < "
        f"{report.run.alpha:g}."
    )
    header = ["metric", "agent A", "agent B", "mean diff (A − B)", "95% CI", "p", "p (Holm)"]
    align = [":---", ":---", ":---", "---:", "---:", "---:", "---:"]
    rows = [_comparison_row(c) for c in report.comparisons]
    return "\n\n".join(["## Comparisons", intro, table(header, align, rows)])


def breakdowns_section(report: RunReport, headline: Sequence[str]) -> str | None:
    """Return one table per breakdown with at least two groups, or None when none has."""
    parts = []
    for dimension in DIMENSIONS:
        groups: dict[str, dict[str, GroupSummary]] = getattr(report.breakdowns, dimension)
        if len(groups) < 2:
            continue
        title = _DIMENSION_TITLES[dimension]
        header = [title, "agent", "cases", *headline, "p50 ms"]
        align = [":---", ":---", "---:", *("---:" for _ in headline), "---:"]
        rows = [
            _group_row(value, agent, summary, headline)
            for value, agents in groups.items()
            for agent, summary in agents.items()
        ]
        parts.append(f"### By {title}\n\n{table(header, align, rows)}")
    if not parts:
        return None
    intro = (
        "The same aggregates per group of cases: mean [95% bootstrap interval] of each headline "
        "metric, and the median latency. Only breakdowns with at least two groups are shown; "
        "results.json holds all of them."
    )
    return "\n\n".join(["## Breakdowns", intro, *parts])


def failures_section(report: RunReport) -> str | None:
    """Return the count of missed cases per agent and failure category, or None without any."""
    categories = sorted({c for s in report.agents.values() for c in s.failures})
    if not categories:
        return None
    rows = [
        [agent, *(str(s.failures.get(c, 0)) for c in categories), str(sum(s.failures.values()))]
        for agent, s in report.agents.items()
    ]
    header = ["agent", *categories, "missed"]
    intro = (
        "Cases an agent missed (hit@10 = 0, or at the largest cut-off when 10 is not one), "
        "counted by the first rule that "
        "explains the miss; the rules are in docs/metrics.md and each case's category is in "
        "results.json."
    )
    align = [":---", *("---:" for _ in categories), "---:"]
    return "\n\n".join(["## Failures", intro, table(header, align, rows)])


def _comparison_row(comparison: Comparison) -> list[str]:
    """Return one comparison as table cells, all in bold when it is significant."""
    low, high = comparison.ci95
    cells = [
        comparison.metric,
        comparison.agent_a,
        comparison.agent_b,
        f"{comparison.mean_diff:+.3f}",
        f"[{low:+.3f}, {high:+.3f}]",
        f"{comparison.p_value:.4f}",
        f"{comparison.p_holm:.4f}",
    ]
    return [f"**{c}**" for c in cells] if comparison.significant else cells


def _group_row(value: str, agent: str, summary: GroupSummary, headline: Sequence[str]) -> list[str]:
    """Return one (group, agent) row of a breakdown table."""
    p50 = summary.latency_ms.p50
    return [
        value,
        agent,
        str(summary.counts["cases"]),
        *(mean_interval(summary.metrics.get(m)) for m in headline),
        MISSING if p50 is None else f"{p50:.2f}",
    ]
