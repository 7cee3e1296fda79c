"""Markdown table pieces shared by the ``summary.md`` sections: escaping, tables, cells."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_codesearch.printable import visible
from pytest_codesearch.report.model import Leader, MetricSummary

MISSING = "–"


_INERT = [
    ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"),  # no raw HTML, no <autolinks>
    ("](", "\\]("), ("]:", "\\]:"), ("][", "\\]["),  # no [links](...), ![images](...), [reference]: lines
    ("|", "\\|"),
]
_BARE_LINK = re.compile(r"(?i)(?<=[a-z0-9+.-])(:)(?=//)|(?<=\bwww)(\.)")


def escape_cell(text: str) -> str:
    """Return ``text`` safe for a Markdown table cell or list item, whatever it holds (issue 18 item 12).

    Newlines become spaces, ``|`` is escaped, control characters show as ``\\xNN``; HTML, links,
    images and GitHub's bare-URL autolinks are made inert text (``&lt;``, ``\\](``, ``https&#58;//``),
    so a gold set, an agent name or an answer cannot put markup in ``summary.md``. Emphasis stays.
    """
    flat = " ".join(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    flat = visible(flat.replace("\\", "\\\\").replace("\t", " "))
    for raw, inert in _INERT:
        flat = flat.replace(raw, inert)
    return _BARE_LINK.sub(lambda found: "&#58;" if found.group(1) else "&#46;", flat)


def table(header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return a Markdown table; every cell is escaped here."""
    lines = [_table_row(header), _table_row(align, escape=False)]
    lines += [_table_row(row) for row in rows]
    return "\n".join(lines)


def bold_best(cells: list[str], agents: Sequence[str], leader: Leader | None) -> list[str]:
    """Embolden the cells of the column's best agents (the report's ``leaders``), if any."""
    if leader is None:
        return cells
    return [f"**{c}**" if agent in leader.agents else c for agent, c in zip(agents, cells)]


def mean_interval(summary: MetricSummary | None) -> str:
    """Return 'mean [low, high]' with three decimals, or the missing mark."""
    if summary is None:
        return MISSING
    low, high = summary.ci95
    return f"{summary.mean:.3f} [{low:.3f}, {high:.3f}]"


def _table_row(cells: Sequence[str], *, escape: bool = True) -> str:
    """Return one table line."""
    shown = [escape_cell(c) if escape else c for c in cells]
    return "| " + " | ".join(shown) + " |"
