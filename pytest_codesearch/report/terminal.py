"""Lines for pytest's terminal summary: agents side by side, as wide as the terminal allows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_codesearch.report.compare import significant_leaders
from pytest_codesearch.report.model import MetricSummary, RunReport
from pytest_codesearch.stats import DETECTABLE_DIFFERENCE, POWER, best_positions

GAP = "  "
MISSING = "-"
BEST_MARK = "*"
LEAD_MARK = "**"
"""Best of the column and significantly better than the runner-up."""
FIXED_DROP_ORDER = ("p90 ms", "p50 ms", "ok/err")
"""When even every headline metric is gone, these go next, in this order."""


@dataclass(frozen=True)
class Column:
    """A table column: header and one cell per agent."""

    header: str
    cells: tuple[str, ...]
    left: bool = False

    @property
    def width(self) -> int:
        """Return the width of the widest cell or the header."""
        return max(len(self.header), *(len(c) for c in self.cells))

    def render(self, text: str) -> str:
        """Pad ``text`` to the column width."""
        return text.ljust(self.width) if self.left else text.rjust(self.width)


def render_terminal(report: RunReport, headline: Sequence[str], width: int) -> list[str]:
    """Return the summary table (a row per agent), a legend and notes, fitted into ``width`` columns.

    Metric cells show the mean and half the width of its 95% bootstrap interval (``0.861±0.05``).
    When the table is too wide the intervals go first, then columns: last headline metric first,
    then p90, p50 and ok/err; a note names them. The best value of each column carries ``*``,
    and ``**`` when it is significantly better than the runner-up.
    """
    if not report.agents:
        return ["no agent ran"]
    headline = list(dict.fromkeys(headline))
    leaders = significant_leaders(report, headline)
    columns = _columns(report, headline, leaders, intervals=True)
    intervals = _table_width(columns) <= width
    if not intervals:
        columns = _columns(report, headline, leaders, intervals=False)
    kept, omitted = _fit(columns, width)
    lines = [_line(kept, [c.header for c in kept])]
    lines += [_line(kept, [c.cells[row] for c in kept]) for row in range(len(report.agents))]
    if omitted:
        lines.append(f"omitted (terminal too narrow): {', '.join(omitted)}")
    lines += _legend(report, intervals, bool(leaders))
    lines += _notes(report)
    return lines


def _columns(
    report: RunReport, headline: Sequence[str], leaders: dict[str, str], *, intervals: bool
) -> list[Column]:
    """Return every column in display order: agent, metrics, p50, p90, ok/err."""
    summaries = list(report.agents.values())
    agents = tuple(report.agents)
    columns = [Column("agent", agents, left=True)]
    for name in headline:
        stats = [s.metrics.get(name) for s in summaries]
        lead = {agents.index(leaders[name])} if name in leaders else set()
        columns.append(_metric_column(name, stats, lead, intervals))
    for label, attr in (("p50 ms", "p50"), ("p90 ms", "p90")):
        values = [getattr(s.latency_ms, attr) for s in summaries]
        columns.append(_marked(label, values, digits=2, higher=False))
    counts = tuple(f"{s.counts['ok']}/{s.counts['cases'] - s.counts['ok']}" for s in summaries)
    columns.append(Column("ok/err", counts))
    return columns


def _metric_column(
    header: str, stats: Sequence[MetricSummary | None], lead: set[int], intervals: bool
) -> Column:
    """Return a metric column: mean (± half its interval), ``*`` on the best, ``**`` on a leader."""
    keys = [round(m.mean, 3) if m else None for m in stats]
    several = sum(k is not None for k in keys) > 1
    best = best_positions(keys, higher_is_better=True) if several else set()
    cells = []
    for i, m in enumerate(stats):
        text = MISSING if m is None else f"{m.mean:.3f}"
        if m is not None and intervals:
            text += f"±{(m.ci95[1] - m.ci95[0]) / 2:.2f}"
        mark = LEAD_MARK if i in lead else BEST_MARK if i in best else ""
        cells.append(text + mark.ljust(len(LEAD_MARK)))
    return Column(header + " " * len(LEAD_MARK), tuple(cells))


def _marked(header: str, values: Sequence[float | None], *, digits: int, higher: bool) -> Column:
    """Return a numeric column, the best value (ties included) followed by ``*``."""
    keys = [round(v, digits) if v is not None else None for v in values]
    several = sum(k is not None for k in keys) > 1
    best = best_positions(keys, higher_is_better=higher) if several else set()
    cells = tuple(
        (MISSING if v is None else f"{v:.{digits}f}") + (BEST_MARK if i in best else " ")
        for i, v in enumerate(values)
    )
    return Column(header + " ", cells)


def _legend(report: RunReport, intervals: bool, leaders: bool) -> list[str]:
    """Return the line that explains the marks of the table, if there is anything to explain."""
    parts = ["± half the 95% bootstrap interval"] if intervals else []
    if len(report.agents) > 1:
        parts.append("* best")
    if leaders:
        parts.append(
            f"** best and significantly ahead of the runner-up (Holm p < {report.run.alpha:g})"
        )
    return ["; ".join(parts)] if parts else []


def _fit(columns: list[Column], width: int) -> tuple[list[Column], list[str]]:
    """Drop columns until the table fits ``width``; return kept columns and dropped headers."""
    kept = list(columns)
    while len(kept) > 1 and _table_width(kept) > width:
        kept.remove(_drop_candidate(kept))
    omitted = [c.header.strip() for c in columns if not any(c is k for k in kept)]
    return kept, omitted


def _drop_candidate(columns: Sequence[Column]) -> Column:
    """Return the column to drop next: the last headline metric, then the fixed columns."""
    fixed = {name: col for col in columns if (name := col.header.strip()) in FIXED_DROP_ORDER}
    metrics = [col for col in columns[1:] if col.header.strip() not in fixed]
    if metrics:
        return metrics[-1]
    return next(fixed[name] for name in FIXED_DROP_ORDER if name in fixed)


def _table_width(columns: Sequence[Column]) -> int:
    """Return the printed width of a table made of ``columns``."""
    return sum(c.width for c in columns) + len(GAP) * (len(columns) - 1)


def _line(columns: Sequence[Column], texts: Sequence[str]) -> str:
    """Join one row of cells, padded to their columns, without trailing blanks."""
    return GAP.join(col.render(text) for col, text in zip(columns, texts)).rstrip()


def _notes(report: RunReport) -> list[str]:
    """Return one line per problem a reader must not miss."""
    notes = []
    if report.invalid:
        notes.append(f"invalid gold-set entries: {len(report.invalid)} (see summary.md)")
    if report.not_run:
        notes.append(f"cases collected but never run: {len(report.not_run)}")
    if len(report.warnings) == 1:
        notes.append(f"warning: {report.warnings[0]}")
    elif report.warnings:
        needed = [c.n_needed for c in report.power if c.underpowered and c.n_needed is not None]
        most = f", up to {max(needed)} needed" if needed else ""
        notes.append(
            f"warning: {len(report.warnings)} agent pairs share too few cases to detect a "
            f"difference of {DETECTABLE_DIFFERENCE} with {POWER:.0%} power{most} (see summary.md)"
        )
    return notes
