"""``summary.md``: the aggregate table, the run's settings and how the numbers were made."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_codesearch.report.atomic import write_atomic
from pytest_codesearch.report.model import AgentSummary, RunReport
from pytest_codesearch.stats import best_positions

TITLE = "# Code search benchmark results"
MISSING = "–"

METRIC_DEFINITIONS = {
    "precision@k": "relevant paths among the first k results, divided by k.",
    "recall@k": "relevant paths among the first k results, divided by all relevant paths.",
    "hit@k": "1 when at least one relevant path is among the first k results, else 0.",
    "ndcg@k": "gain of the first k results under graded relevance with a log2 rank discount, "
    "divided by the gain of the ideal ordering.",
    "mrr": "1 / rank of the first relevant path (0 when none is retrieved), averaged over cases.",
    "map": "precision at the rank of each relevant path retrieved, summed and divided by the "
    "number of relevant paths, averaged over cases.",
    "f1": "harmonic mean of precision and recall of the whole answer, taken as a set.",
    "f1_partial": "F1 in which near misses earn partial credit.",
    "precision": "share of the whole answer that is relevant.",
    "recall": "share of the relevant paths found anywhere in the answer.",
}
"""One line per metric family; the full formulas live in docs/metrics.md."""


def escape_cell(text: str) -> str:
    """Return ``text`` safe for a Markdown table cell: ``|`` escaped, newlines removed."""
    flat = " ".join(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return flat.replace("|", "\\|")


def render_markdown(report: RunReport, headline: Sequence[str]) -> str:
    """Return ``summary.md``: title, results table, run settings, invalid entries, methodology."""
    parts = [TITLE, _results_section(report, headline), _run_section(report)]
    if report.invalid:
        parts.append(_invalid_section(report))
    parts.append(_methodology_section(report))
    return "\n\n".join(parts) + "\n"


def write_markdown(report: RunReport, path: Path, headline: Sequence[str]) -> None:
    """Write ``summary.md`` atomically."""
    write_atomic(path, render_markdown(report, headline))


def _table(header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Return a Markdown table; every cell is escaped here."""
    lines = [_table_row(header), _table_row(align, escape=False)]
    lines += [_table_row(row) for row in rows]
    return "\n".join(lines)


def _table_row(cells: Sequence[str], *, escape: bool = True) -> str:
    """Return one table line."""
    shown = [escape_cell(c) if escape else c for c in cells]
    return "| " + " | ".join(shown) + " |"


def _bold_best(cells: list[str], keys: Sequence[float | None], *, higher: bool) -> list[str]:
    """Embolden the cells whose key is best in the column (all on a tie; none with one value)."""
    if sum(k is not None for k in keys) < 2:
        return cells
    best = best_positions(keys, higher_is_better=higher)
    return [f"**{c}**" if i in best else c for i, c in enumerate(cells)]


def _metric_column(summaries: Sequence[AgentSummary], name: str) -> list[str]:
    """Return 'mean ± std' cells for one metric, best mean in bold."""
    stats = [s.metrics.get(name) for s in summaries]
    cells = [f"{m.mean:.3f} ± {m.std:.3f}" if m else MISSING for m in stats]
    keys = [round(m.mean, 3) if m else None for m in stats]
    return _bold_best(cells, keys, higher=True)


def _latency_column(values: Sequence[float | None]) -> list[str]:
    """Return latency cells in ms, lowest in bold."""
    cells = [f"{v:.2f}" if v is not None else MISSING for v in values]
    keys = [round(v, 2) if v is not None else None for v in values]
    return _bold_best(cells, keys, higher=False)


def _results_section(report: RunReport, headline: Sequence[str]) -> str:
    """Return the aggregate table, one row per agent."""
    names = list(report.agents)
    summaries = list(report.agents.values())
    columns = [names]
    columns += [_metric_column(summaries, metric) for metric in headline]
    columns.append(_latency_column([s.latency_ms.p50 for s in summaries]))
    columns.append(_latency_column([s.latency_ms.p90 for s in summaries]))
    columns.append([f"{s.counts['ok']} / {s.counts['error']}" for s in summaries])
    header = ["agent", *headline, "p50 ms", "p90 ms", "ok / error"]
    align = [":---", *("---:" for _ in headline), "---:", "---:", "---:"]
    rows = [list(row) for row in zip(*columns)]
    notes = [
        "Metrics: mean ± sample standard deviation over every case of the agent (errors score 0). "
        "Latency: per-case median in milliseconds, percentiles over answered cases. "
        "Best value of each column in bold."
    ]
    if report.not_run:
        notes.append(
            f"{len(report.not_run)} collected case(s) never ran; "
            "their node ids are under `not_run` in results.json."
        )
    return "\n\n".join(["## Results", _table(header, align, rows), *notes])


def _run_section(report: RunReport) -> str:
    """Return the run's settings, agents and versions."""
    run = report.run
    ok = sum(1 for c in report.cases if c.status == "ok")
    items = [
        f"Seed: {run.seed}",
        f"Runs per case: {run.runs}",
        f"Cases: {len(report.cases)} ({ok} ok, {len(report.cases) - ok} error)",
        f"Gold sets: {', '.join(run.goldsets) or MISSING}",
        f"Answer length asked of agents (k): {'not set' if run.k is None else run.k}",
        f"Metric cut-offs: {', '.join(map(str, run.ks)) or MISSING}",
        f"Workers: {run.workers}",
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
        lines.append(_table(["agent", "fixture", "source", "param"], ["---"] * 4, agents))
    versions = [[name, version] for name, version in run.versions.items()]
    if versions:
        lines.append(_table(["component", "version"], ["---", "---"], versions))
    return "\n\n".join(lines)


def _invalid_section(report: RunReport) -> str:
    """Return the table of gold-set entries that could not become cases."""
    rows = [
        [entry.goldset, str(entry.line), entry.case_id or MISSING, entry.error]
        for entry in report.invalid
    ]
    table = _table(["gold set", "line", "case", "error"], [":---", "---:", ":---", ":---"], rows)
    return f"## Invalid gold-set entries\n\n{table}"


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
        "failed or did not answer is an error and scores 0 on every metric, so it lowers the "
        "mean rather than leaving it."
    )
    families = list(dict.fromkeys(_family(name) for name in report.metric_names()))
    definitions = [
        f"- `{escape_cell(f)}`: {METRIC_DEFINITIONS.get(f, 'see docs/metrics.md.')}"
        for f in families
    ]
    pointer = "Formulas and edge cases for every metric: docs/metrics.md."
    parts = ["## Methodology", paragraph, "\n".join(definitions), pointer]
    return "\n\n".join(part for part in parts if part)


def _family(metric: str) -> str:
    """Return the definition key of a metric name: 'recall@10' -> 'recall@k'."""
    base, at, _ = metric.partition("@")
    return f"{base}@k" if at else metric
