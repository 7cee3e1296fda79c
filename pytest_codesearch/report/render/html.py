"""``report.html``: one self-contained page with the run's tables, charts and a browsable case table.

The page is rendered with jinja2 with autoescape on; charts come from ``charts`` as inline SVG;
the cases travel as one JSON document in a ``<script type="application/json">`` block (every
``<``, ``>`` and ``&`` written as a ``\\u`` escape, so no text of a case can close the block) and
a small inline script renders them a page at a time with ``textContent`` only. A
Content-Security-Policy forbids every external load. Like every writer, this computes nothing of
its own: it lays out what ``RunReport`` holds (status counts, success metric, recommendations).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2.bccache import Bucket
from markupsafe import Markup

from pytest_codesearch.report import headline_metrics
from pytest_codesearch.report.render import charts
from pytest_codesearch.gcpause import paused_gc
from pytest_codesearch.report.breakdown import DIMENSIONS
from pytest_codesearch.report.render.cost import COST_HEADER, cost_rows
from pytest_codesearch.report.render.html_cases import SHOWN_PATHS, case_json
from pytest_codesearch.report.model import GroupSummary, Leader, MetricSummary, Recommendations, RunReport
from pytest_codesearch.report.recommend import TITLES
from pytest_codesearch.report.table import case_latency
from pytest_codesearch.report.render.html_compare import comparison_views
from pytest_codesearch.status import Status

if TYPE_CHECKING:
    from pytest_codesearch.runs.compare import RunComparison

DIMENSION_TITLES = {"complexity": "complexity", "category": "category", "goldset": "gold set",
                    "repo": "repository"}  # fmt: skip
MISSING = "–"


@dataclass(frozen=True)
class Cell:
    """One metric cell of the agents table."""

    text: str
    interval: str
    best: bool
    lead: bool


@dataclass(frozen=True)
class AgentRow:
    """One agent in the agents table."""

    name: str
    colour: str
    cells: tuple[Cell, ...]
    p50: Cell
    p90: Cell
    counts: dict[str, int]
    index_ms: float


def render_html(
    report: RunReport, headline: Sequence[str] | None = None, comparisons: Sequence[RunComparison] = ()
) -> str:
    """Return ``report.html`` for ``report``; ``headline`` defaults to the report's headline (as summary.md);
    each of ``comparisons`` (against a baseline run) gets a section.

    The cyclic garbage collector is paused meanwhile: the page data is acyclic, and at 100,000
    records its passes over the report's objects took a third of the time.
    """
    with paused_gc():
        return _render(report, headline, comparisons)


def render_report_page(report: RunReport, comparisons: Sequence[RunComparison]) -> str:
    """Return ``report.html`` with its headline, and a section per comparison (the writer registry's entry)."""
    return render_html(report, None, comparisons)


def render_comparison_page(report: RunReport, comparisons: Sequence[RunComparison]) -> str:
    """Return ``comparison.html``: the comparisons' sections of ``report.html`` as a page of their own."""
    template = _environment().get_template("comparison_page.html.j2")
    return template.render(comparison_views=comparison_views(comparisons), style=_asset("report.css"))


def _render(report: RunReport, headline: Sequence[str] | None, comparisons: Sequence[RunComparison]) -> str:
    """Return the page (see ``render_html``)."""
    metrics = list(dict.fromkeys(headline if headline is not None else report.headline or headline_metrics(report)))
    picks = report.recommendations
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        run=report.run,
        headline=metrics,
        agents=agent_rows(report, metrics),
        costs=cost_rows(report),
        cost_header=COST_HEADER,
        picks=picks,
        shown_picks=[pick for pick in picks.picks() if pick.agent is not None],  # "needs two agents" says nothing
        failed_note=failed_note(report),
        pick_titles=TITLES,
        charts=chart_set(report, picks),
        breakdowns=breakdown_tables(report, metrics, picks.metric),
        failures=failure_table(report),
        statuses=report.shown_statuses(),
        status_counts=", ".join(f"{report.status_counts[s]} {s}" for s in report.shown_statuses()),
        case_data=case_json(report, picks.metric),
        style=_asset("report.css"),
        script=_asset("report.js"),
        fmt=_fmt,
        shown_paths=SHOWN_PATHS,
        strip_points=charts.STRIP_POINTS,
        comparison_views=comparison_views(comparisons),
    )


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    """Return the jinja2 environment of the templates, autoescape on (PITFALLS 29).

    Compiled templates are kept between runs in jinja2's own per-user folder of the temporary directory
    (``_CompiledTemplates``): compiling the page's template cost about 25 ms of every run's end.
    """
    return jinja2.Environment(
        loader=jinja2.PackageLoader("pytest_codesearch", "report/render/templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_compiled_templates(),
    )


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates in files, for which a file that cannot be read or written is
    only a template compiled again (a full disk, a file cut short by a crash)."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # pickle and marshal raise many kinds of error for a file cut short
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled_templates() -> jinja2.BytecodeCache | None:
    """Return the cache of compiled templates; None when jinja2 finds no private folder to keep it in."""
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):
        return None


def _asset(name: str) -> Markup:
    """Return a CSS or JS file of the templates as trusted text (it is ours and holds no ``</``)."""
    source, _, _ = _environment().loader.get_source(_environment(), name)  # type: ignore[union-attr]
    return Markup(source)


def _fmt(value: float | None, digits: int = 3) -> str:
    """Return ``value`` with ``digits`` decimals, or the missing mark."""
    return MISSING if value is None else f"{value:.{digits}f}"


def agent_rows(report: RunReport, headline: Sequence[str]) -> list[AgentRow]:
    """Return one row per agent: metric cells and latency, marked from the report's leaders.

    ``best``: the agent is among the column's leaders (ties all marked); ``lead``: it is the single
    leader and significantly ahead (``report.leaders``, as in summary.md and the terminal).
    """
    summaries = list(report.agents.values())
    columns = [_metric_cells(report, m) for m in headline]
    p50 = _latency_cells(report, [s.latency_ms.p50 for s in summaries], "latency_ms.p50")
    p90 = _latency_cells(report, [s.latency_ms.p90 for s in summaries], "latency_ms.p90")
    return [
        AgentRow(
            name=name,
            colour=charts.colour(i),
            cells=tuple(column[i] for column in columns),
            p50=p50[i],
            p90=p90[i],
            counts=summary.counts,
            index_ms=summary.index_ms.get("total", 0.0),
        )
        for i, (name, summary) in enumerate(report.agents.items())
    ]


def _metric_cells(report: RunReport, metric: str) -> list[Cell]:
    """Return one column of mean cells with their intervals, the report's leaders marked."""
    leader = report.leaders.get(metric)
    stats: list[MetricSummary | None] = [s.metrics.get(metric) for s in report.agents.values()]
    return [
        Cell(
            text=_fmt(m.mean if m else None),
            interval=_interval(m),
            best=_is_best(name, leader),
            lead=_is_best(name, leader) and leader is not None and leader.significant,
        )
        for name, m in zip(report.agents, stats)
    ]


def _latency_cells(report: RunReport, values: Sequence[float | None], column: str) -> list[Cell]:
    """Return latency cells in ms, the report's leaders of ``column`` (the lowest) marked best."""
    leader = report.leaders.get(column)
    return [Cell(_fmt(v, 2), "", _is_best(name, leader), False) for name, v in zip(report.agents, values)]


def _is_best(agent: str, leader: Leader | None) -> bool:
    """Return True when ``agent`` is among the leaders (None: no leader, fewer than two agents had a value)."""
    return leader is not None and agent in leader.agents


def chart_set(report: RunReport, picks: Recommendations) -> dict[str, Markup]:
    """Return the page's charts by name: distributions, latency histogram, quality against latency."""
    found: dict[str, Markup] = {}
    shown = [picks.metric] if picks.metric is not None else []  # per-case F1 mostly told answer length
    scores, latencies = _series(report, shown)
    for metric in shown:
        if any(scores[metric].values()):
            found[f"{metric} per case"] = charts.distribution(scores[metric], label=metric)
    found["latency per case"] = charts.histogram(latencies, label="latency per case (ms)")
    if picks.metric is not None:
        found[f"{picks.metric} against latency"] = _tradeoff(report, picks)
    return found


def _tradeoff(report: RunReport, picks: Recommendations) -> Markup:
    """Return the scatter of mean quality (with its interval) against p50, the balance pick ringed."""
    metric = picks.metric or ""
    points = [
        charts.Point(
            label=agent,
            x=summary.latency_ms.p50,
            y=summary.metrics[metric].mean,
            y_interval=(summary.metrics[metric].ci95[0], summary.metrics[metric].ci95[1]),
            marked=picks.balance is not None and agent == picks.balance.agent,
        )
        for agent, summary in report.agents.items()
        if summary.latency_ms.p50 is not None and metric in summary.metrics
    ]
    log_x = charts.wants_log([p.x for p in points])
    return charts.scatter(points, x_label="p50 latency (ms)", y_label=f"mean {metric}", log_x=log_x)


def _series(
    report: RunReport, metrics: Sequence[str]
) -> tuple[dict[str, dict[str, list[float]]], dict[str, list[float]]]:
    """Return metric -> agent -> its per-case scores, and agent -> its positive answered latencies.

    In one pass over the cases, for every agent of the report, in report order. Latencies are the
    cases' latencies as the report counts them (``table.case_latency``: failed cases too), above 0
    (a log axis needs > 0).
    """
    scores: dict[str, dict[str, list[float]]] = {m: {a: [] for a in report.agents} for m in metrics}
    latencies: dict[str, list[float]] = {a: [] for a in report.agents}
    wanted = [(m, scores[m]) for m in metrics]
    for case in report.cases:
        agent = case.agent
        if agent not in latencies:
            continue
        values = case.metrics
        for metric, series in wanted:
            value = values.get(metric)
            if value is not None:
                series[agent].append(value)
        latency = case_latency(case)
        if latency is not None and latency > 0:
            latencies[agent].append(latency)
    return scores, latencies


def breakdown_tables(
    report: RunReport, headline: Sequence[str], metric: str | None = None
) -> list[dict[str, Any]]:
    """Return one table per breakdown dimension with at least two groups: title, rows, and a chart.

    The chart (None without ``metric``) draws each group's mean of ``metric`` per agent.
    """
    tables = []
    for dimension in DIMENSIONS:
        groups: dict[str, dict[str, GroupSummary]] = getattr(report.breakdowns, dimension)
        if len(groups) < 2:
            continue
        rows = [
            [value, agent, str(s.counts["cases"]), *(_mean_ci(s.metrics.get(m)) for m in headline),
             _fmt(s.latency_ms.p50, 2)]  # fmt: skip
            for value, agents in groups.items()
            for agent, s in agents.items()
        ]
        title = DIMENSION_TITLES[dimension]
        chart = None
        if metric is not None:
            means = {v: {a: s.metrics[metric].mean for a, s in agents.items() if metric in s.metrics}
                     for v, agents in groups.items()}  # fmt: skip
            chart = charts.grouped_bars(means, list(report.agents), label=f"mean {metric} by {title}")
        tables.append({"title": title, "rows": rows, "chart": chart})
    return tables


NBSP = "\u00a0"
"""Keeps an interval on one line."""


def _mean_ci(summary: MetricSummary | None) -> str:
    """Return 'mean [low, high]', 'mean (1 case)' (one case has no interval), or the missing mark."""
    if summary is None:
        return MISSING
    return f"{summary.mean:.3f} {_interval(summary).replace(' ', NBSP)}"  # a narrow column wraps before '['


def _interval(summary: MetricSummary | None) -> str:
    """Return '[low, high]' of a mean over two cases or more; '(1 case)' for one, '' for none."""
    if summary is None:
        return ""
    if summary.n < 2:
        return f"({summary.n} case)"
    return f"[{summary.ci95[0]:.3f}, {summary.ci95[1]:.3f}]"


def failed_note(report: RunReport) -> str | None:
    """Return what failed cases do to the figures (how many timed out, errored, crashed), or None."""
    failed = [(status, report.status_counts.get(status, 0)) for status in report.shown_statuses()
              if status != Status.OK.value and report.status_counts.get(status, 0)]  # fmt: skip
    if not failed:
        return None
    counts = ", ".join(f"{count:,} {status}" for status, count in failed)
    return (f"{counts}: each such case scores 0 on every metric and counts in latency at the time it cost "
            "(a timeout at least its budget); see the status columns and the case table.")


def failure_table(report: RunReport) -> dict[str, Any] | None:
    """Return the missed-case counts per agent and failure category, or None without any miss."""
    categories = sorted({c for s in report.agents.values() for c in s.failures})
    if not categories:
        return None
    rows = [
        [agent, *(s.failures.get(c, 0) for c in categories), sum(s.failures.values())]
        for agent, s in report.agents.items()
    ]
    return {"categories": categories, "rows": rows}
