"""``summary.md``: the aggregate table, the run's settings and how the numbers were made."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.report.render.cost import cost_section
from pytest_codesearch.report.headline import headline_metrics
from pytest_codesearch.report.render.markdown_status import status_section
from pytest_codesearch.report.render.markdown_stats import (
    breakdowns_section,
    comparisons_section,
    failures_section,
)
from pytest_codesearch.report.render.mdtable import MISSING, bold_best, escape_cell, mean_interval, table
from pytest_codesearch.report.model import RunReport
from pytest_codesearch.report.render.replayed import replay_notes
from pytest_codesearch.scoring.registry import find_metric

TITLE = "# Code search benchmark results"
LEAD_MARK = "†"
"""After the best mean of a column when it is significantly better than the runner-up."""

def render_markdown(report: RunReport, headline: Sequence[str] | None = None) -> str:
    """Return ``summary.md``: results, comparisons, breakdowns, failures, run, invalid entries, methods.

    The tables show ``headline`` (default: the report's headline) and mark the report's leaders.
    """
    names = list(dict.fromkeys(headline if headline is not None else report.headline or headline_metrics(report)))
    optional = [
        recommendations_section(report),
        status_section(report),
        cost_section(report),
        comparisons_section(report),
        breakdowns_section(report, names),
        failures_section(report),
    ]
    parts = [TITLE, _results_section(report, names), *(p for p in optional if p)]
    parts.append(_run_section(report))
    if report.invalid:
        parts.append(_invalid_section(report))
    parts.append(_methodology_section(report))
    return "\n\n".join(parts) + "\n"


def recommendations_section(report: RunReport) -> str:
    """Return the report's best-quality, fastest and best-balance picks, one line each ('' without any)."""
    from pytest_codesearch.report.recommend import describe

    picks = report.recommendations.picks()
    if not picks:
        return ""
    lines = describe(picks)
    return "\n".join(["## Recommendations", "", *(f"- {escape_cell(line)}" for line in lines)])


def _metric_column(report: RunReport, name: str) -> list[str]:
    """Return 'mean [low, high]' cells for one metric: best mean in bold, a significant leader marked."""
    agents = list(report.agents)
    leader = report.leaders.get(name)
    lead = leader.agents[0] if leader is not None and leader.significant else None
    stats = [s.metrics.get(name) for s in report.agents.values()]
    cells = [mean_interval(m) + (LEAD_MARK if a == lead else "") for a, m in zip(agents, stats)]
    return bold_best(cells, agents, leader)


def _latency_column(report: RunReport, attribute: str) -> list[str]:
    """Return latency cells in ms, lowest in bold."""
    values = [getattr(s.latency_ms, attribute) for s in report.agents.values()]
    cells = [f"{v:.2f}" if v is not None else MISSING for v in values]
    return bold_best(cells, list(report.agents), report.leaders.get(f"latency_ms.{attribute}"))


def _results_section(report: RunReport, headline: Sequence[str]) -> str:
    """Return the aggregate table, one row per agent, its notes and the run's warnings."""
    summaries = list(report.agents.values())
    columns = [list(report.agents)]
    columns += [_metric_column(report, m) for m in headline]
    columns.append(_latency_column(report, "p50"))
    columns.append(_latency_column(report, "p90"))
    statuses = report.shown_statuses()
    columns.append([" / ".join(str(s.counts.get(status, 0)) for status in statuses) for s in summaries])
    header = ["agent", *headline, "p50 ms", "p90 ms", " / ".join(statuses)]
    align = [":---", *("---:" for _ in headline), "---:", "---:", "---:"]
    rows = [list(row) for row in zip(*columns)]
    notes = [
        "Metrics: mean over the agent's cases with the 95% bootstrap interval of the mean in "
        f"brackets ({report.run.bootstrap:,} resamples; an error scores 0 on the metrics that "
        "apply to its case). Latency: per-case median in milliseconds; a failed case counts the time "
        "until it failed (a timeout at least its budget), when known. Best value of each column in "
        f"bold; {LEAD_MARK} marks a best mean that is "
        "significantly better than the runner-up (see Comparisons). Columns: the run's headline "
        "(docs/results-format.md says how it is chosen); results.json holds every metric."
    ]
    notes += _denominator_notes(report, headline)
    notes += [escape_cell(note) for note in replay_notes(report)]
    if report.not_run:
        notes.append(
            f"{len(report.not_run)} collected case(s) never ran; "
            "their node ids are under `not_run` in results.json."
        )
    if report.warnings:
        notes.append("\n".join(f"- **Warning:** {escape_cell(w)}" for w in report.warnings))
    return "\n\n".join(["## Results", table(header, align, rows), *notes])


_APPLIES_TO = {
    "lines": "whose ground truth gives line ranges",
    "symbols": "whose ground truth names symbols",
    "hard_negatives": "that name symbols and list hard negatives",
    "modules": "whose ground truth lists modules",
    "functions": "whose ground truth lists functions",
}
"""The cases a metric applies to, by its registry ``applies``, for the denominator notes."""


def _denominator_notes(report: RunReport, headline: Sequence[str]) -> list[str]:
    """Return one line per headline metric averaged over fewer cases than the agent ran: which and why."""
    notes = []
    for name in headline:
        metric = find_metric(name)
        phrase = _APPLIES_TO.get(metric.applies) if metric is not None else None
        counts = [(s.metrics[name].n, s.counts.get("cases", 0)) for s in report.agents.values() if name in s.metrics]
        if phrase is None or not counts or all(n == total for n, total in counts):
            continue
        n, total = max(counts)
        notes.append(
            f"{escape_cell(name)} is the mean over the {n:,} of {total:,} cases {phrase} (results.json "
            f"`metrics.{escape_cell(name)}.n`): a case without them is left out, not scored 0. A table that "
            f"divides by all {total:,} cases gives {n:,}/{total:,} of it for the same answers."
        )
    return notes


def _run_section(report: RunReport) -> str:
    """Return the run's settings, agents and versions."""
    run = report.run
    statuses = ", ".join(f"{report.status_counts[s]} {s}" for s in report.shown_statuses())
    items = [
        f"Seed: {run.seed}",
        f"Runs per case: {run.runs}",
        f"Cases: {len(report.cases)} ({statuses})",
        f"Gold sets: {', '.join(run.goldsets) or MISSING}",
        f"Answer length asked of agents (k): {'not set' if run.k is None else run.k}",
        f"Metric cut-offs: {', '.join(map(str, run.ks)) or MISSING}",
        f"Scoring profile: {run.profile} (docs/profiles.md)",
        f"Blind twins (memorization control): {'yes, NAME-blind' if run.blind else 'no'}",
        f"Workers: {run.workers}",
        f"Bootstrap resamples: {run.bootstrap}, significance level: {run.alpha:g}",
        f"F-beta: {'not computed' if run.f_beta is None else f'beta = {run.f_beta:g}'}",
        f"Started: {run.started_at}, finished: {run.finished_at}",
    ]
    if run.exit_status is not None:
        items.append(f"Exit status: {run.exit_status}")
    lines = ["## Run", "\n".join(f"- {escape_cell(item)}" for item in items)]
    agents = [
        [name, info.fixture, info.source, info.param or MISSING]
        for name, info in run.agents.items()
    ]
    if agents:
        lines.append(table(["agent", "fixture", "source", "param"], ["---"] * 4, agents))
    versions = [[name, version] for name, version in run.versions.items()]
    if versions:
        lines.append(table(["component", "version"], ["---", "---"], versions))
    return "\n\n".join(lines)


def _invalid_section(report: RunReport) -> str:
    """Return the table of gold-set entries that could not become cases."""
    rows = [
        [entry.goldset, str(entry.line), entry.case_id or MISSING, entry.error]
        for entry in report.invalid
    ]
    entries = table(["gold set", "line", "case", "error"], [":---", "---:", ":---", ":---"], rows)
    return f"## Invalid gold-set entries\n\n{entries}"


def _methodology_section(report: RunReport) -> str:
    """Return how cases were run, timed and scored, with one line per metric family."""
    runs = report.run.runs
    paragraph = (
        "Cases ran in an order shuffled with the seed above: the repository snapshots first, "
        "then the cases within each snapshot. Each retrieval was timed "
        f"{runs} time{'s' if runs != 1 else ''} with `time.perf_counter_ns` around the agent "
        "call alone, and the agent's `reset()` was called before every run. A case's latency is "
        "the median of its runs; the answer of the first run is the one scored. Indexing "
        "(`initialize()`) was timed separately and never counts as latency. A case whose agent "
        "failed or did not answer is an error and scores 0 on every metric that applies to it, "
        "so it lowers the mean rather than leaving it. A metric that does not apply to a case "
        "(line metrics without line ranges in the gold set) is averaged over the cases it "
        "applies to."
    )
    statistics = (
        "Intervals are percentile bootstrap 95% intervals of the mean "
        f"({report.run.bootstrap:,} resamples of the cases, seeded from the run seed, so the "
        "same results give the same intervals). Agents are compared pairwise on the cases both "
        "were given, with a two-sided sign-flip randomization test on each headline metric "
        "and Holm's correction across all tests of the run. A pair gets a warning when its "
        "paired cases are too few to detect a difference of 0.05 at the significance level "
        "with 80% power, using the normal approximation n = ((z(1 − α/2) + z(0.8)) · sd / "
        "0.05)², where sd is the standard deviation of the paired differences."
    )
    definitions = [
        f"- `{escape_cell(label)}`: {definition}" for label, definition in _definitions(report.metric_names())
    ]
    pointer = "Formulas and edge cases for every metric: docs/metrics.md."
    parts = ["## Methodology", paragraph, statistics, "\n".join(definitions), pointer]
    return "\n\n".join(part for part in parts if part)


def _definitions(names: Sequence[str]) -> list[tuple[str, str]]:
    """Return (label, one-line definition) of each metric family in ``names``, from the registry."""
    found: dict[str, str] = {}
    for name in names:
        metric = find_metric(name)
        label = name if metric is None else metric.label()
        found.setdefault(label, "see docs/metrics.md." if metric is None else metric.definition)
    return list(found.items())


def render_summary(report: RunReport) -> str:
    """Return ``summary.md`` with the report's headline (the report-format registry's renderer)."""
    return render_markdown(report)
