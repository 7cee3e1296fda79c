"""Report writers: atomic files, JSON, CSV injection, Markdown escaping, best-value marks."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.render.csv_report import csv_columns, neutralize, render_csv
from pytest_codesearch.report.render.formats import REPORT_FORMATS
from pytest_codesearch.report.render.formats import write_reports
from pytest_codesearch.report.render.json_report import render_json
from pytest_codesearch.report.render.markdown import escape_cell, render_markdown
from pytest_codesearch.report.model import (
    AgentInfo,
    CaseResult,
    InvalidEntry,
    RunInfo,
    RunReport,
)
from pytest_codesearch.report.render.terminal import render_terminal
from report_cases import make_report

METRICS = ["f1", "mrr", "precision@5"]


def case(
    case_id: str, agent: str, f1: float, mrr: float, latency: float, **extra: Any
) -> CaseResult:
    """Return an ok case with f1, mrr and precision@5 (= f1) scores."""
    values: dict[str, Any] = {
        "id": case_id, "goldset": "flask", "agent": agent, "query": "find the router",
        "nodeid": f"flask.jsonl::{case_id}[{agent}]", "ground_truth": ["src/routing.py"],
        "relevance": {"src/routing.py": 1}, "retrieved": ["src/routing.py", "src/app.py"],
        "status": "ok", "latency_ms": latency, "latencies_ms": [latency], "index_ms": 4.0,
        "metrics": {"f1": f1, "mrr": mrr, "precision@5": f1},
    }  # fmt: skip
    values.update(extra)
    return CaseResult(**values)


def report_of(cases: list[CaseResult], agents: list[str], **run: Any) -> RunReport:
    """Build the report of ``cases`` for ``agents``."""
    info: dict[str, Any] = {
        "seed": 7, "runs": 3, "k": 10, "ks": [5], "started_at": "2024-05-01T10:00:00Z",
        "finished_at": "2024-05-01T10:00:09Z", "versions": {"python": "3.12.3"},
        "goldsets": ["flask"], "workers": 1,
        "agents": {a: AgentInfo(fixture=a, source="conftest.py") for a in agents},
    }  # fmt: skip
    info.update(run)
    return build_run_report(RunInfo(**info), cases, METRICS)


@pytest.fixture
def report() -> RunReport:
    """Three agents: 'fast' is quickest, 'good' and 'twin' tie on f1, 'good' leads mrr."""
    return report_of(
        [
            case("c1", "good", 0.8, 1.0, 30.0),
            case("c1", "twin", 0.8, 0.5, 20.0),
            case("c1", "fast", 0.2, 0.25, 1.5),
            case("c2", "fast", 0.0, 0.0, 0.0, status="error", latency_ms=None, metrics={},
                 error="RuntimeError: boom"),
        ],  # fmt: skip
        ["good", "twin", "fast"],
    )


# --- atomic writes -----------------------------------------------------------------------


def test_write_atomic_creates_parents_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "results.json"
    write_atomic(target, "first\n")
    assert target.read_text(encoding="utf-8") == "first\n"
    assert list(target.parent.iterdir()) == [target]


def test_write_atomic_replaces_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    target.write_text("old", encoding="utf-8")
    write_atomic(target, "new ± ok\r\n")
    assert target.read_bytes() == "new ± ok\r\n".encode()
    assert list(tmp_path.iterdir()) == [target]


def test_write_atomic_writes_bytes_as_given(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    write_atomic(target, "{\"q\": \"± \\r\"}\r\n".encode())
    assert target.read_bytes() == b'{"q": "\xc2\xb1 \\r"}\r\n'


def test_failed_write_keeps_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    target.write_text("previous", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\ud800")  # a lone surrogate cannot be encoded
    assert target.read_text(encoding="utf-8") == "previous"
    assert list(tmp_path.iterdir()) == [target]


# --- JSON ----------------------------------------------------------------------------------


def test_results_json_round_trips(tmp_path: Path, report: RunReport) -> None:
    path = tmp_path / "results.json"
    write_reports(report, tmp_path, ["json"])
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "schema_version": 1,\n  "run": {')
    assert RunReport.model_validate_json(text) == report


def test_results_json_is_the_model_dump_with_a_newline() -> None:
    report = make_report(12)  # hostile queries: markup, a line separator, a newline
    assert render_json(report) == (report.model_dump_json(indent=2) + "\n").encode("utf-8")
    assert REPORT_FORMATS["json"].render(report) == report.model_dump_json(indent=2) + "\n"


# --- CSV -----------------------------------------------------------------------------------


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_csv_has_one_row_per_case_with_metric_columns(report: RunReport) -> None:
    text = render_csv(report)
    header = text.splitlines()[0].split(",")
    assert header == [
        "id", "goldset", "agent", "status", "query", "retrieved", "ground_truth",
        "f1", "mrr", "precision@5", "latency_ms", "elapsed_ms", "index_ms", "indexed", "error",
    ]  # fmt: skip
    rows = _rows(text)
    assert len(rows) == 4
    good = next(r for r in rows if r["agent"] == "good")
    assert (good["retrieved"], good["f1"], good["latency_ms"]) == (
        "src/routing.py;src/app.py", "0.8", "30.0",
    )  # fmt: skip


def test_csv_error_row_has_blank_metrics_and_the_error(report: RunReport) -> None:
    row = next(r for r in _rows(render_csv(report)) if r["status"] == "error")
    assert (row["f1"], row["latency_ms"], row["error"]) == ("", "", "RuntimeError: boom")


@pytest.mark.parametrize("dangerous", ["=cmd()", "+1", "-x.py", "@SUM(A1)", "\tx", "\rx", "\nx"])
def test_csv_neutralises_formula_cells(dangerous: str) -> None:
    hostile = case("c1", "a", 0.5, 0.5, 1.0, query=dangerous, retrieved=[dangerous, "b.py", dangerous],
                   ground_truth=[dangerous], error=dangerous)  # fmt: skip
    row = _rows(render_csv(report_of([hostile], ["a"])))[0]
    assert row["query"] == "'" + dangerous
    assert row["retrieved"] == f"'{dangerous};b.py;'{dangerous}"  # every list item: a locale splitting at ;
    assert row["ground_truth"] == row["error"] == "'" + dangerous
    assert row["f1"] == "0.5"


def _reference_csv(report: RunReport) -> str:
    """Return results.csv as ``csv.writer`` writes it from one row per case (what render_csv must equal)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    metrics = report.metric_names()
    writer.writerow(csv_columns(report))
    for c in report.cases:
        lists = [";".join(map(neutralize, c.retrieved)), ";".join(map(neutralize, c.ground_truth))]
        text = [c.id, c.goldset, c.agent, c.status.value, c.query, *lists]
        numbers = [c.metrics.get(name) for name in metrics] + [c.latency_ms, c.elapsed_ms, c.index_ms]
        tail = ["true" if c.indexed else "false", c.error or ""]
        writer.writerow([*map(neutralize, text[:5]), *text[5:], *numbers, *map(neutralize, tail)])
    return buffer.getvalue()


AWKWARD = ['a,b', 'say "hi"', "cr\rhere", "lf\nhere", "crlf\r\nhere", '"', ",", "", " padded ", "±\u2028"]


@pytest.mark.parametrize("metrics", [METRICS, ["f1"]], ids=["three-metrics", "one-metric"])
def test_csv_equals_the_csv_module_row_by_row(report: RunReport, metrics: list[str]) -> None:
    cases = [
        case(f"c{i}", "a", i / 7, 1 / (i + 1), i * 1.25, query=text, retrieved=[text, "b.py"], error=text or None,
             ground_truth=[f"{text}.py"], metrics={m: i / 7 for m in metrics})
        for i, text in enumerate(AWKWARD)
    ]  # fmt: skip
    awkward = build_run_report(report.run, cases, metrics)
    some_missing = [c.model_copy(update={"metrics": dict(list(c.metrics.items())[i % 2 :])}) for i, c in enumerate(cases)]
    awkward = awkward.model_copy(update={"cases": some_missing})  # a metric that does not apply is blank
    for each in (awkward, report, make_report(12), awkward.model_copy(update={"cases": []})):
        assert render_csv(each) == _reference_csv(each)


def test_csv_writes_numbers_as_python_does() -> None:
    scores = {"f1": 1 / 3, "mrr": 1e-07, "precision@5": 2.5e16}
    one = case("c1", "a", 1 / 3, 1e-07, 123456789.125, index_ms=None, metrics=scores)
    row = render_csv(report_of([one], ["a"])).splitlines()[1].split(",")
    assert row[7:12] == ["0.3333333333333333", "1e-07", "2.5e+16", "123456789.125", ""]


def test_write_csv(tmp_path: Path, report: RunReport) -> None:
    write_reports(report, tmp_path, ["csv"])
    assert len(_rows((tmp_path / "results.csv").read_text(encoding="utf-8"))) == 4


# --- Markdown ------------------------------------------------------------------------------


def _table_row(markdown: str, first_cell: str) -> list[str]:
    """Return the cells of the first table row whose first cell is ``first_cell``."""
    line = next(ln for ln in markdown.splitlines() if ln.startswith(f"| {first_cell} |"))
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]


def test_escape_cell_escapes_pipes_and_drops_newlines() -> None:
    assert escape_cell("a|b\nc\r\nd\re") == "a\\|b c d e"


def test_markdown_bolds_best_metric_ties_and_lowest_latency(report: RunReport) -> None:
    text = render_markdown(report, ["f1", "mrr"])
    good, twin, fast = (_table_row(text, a) for a in ("good", "twin", "fast"))
    assert good[1:3] == ["**0.800 [0.800, 0.800]**", "**1.000 [1.000, 1.000]**"]
    assert twin[1:3] == ["**0.800 [0.800, 0.800]**", "0.500 [0.500, 0.500]"]
    # f1 of fast over [0.2, 0.0 (error)]: resampled means 0, 0.1, 0.2 with chances 1/4, 1/2, 1/4
    assert fast[1] == "0.100 [0.000, 0.200]"
    assert (fast[3], good[3]) == ("**1.50**", "30.00")
    assert fast[5] == "1 / 1"


def duel_report(n: int = 30) -> RunReport:
    """Two agents on ``n`` cases: 'ace' always right (1.0), 'dud' always wrong (0.0)."""
    cases = [case(f"c{i:02d}", "ace", 1.0, 1.0, 1.0) for i in range(n)]
    cases += [case(f"c{i:02d}", "dud", 0.0, 0.0, 2.0) for i in range(n)]
    return report_of(cases, ["ace", "dud"])


def test_markdown_marks_a_significant_leader_and_bolds_significant_comparisons() -> None:
    text = render_markdown(duel_report(), ["f1", "mrr"])
    assert _table_row(text, "ace")[1:3] == ["**1.000 [1.000, 1.000]†**"] * 2
    assert _table_row(text, "dud")[1] == "0.000 [0.000, 0.000]"
    assert "† marks a best mean that is significantly better than the runner-up" in text
    # 30 equal differences: p = 1 / 10,001; Holm over the 2 headline metrics of METRICS present
    row = "| **f1** | **ace** | **dud** | **+1.000** | **[+1.000, +1.000]** | **0.0001** | **0.0002** |"
    assert row in text
    assert "Holm-corrected over all 2 tests of the run" in text


def test_markdown_comparison_that_is_not_significant_is_plain(report: RunReport) -> None:
    text = render_markdown(report, ["f1", "mrr"])
    assert "| f1 | good | twin | +0.000 | [+0.000, +0.000] | 1.0000 | 1.0000 |" in text
    assert not any("†" in cell for a in ("good", "twin", "fast") for cell in _table_row(text, a))


def test_markdown_warns_about_too_few_paired_cases(report: RunReport) -> None:
    text = render_markdown(report, ["f1"])
    assert (
        "- **Warning:** good vs twin: 1 paired case, too few to estimate the spread of their "
        "differences"
    ) in text


def test_markdown_breakdowns_and_failures() -> None:
    cases = [
        case("c1", "a", 1.0, 1.0, 1.0, complexity="low"),
        case("c2", "a", 0.0, 0.0, 3.0, complexity="high", failure_category="vocabulary_mismatch"),
        case("c1", "b", 0.0, 0.0, 2.0, complexity="low", failure_category="other"),
    ]
    text = render_markdown(report_of(cases, ["a", "b"]), ["f1"])
    assert "### By complexity" in text and "### By gold set" not in text
    assert _table_row(text, "high") == ["high", "a", "1", "0.000 [0.000, 0.000]", "3.00"]
    assert "| low | b | 1 | 0.000 [0.000, 0.000] | 2.00 |" in text
    assert "| agent | other | vocabulary_mismatch | missed |" in text
    assert _table_row(text.split("## Failures")[1], "a")[1:] == ["0", "1", "1"]


def test_markdown_single_agent_has_no_bold() -> None:
    text = render_markdown(report_of([case("c1", "solo", 0.5, 0.5, 2.0)], ["solo"]), ["f1"])
    assert "**" not in text


def test_markdown_escapes_every_cell() -> None:
    hostile = "evil|agent\nname"
    report = report_of([case("c1", hostile, 0.5, 0.5, 2.0)], [hostile],
                       versions={"python": "3.12 | x\ny"})  # fmt: skip
    report.invalid.append(InvalidEntry(goldset="g|s", line=3, case_id="a|b", error="bad\n| oops"))
    text = render_markdown(report, ["f1"])
    assert "evil\\|agent name" in text
    assert "| g\\|s | 3 | a\\|b | bad \\| oops |" in text
    header_cells = len(_table_row(text, "agent"))
    assert len(_table_row(text, "evil\\|agent name")) == header_cells
    assert "3.12 \\| x y" in text


def test_markdown_sections_and_methodology(report: RunReport) -> None:
    text = render_markdown(report, ["f1"])
    headings = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert headings == [
        "# Code search benchmark results", "## Results", "## Recommendations", "## Statuses and indexing", "## Comparisons", "## Run",
        "## Methodology",
    ]  # fmt: skip
    assert "- Seed: 7" in text and "- Runs per case: 3" in text and "- Workers: 1" in text
    assert "- Bootstrap resamples: 1000, significance level: 0.05" in text
    assert "- F-beta: not computed" in text
    assert "timed 3 times with `time.perf_counter_ns`" in text
    assert "`precision@k`: relevant paths among the first k results, divided by k." in text
    assert "n = ((z(1 − α/2) + z(0.8)) · sd / 0.05)²" in text
    assert "docs/metrics.md" in text


def test_markdown_lists_invalid_entries_only_when_present(report: RunReport) -> None:
    assert "## Invalid gold-set entries" not in render_markdown(report, ["f1"])
    report.invalid.append(InvalidEntry(goldset="flask", line=12, case_id=None, error="no query"))
    assert "| flask | 12 | – | no query |" in render_markdown(report, ["f1"])


def test_write_markdown(tmp_path: Path, report: RunReport) -> None:
    write_reports(report, tmp_path, ["markdown"])
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").endswith("docs/metrics.md.\n")


# --- terminal ------------------------------------------------------------------------------


def test_terminal_marks_best_with_star_and_shows_intervals(report: RunReport) -> None:
    header, good, twin, fast, legend, *_ = render_terminal(report, ["f1", "mrr"], 200)
    assert header.split() == ["agent", "f1", "mrr", "p50", "ms", "p90", "ms", "ok/error"]
    assert good.split() == ["good", "0.800±0.00*", "1.000±0.00*", "30.00", "30.00", "1/0"]
    assert twin.split() == ["twin", "0.800±0.00*", "0.500±0.00", "20.00", "20.00", "1/0"]
    # fast: f1 0.1 in [0.0, 0.2]; mrr 0.125 in [0.0, 0.25], half-width 0.125 shown as 0.12
    assert fast.split() == ["fast", "0.100±0.10", "0.125±0.12", "1.50*", "1.50*", "1/1"]
    assert legend == "± half the 95% bootstrap interval; * best"


def test_terminal_marks_a_significant_leader() -> None:
    header, ace, dud, legend, *_ = render_terminal(duel_report(), ["f1", "mrr"], 200)
    assert ace.split()[1:3] == ["1.000±0.00**", "1.000±0.00**"]
    assert dud.split()[1:3] == ["0.000±0.00", "0.000±0.00"]
    assert legend == (
        "± half the 95% bootstrap interval; * best; "
        "** best and significantly ahead of the runner-up (Holm p < 0.05)"
    )


def test_terminal_columns_line_up(report: RunReport) -> None:
    lines = render_terminal(report, ["f1", "mrr"], 200)
    stars = {line.index("*") for line in lines[1:3]}
    assert stars == {lines[1].index("0.800±0.00*") + 10}
    assert len({len(line) for line in lines[:3]}) == 1


def test_terminal_drops_intervals_before_columns_and_says_so(report: RunReport) -> None:
    full = render_terminal(report, ["f1", "mrr"], 200)
    width = len(full[0]) - 1
    compact = render_terminal(report, ["f1", "mrr"], width)
    assert compact[1].split()[:3] == ["good", "0.800*", "1.000*"]
    assert compact[4] == f"omitted at {width} columns: ± intervals (summary.md has them)"
    assert compact[5] == "* best"


def test_terminal_drops_columns_all_agents_share_first(report: RunReport) -> None:
    metrics = ["f1", "mrr", "precision@5"]
    compact = render_terminal(report, metrics, len(render_terminal(report, metrics, 200)[0]) - 1)
    narrow = render_terminal(report, metrics, len(compact[0]) - 5)
    assert narrow[4].startswith(f"omitted at {len(compact[0]) - 5} columns: ± intervals, p90 ms")
    assert all(len(line) <= len(compact[0]) - 5 for line in narrow[:4])
    assert "p50 ms" in narrow[0] and "precision@5" in narrow[0]


def drop_sequence(built: RunReport, metrics: list[str]) -> list[str]:
    """Return the columns the terminal omits, in the order it omits them as the width shrinks."""
    order: list[str] = []
    width = 200
    while True:
        lines = render_terminal(built, metrics, width)
        omitted = [line for line in lines if line.startswith("omitted at")]
        if omitted:
            names = omitted[0].split(": ", 1)[1].removesuffix(" (summary.md has them)").split(", ")
            order += [name for name in names if name not in order]
        if lines[0] == "agent":
            return order
        width = len(lines[0]) - 1


def test_terminal_drops_uniform_columns_first_then_p90_then_metrics_from_the_last() -> None:
    cases = [case("c1", "a", 0.5, 1.0, 1.0), case("c1", "b", 0.5, 0.0, 2.0)]  # same f1, precision@5, ok
    assert drop_sequence(report_of(cases, ["a", "b"]), METRICS) == [
        "± intervals", "ok", "precision@5", "f1", "p90 ms", "mrr", "p50 ms",
    ]  # fmt: skip


def test_terminal_notes_invalid_not_run_and_power(report: RunReport) -> None:
    report.invalid.append(InvalidEntry(goldset="flask", line=1, case_id=None, error="x"))
    report.not_run.append("flask.jsonl::c9[good]")
    lines = render_terminal(report, ["f1"], 120)
    assert lines[-3:] == [
        "invalid gold-set entries: 1 (see summary.md)",
        "cases collected but never run: 1",
        "warning: 3 agent pairs share too few cases to detect a difference of 0.05 with 80% power "
        "(see summary.md)",
    ]


def test_terminal_prints_answer_warnings_in_full_beside_the_power_summary(report: RunReport) -> None:
    report.warnings.append("agent a: named 2 function(s) that do not exist at their snapshot (1 case(s))")
    assert render_terminal(report, ["f1"], 120)[-2:] == [
        "warning: agent a: named 2 function(s) that do not exist at their snapshot (1 case(s))",
        "warning: 3 agent pairs share too few cases to detect a difference of 0.05 with 80% power "
        "(see summary.md)",
    ]


def test_terminal_prints_a_single_power_warning_in_full() -> None:
    lines = render_terminal(duel_report(5), ["f1"], 120)
    assert lines[-1].startswith("warning: ace vs dud: 5 paired cases, about 6 needed")


def test_writers_render_a_run_that_ran_nothing() -> None:
    empty = report_of([], [], exit_status=2)
    empty.not_run.append("flask.jsonl::c1[good]")
    assert render_terminal(empty, ["f1"], 80)[0] == "no agent ran"
    assert "- Exit status: 2" in render_markdown(empty, [])
    assert render_csv(empty).splitlines() == [
        "id,goldset,agent,status,query,retrieved,ground_truth,latency_ms,elapsed_ms,index_ms,indexed,error"
    ]


@pytest.mark.parametrize(("hostile", "inert"), [
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("![pixel](https://evil.example/p.png)", "![pixel\\](https&#58;//evil.example/p.png)"),
    ("[click](javascript:alert(1))", "[click\\](javascript:alert(1))"),
    ("[ref]: https://evil.example", "[ref\\]: https&#58;//evil.example"),
    ("see www.evil.example", "see www&#46;evil.example"),
    ("red\x1b[31m bell\x07", "red\\x1b[31m bell\\x07"),
    ("back\\](x)", "back\\\\\\](x)"),
    ("R&D", "R&amp;D"),
    ("0.512 [0.400, 0.600]", "0.512 [0.400, 0.600]"),
])  # fmt: skip
def test_escape_cell_leaves_no_html_link_image_or_escape_byte(hostile: str, inert: str) -> None:
    assert escape_cell(hostile) == inert


def test_summary_md_shows_hostile_categories_and_agents_as_text() -> None:
    names = ["<script>x</script>", "[a](https://e.example)"]
    cases = [case(f"c{i}", "good", 0.5, 0.5, 1.0, category=name) for i, name in enumerate(names)]
    text = render_markdown(report_of(cases, ["good"]))
    assert "&lt;script&gt;x&lt;/script&gt;" in text and "[a\\](https&#58;//e.example)" in text
    assert "<script>" not in text and "[a](https" not in text
