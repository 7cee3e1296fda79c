"""The ``## Statuses and indexing`` section of summary.md: per-agent status counts, nondeterminism, index time."""

from __future__ import annotations

from pytest_codesearch.report.render.mdtable import MISSING, table
from pytest_codesearch.report.model import RunReport
from pytest_codesearch.status import STATUS_VALUES


def status_section(report: RunReport) -> str:
    """Return one row per agent: cases, each status's count, nondeterministic cases, index time and count."""
    if not report.agents:
        return ""
    header = ["agent", "cases", *STATUS_VALUES, "nondeterministic", "index s", "indexed"]
    rows = []
    for agent, summary in report.agents.items():
        counts = summary.counts
        indexed = int(summary.index_ms.get("count", 0))
        total = summary.index_ms.get("total")
        rows.append([
            agent,
            str(counts.get("cases", 0)),
            *(str(counts.get(status, 0)) for status in STATUS_VALUES),
            str(counts.get("nondeterministic", 0)),
            MISSING if not indexed or total is None else f"{total / 1000:.2f}",
            str(indexed),
        ])  # fmt: skip
    note = (
        "Statuses: `ok` answered and scored; `error`, `timeout` and `crashed` score 0; `not_run` never ran. "
        "Nondeterministic: cases whose timed runs returned different answers. Index s: total time of "
        "`initialize()` over the snapshots the agent indexed (indexed: how many)."
    )
    align = [":---", *["---:"] * (len(header) - 1)]
    return "\n\n".join(["## Statuses and indexing", table(header, align, rows), note])
