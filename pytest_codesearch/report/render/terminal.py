"""Lines for pytest's terminal summary: agents side by side, as wide as the terminal allows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_codesearch.report.render.replayed import patch_problems, replay_notes
from pytest_codesearch.report.headline import headline_metrics
from pytest_codesearch.report.model import Leader, MetricSummary, RunReport
from pytest_codesearch.report.stats import DETECTABLE_DIFFERENCE, POWER

GAP = "  "
MISSING = "-"
BEST_MARK = "*"
LEAD_MARK = "**"
"""Best of the column and significantly better than the runner-up."""
INTERVALS = "± intervals"
DROP_ORDER = ("p90 ms", "metric", "statuses", "p50 ms")
"""After the columns that are the same for every agent, columns go in this order (metrics last first)."""


@dataclass(frozen=True)
class Column:
    """A table column: header and one cell per agent; ``kind`` is "agent", "metric" or the header."""

    header: str
    cells: tuple[str, ...]
    left: bool = False
    kind: str = "metric"

    @property
    def width(self) -> int:
        """Return the width of the widest cell or the header."""
        return max(len(self.header), *(len(c) for c in self.cells))

    @property
    def uniform(self) -> bool:
        """Return True when every agent shows the same value (and there are several agents)."""
        return len(self.cells) > 1 and len({cell.strip() for cell in self.cells}) == 1

    def render(self, text: str) -> str:
        """Pad ``text`` to the column width."""
        return text.ljust(self.width) if self.left else text.rjust(self.width)


def render_terminal(report: RunReport, headline: Sequence[str] | None = None, width: int = 80) -> list[str]:
    """Return the summary table (a row per agent), a legend and notes, fitted into ``width`` columns.

    The metric columns are ``headline`` (default: the report's headline), then p50, p90 and the
    status counts (``ok/timeout/crashed``: the report's shown statuses). Metric cells show the mean
    and half the width of its 95% bootstrap interval (``0.861±0.05``); the report's leaders carry
    ``*`` (best) or ``**`` (best and significantly better than the runner-up). When the table is too
    wide the intervals go first, then the columns that are the same for every agent (last first),
    then p90, the metrics from the last, the status counts and p50; one line names everything omitted.
    """
    if not report.agents:
        return ["no agent ran"]
    names = list(dict.fromkeys(headline if headline is not None else report.headline or headline_metrics(report)))
    columns = _columns(report, names, intervals=True)
    omitted = []
    if _table_width(columns) > width:
        columns = _columns(report, names, intervals=False)
        omitted.append(INTERVALS)
    kept, dropped = _fit(columns, width)
    lines = [_line(kept, [c.header for c in kept])]
    lines += [_line(kept, [c.cells[row] for c in kept]) for row in range(len(report.agents))]
    if omitted or dropped:
        lines.append(f"omitted at {width} columns: {', '.join(omitted + dropped)} (summary.md has them)")
    shown = [c.header.strip() for c in kept if c.kind == "metric"]
    lead = any(report.leaders[m].significant for m in shown if m in report.leaders)
    lines += _legend(report, INTERVALS not in omitted, lead)
    lines += _notes(report)
    return lines


def _columns(report: RunReport, headline: Sequence[str], *, intervals: bool) -> list[Column]:
    """Return every column in display order: agent, metrics, p50, p90, status counts."""
    summaries = list(report.agents.values())
    agents = tuple(report.agents)
    columns = [Column("agent", agents, left=True, kind="agent")]
    for name in headline:
        stats = [s.metrics.get(name) for s in summaries]
        columns.append(_metric_column(name, agents, stats, report.leaders.get(name), intervals))
    for label, attr in (("p50 ms", "p50"), ("p90 ms", "p90")):
        values = [getattr(s.latency_ms, attr) for s in summaries]
        columns.append(_latency_column(label, agents, values, report.leaders.get(f"latency_ms.{attr}")))
    statuses = report.shown_statuses()
    counts = tuple("/".join(str(s.counts.get(status, 0)) for status in statuses) for s in summaries)
    columns.append(Column("/".join(statuses), counts, kind="statuses"))
    return columns


def _metric_column(
    header: str, agents: Sequence[str], stats: Sequence[MetricSummary | None], leader: Leader | None, intervals: bool
) -> Column:
    """Return a metric column: mean (± half its interval), ``*`` on the best, ``**`` on a leader."""
    cells = []
    for agent, m in zip(agents, stats):
        text = MISSING if m is None else f"{m.mean:.3f}"
        if m is not None and intervals:
            text += f"±{(m.ci95[1] - m.ci95[0]) / 2:.2f}"
        cells.append(text + _mark(agent, leader).ljust(len(LEAD_MARK)))
    return Column(header + " " * len(LEAD_MARK), tuple(cells))


def _latency_column(header: str, agents: Sequence[str], values: Sequence[float | None], leader: Leader | None) -> Column:
    """Return a latency column in ms, the fastest (ties included) followed by ``*``."""
    cells = tuple(
        (MISSING if v is None else f"{v:.2f}") + (BEST_MARK if leader and agent in leader.agents else " ")
        for agent, v in zip(agents, values)
    )
    return Column(header + " ", cells, kind=header)


def _mark(agent: str, leader: Leader | None) -> str:
    """Return the mark of one agent's cell: ``**`` for a significant leader, ``*`` for a best."""
    if leader is None or agent not in leader.agents:
        return ""
    return LEAD_MARK if leader.significant else BEST_MARK


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
    """Return the column to drop next: the last that is the same for every agent, else by DROP_ORDER."""
    droppable = [col for col in columns if col.kind != "agent"]
    uniform = [col for col in droppable if col.uniform]
    if uniform:
        return uniform[-1]
    for kind in DROP_ORDER:
        matching = [col for col in droppable if col.kind == kind]
        if matching:
            return matching[-1]
    return droppable[-1]


def _table_width(columns: Sequence[Column]) -> int:
    """Return the printed width of a table made of ``columns``."""
    return sum(c.width for c in columns) + len(GAP) * (len(columns) - 1)


def _line(columns: Sequence[Column], texts: Sequence[str]) -> str:
    """Join one row of cells, padded to their columns, without trailing blanks."""
    return GAP.join(col.render(text) for col, text in zip(columns, texts)).rstrip()


def _notes(report: RunReport) -> list[str]:
    """Return one line per problem a reader must not miss."""
    notes = []
    if report.run.profile != "native":
        notes.append(f"scored under the {report.run.profile} profile (docs/profiles.md)")
    if report.run.blind:
        notes.append("blind: each agent also answered with an empty repository (NAME-blind); "
                     "comparisons in summary.md give the difference")  # fmt: skip
    notes += replay_notes(report)[:1]
    problems = patch_problems(report)
    if problems:
        notes.append(f"{len(problems)} replayed patch(es) empty or not applicable, scored as empty answers "
                     "(summary.md lists them)")  # fmt: skip
    if report.invalid:
        notes.append(f"invalid gold-set entries: {len(report.invalid)} (see summary.md)")
    if report.not_run:
        notes.append(f"cases collected but never run: {len(report.not_run)}")
    pairs = len({(c.agent_a, c.agent_b) for c in report.power if c.underpowered})
    power, others = report.warnings[:pairs], report.warnings[pairs:]  # the power ones first, then the answers'
    notes += [f"warning: {warning}" for warning in others]
    if len(power) == 1:
        notes.append(f"warning: {power[0]}")
    elif power:
        needed = [c.n_needed for c in report.power if c.underpowered and c.n_needed is not None]
        most = f", up to {max(needed)} needed" if needed else ""
        notes.append(
            f"warning: {len(power)} agent pairs share too few cases to detect a "
            f"difference of {DETECTABLE_DIFFERENCE} with {POWER:.0%} power{most} (see summary.md)"
        )
    return notes
