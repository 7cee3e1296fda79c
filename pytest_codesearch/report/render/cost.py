"""The cost table: the summed cost and tokens of ``RunReport.costs`` as summary.md, terminal and page rows."""

from __future__ import annotations

from pytest_codesearch.report.model import RunReport
from pytest_codesearch.report.render.mdtable import MISSING, table


def cost_rows(report: RunReport) -> list[list[str]]:
    """Return one row per agent with costs: agent, correct, p50 ms, cost, tokens in, tokens out, per correct."""
    rows = []
    for agent, cost in report.costs.items():
        summary = report.agents.get(agent)
        p50 = None if summary is None else summary.latency_ms.p50
        rows.append([
            agent,
            f"{cost.correct} ({cost.correct_metric or MISSING})",
            MISSING if p50 is None else f"{p50:.2f}",
            _money(cost.cost_usd),
            MISSING if cost.tokens_in is None else f"{cost.tokens_in:,}",
            MISSING if cost.tokens_out is None else f"{cost.tokens_out:,}",
            _money(cost.cost_per_correct),
        ])
    return rows


COST_HEADER = ["agent", "correct", "p50 ms", "cost $", "tokens in", "tokens out", "$ per correct"]


def cost_section(report: RunReport) -> str:
    """Return the ``## Cost`` section of summary.md, or '' when no agent reported a cost."""
    rows = cost_rows(report)
    if not rows:
        return ""
    note = "Summed from the `cost_usd`, `tokens_in` and `tokens_out` each agent returned in its metadata."
    return "\n\n".join(["## Cost", table(COST_HEADER, [":---", *["---:"] * 6], rows), note])


def cost_lines(report: RunReport) -> list[str]:
    """Return the cost table as terminal lines (aligned columns), or [] without costs."""
    rows = cost_rows(report)
    if not rows:
        return []
    widths = [max(len(r[i]) for r in [COST_HEADER, *rows]) for i in range(len(COST_HEADER))]
    return [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in [COST_HEADER, *rows]
    ]


def _money(value: float | None) -> str:
    return MISSING if value is None else f"{value:.4f}"
