"""report.html without a browser: structure, escaping, embedded case data, marks and charts."""

from __future__ import annotations

import gc
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_cases import AGENTS, HOSTILE_QUERIES, make_report, priced

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.render.formats import ReportFormat
from pytest_codesearch.report.render.formats import write_reports
from pytest_codesearch.report.render import html as html_module
from pytest_codesearch.report.render.html import render_html
from pytest_codesearch.report.render.html_cases import case_json, script_safe_json
from pytest_codesearch.report.render.markdown import render_markdown
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.report.render.terminal import render_terminal


class Elements(HTMLParser):
    """Collect every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(page: str) -> Elements:
    """Return the parsed page."""
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def report() -> RunReport:
    """Sixty cases of three agents, the first six with hostile queries."""
    return make_report(60)


@pytest.fixture(scope="module")
def page(report: RunReport) -> str:
    """The rendered page."""
    return render_html(report)


def case_data(page: str) -> dict[str, object]:
    """Return the JSON document embedded in the page."""
    scripts = parse(page).scripts
    return json.loads(scripts[0])  # type: ignore[no-any-return]


def test_hostile_queries_stay_inside_the_json_block(page: str) -> None:
    elements = parse(page)
    scripts = [attrs for tag, attrs in elements.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "case-data"}, {}]
    assert not [a for _, attrs in elements.tags for a in attrs if a.startswith("on")]
    assert not [t for t, _ in elements.tags if t in ("img", "iframe", "object", "embed", "link")]
    assert "</script><script>document" not in page
    outside = page.replace(elements.scripts[0], "")
    assert "pwned" not in outside and "javascript:" not in outside


def test_the_json_block_round_trips_every_query(page: str, report: RunReport) -> None:
    data = case_data(page)
    cases = data["cases"]
    assert isinstance(cases, list) and len(cases) == 60
    assert [row[2] for row in cases[: len(HOSTILE_QUERIES)]] == list(HOSTILE_QUERIES)
    assert data["agents"] == list(AGENTS)
    assert (data["metric"], data["hit"]) == ("ndcg@10", "hit@10")


def test_answers_carry_scores_paths_and_errors(report: RunReport) -> None:
    data = json.loads(str(case_json(report, "ndcg@10")))
    paths = data["paths"]
    first = report.cases[0]
    row = next(r for r in data["cases"] if r[1] == first.id)
    answer = row[7][list(AGENTS).index(first.agent)]
    assert [paths[i] for i in row[3]] == first.ground_truth
    assert [paths[i] for i in answer[5]] == first.retrieved[:10]
    assert answer[0] == "ok" and answer[1] == round(first.latency_ms or 0, 3)
    assert answer[2] == round(first.metrics["ndcg@10"], 4)
    assert answer[4] == first.metrics["hit@10"]
    error_row = next(r for r in data["cases"] if r[1] == "case-00005")
    assert error_row[7][0][0] == "error" and error_row[7][0][7].startswith("RuntimeError: <b>")
    timeout_row = next(r for r in data["cases"] if r[1] == "case-00007")
    assert [answer[0] for answer in timeout_row[7]] == ["ok", "ok", "timeout"]


def test_answers_carry_cost_and_tokens_when_an_agent_returned_them(report: RunReport, page: str) -> None:
    page_priced = render_html(priced(report))
    data = case_data(page_priced)
    assert data["cost"] is True
    rows = {row[1]: row[7] for row in data["cases"]}  # type: ignore[attr-defined]
    bm25, keyword = list(AGENTS).index("bm25"), list(AGENTS).index("keyword")
    assert rows["case-00010"][bm25][9:] == [0.0012, 1200, 80]
    assert rows["case-00010"][keyword][9:] == [None, None, None]
    assert rows["case-00008"][bm25][9:] == [None, None, None]
    assert rows["case-00009"][bm25][9:] == [None, 1200, 80]  # a cost that is not a number is none
    assert all(len(answer) == 12 for answers in rows.values() for answer in answers)
    cost = page_priced.split('<section id="cost">')[1].split("</section>")[0]
    rows_shown = re.findall(r'<tr><th scope="row">([^<]*)</th>((?:<td>[^<]*</td>)*)</tr>', cost)
    assert [name for name, _ in rows_shown] == ["bm25"]
    assert re.findall(r"<td>([^<]*)</td>", rows_shown[0][1])[2:5] == ["0.0696", "70,800", "4,720"]  # 58 costs, 59 tokens
    plain = case_data(page)
    assert "cost" not in plain and 'id="cost"' not in page and 'href="#cost"' not in page
    assert all(len(a) == 9 for row in plain["cases"] for a in row[7])  # type: ignore[attr-defined]


def _reference_case_json(report: RunReport, metric: str | None) -> str:
    """Return case_json's text as json.dumps writes the documented structure (what case_json must equal)."""
    agents, hit = list(report.agents), report.success_metric
    assert hit == "hit@10"
    paths: dict[str, int] = {}
    rows: dict[tuple[str, str], list[object]] = {}
    for c in report.cases:
        row = rows.setdefault((c.goldset, c.id), [c.goldset, c.id, c.query,
                              [paths.setdefault(p, len(paths)) for p in c.ground_truth],
                              c.complexity, c.category, c.repo, [None] * len(agents)])  # fmt: skip
        value, f1 = c.metrics.get(metric or ""), c.metrics.get("f1")
        latency = c.latency_ms if c.status.value == "ok" else c.elapsed_ms  # a failed case: what it cost
        answer: list[object] = [
            c.status.value, None if latency is None else round(latency, 3),
            None if value is None else round(value, 4), None if f1 is None else round(f1, 4), c.metrics.get(hit),
            [paths.setdefault(p, len(paths)) for p in c.retrieved[:10]], len(c.retrieved),
            None if c.error is None else c.error[:300], c.failure_category,
        ]  # fmt: skip
        if report.costs:
            numbers = {k: v for k, v in c.metadata.items() if type(v) in (int, float)}
            tokens = [None if numbers.get(k) is None else int(numbers[k]) for k in ("tokens_in", "tokens_out")]
            answer += [None if numbers.get("cost_usd") is None else float(numbers["cost_usd"]), *tokens]
        row[7][agents.index(c.agent)] = answer  # type: ignore[index]
    data: dict[str, object] = {
        "agents": agents, "metric": metric, "hit": hit,
        "statuses": ["ok", "error", "timeout", "crashed", "not_run"], "answered": "ok",
    }  # fmt: skip
    if report.costs:
        data["cost"] = True
    return script_safe_json({**data, "paths": list(paths), "cases": list(rows.values())})


def test_case_json_is_the_documented_structure(report: RunReport) -> None:
    odd = report.cases[0].model_copy(update={"query": "lone \ud800 \\ \"quoted\"", "retrieved": ['a"b\\c.py', "é.py"],
                                             "latency_ms": 12345678.9, "failure_category": "wrong_file"})
    costed = [c.model_copy(update={"elapsed_ms": 5001.25}) if c.status.value == "timeout" else c for c in report.cases]
    assert sum(c.elapsed_ms is not None for c in costed) == 1
    awkward = report.model_copy(update={"cases": [odd, *costed[1:]]})
    for each in (report, awkward, priced(report), report.model_copy(update={"cases": []})):
        for metric in ("ndcg@10", "f1", None):
            assert str(case_json(each, metric)) == _reference_case_json(each, metric)


def test_status_columns_show_only_statuses_that_occur(page: str) -> None:
    header = page.split('<table class="agents">')[1].split("</thead>")[0]
    assert "<th>ok</th><th>error</th><th>timeout</th><th>nondet.</th>" in header
    assert "crashed" not in header
    assert "(176 ok, 3 error, 1 timeout)" in page


def test_script_safe_json_cannot_close_its_element() -> None:
    text = script_safe_json({"q": "</script><!-- & \u2028"})
    assert text == '{"q":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028"}'
    assert json.loads(text) == {"q": "</script><!-- & \u2028"}
    lone = script_safe_json({"q": "\ud800x"})  # a lone surrogate: legal in JSON, not in UTF-8
    assert lone == '{"q":"\\ud800x"}'
    assert json.loads(lone.encode("utf-8")) == {"q": "\ud800x"}


@given(st.text(alphabet=st.sampled_from(list("<>&/!-'\"\\|=\n\u2028scriptSCRIPT ")) | st.characters()))
def test_script_safe_json_round_trips_any_text(text: str) -> None:
    encoded = script_safe_json({"q": text})
    assert "<" not in encoded and ">" not in encoded and "&" not in encoded
    assert json.loads(encoded.encode("utf-8").decode("utf-8")) == {"q": text}


def test_nothing_is_loaded_from_outside(page: str) -> None:
    elements = parse(page)
    csp = [a for t, a in elements.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and (csp[0]["content"] or "").startswith("default-src 'none'")
    links = [a.get("href") or "" for t, a in elements.tags if t == "a"]
    assert links and all(h.startswith("#") for h in links)
    assert not [a for _, attrs in elements.tags for k, a in attrs.items() if k == "src"]


def agents_table(page: str) -> dict[str, dict[str, str]]:
    """Return column header -> agent -> the class of its cell in the page's agents table."""
    table = page.split('<table class="agents">')[1].split("</table>")[0]
    headers = re.findall(r"<th>([^<]*)</th>", table.split("</thead>")[0])[1:]
    found: dict[str, dict[str, str]] = {h: {} for h in headers}
    for row in re.findall(r'<tr><th scope="row">.*?</tr>', table, flags=re.S):
        agent = re.findall(r"</span>([^<]*)</th>", row)[0]
        for header, cell in zip(headers, re.findall(r'<td class="([^"]*)">', row)):
            found[header][agent] = cell
    return found


def marked(column: dict[str, str], mark: str) -> set[str]:
    """Return the agents whose cell carries ``mark`` ('best' or 'lead')."""
    return {agent for agent, cls in column.items() if mark in cls.split()}


def test_agents_table_marks_the_reports_leaders(page: str, report: RunReport) -> None:
    table = agents_table(page)
    assert list(table)[: len(report.headline)] == report.headline  # the same columns as summary.md
    for metric in report.headline:
        leader = report.leaders[metric]
        assert marked(table[metric], "best") == set(leader.agents)
        assert marked(table[metric], "lead") == ({leader.agents[0]} if leader.significant else set())
    for header, key in (("p50 ms", "latency_ms.p50"), ("p90 ms", "latency_ms.p90")):
        assert marked(table[header], "best") == set(report.leaders[key].agents)


def _tied_report() -> RunReport:
    """Thirty cases of three agents: good and twin tie on f1 at three decimals, good leads mrr
    significantly, twin is best (lowest) on hard_negative_rate, fast is fastest."""
    scores = {"good": (0.8001, 1.0, 1.0, 30.0), "twin": (0.8004, 0.5, 0.0, 20.0), "fast": (0.2, 0.25, 0.5, 1.5)}
    cases = [
        CaseResult(id=f"c{i:02d}", goldset="g", agent=agent, query="q", nodeid=f"g::c{i:02d}[{agent}]",
                   ground_truth=["a.py"], relevance={"a.py": 1}, retrieved=["a.py"], status="ok",
                   latency_ms=ms + i / 10, latencies_ms=[ms + i / 10], index_ms=None,
                   metrics={"f1": f1, "mrr": mrr, "hard_negative_rate": hard})
        for i in range(30)
        for agent, (f1, mrr, hard, ms) in scores.items()
    ]  # fmt: skip
    run = RunInfo(seed=1, runs=1, k=None, ks=[], started_at="s", finished_at="f", versions={}, goldsets=["g"],
                  workers=1, bootstrap=200, agents={a: AgentInfo(fixture=a, source="t") for a in scores})  # fmt: skip
    return build_run_report(run, cases, ["f1", "mrr", "hard_negative_rate"], headline=["f1", "mrr", "hard_negative_rate"])


def test_ties_and_significance_are_marked_as_in_summary_md_and_the_terminal() -> None:
    report = _tied_report()
    table = agents_table(render_html(report))
    results = render_markdown(report).split("## Results")[1].split("\n## ")[0]
    markdown = {line.split(" | ")[0][2:]: line.split(" | ")[1:] for line in results.splitlines()
                if line.startswith(("| good |", "| twin |", "| fast |"))}  # fmt: skip
    terminal = {line.split()[0]: line.split()[1:] for line in render_terminal(report, width=200)[1:4]}
    columns = ["f1", "mrr", "hard_negative_rate", "p50 ms", "p90 ms"]
    html_best = {c: marked(table[c], "best") for c in columns}
    html_lead = {c: marked(table[c], "lead") for c in columns}
    assert html_best == {"f1": {"good", "twin"}, "mrr": {"good"}, "hard_negative_rate": {"twin"},
                         "p50 ms": {"fast"}, "p90 ms": {"fast"}}  # fmt: skip
    assert html_lead == {"f1": set(), "mrr": {"good"}, "hard_negative_rate": {"twin"}, "p50 ms": set(), "p90 ms": set()}
    for i, column in enumerate(columns):
        assert {a for a, cells in markdown.items() if cells[i].startswith("**")} == html_best[column]
        assert {a for a, cells in markdown.items() if cells[i].endswith("†**")} == html_lead[column]
        assert {a for a, cells in terminal.items() if cells[i].endswith("*")} == html_best[column]
        assert {a for a, cells in terminal.items() if cells[i].endswith("**")} == html_lead[column]


def test_charts_are_drawn(page: str) -> None:
    charts = re.findall(r'<svg class="chart (\w+)"', page)
    assert charts == ["distribution", "histogram", "scatter", "bars", "bars", "bars"]  # no per-case f1: it told answer length
    assert page.count('class="ring"') == 1


def test_breakdowns_and_failures_are_tabled(page: str, report: RunReport) -> None:
    for title in ("complexity", "category", "repository"):
        assert f"<h3>By {title}</h3>" in page
    assert "<h3>By gold set</h3>" not in page  # one gold set: one group
    missed = sum(report.agents["bm25"].failures.values())
    assert re.search(rf'<th scope="row">bm25</th><td>{missed}</td><td>{missed}</td>', page)


def test_recommendations_are_stated(page: str) -> None:
    kinds = re.findall(r'<li class="pick (significant|noise)" data-kind="(\w+)">', page)
    assert [k for _, k in kinds] == ["quality", "speed", "balance"]


def test_hostile_agent_names_and_warnings_are_escaped(report: RunReport) -> None:
    name = '<img src=x onerror="alert(1)">'
    renamed = report.model_copy(
        update={"agents": {name: report.agents["bm25"]}, "warnings": ["<script>x()</script>"]}
    )
    page = render_html(renamed)
    assert "<img src=x" not in page and "<script>x()" not in page
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page


def test_an_empty_run_renders(tmp_path: Path) -> None:
    run = RunInfo(seed=1, runs=1, k=None, ks=[10], started_at="a", finished_at="b", versions={},
                  goldsets=[], agents={}, workers=1)  # fmt: skip
    target = tmp_path / "report.html"
    write_reports(build_run_report(run, [], ["f1"]), tmp_path, ["html"])
    page = target.read_text(encoding="utf-8")
    assert "No missed case." in page and '"cases":[]' in page
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("enabled", [True, False])
def test_rendering_restores_the_garbage_collector(report: RunReport, enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        render_html(report)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_run_section_lists_settings_agents_and_versions(report: RunReport) -> None:
    agents = dict(report.run.agents)
    agents["bm25"] = agents["bm25"].model_copy(update={"param": "<script>p()</script>"})
    page = render_html(report.model_copy(update={"run": report.run.model_copy(update={"agents": agents})}))
    run = page.split('<section id="run">')[1].split("</section>")[0]
    assert "<tr><th>seed</th><td>1</td></tr>" in run
    assert "<tr><th>pytest-codesearch</th><td>0.1.0</td></tr>" in run
    assert "<tr><td>bm25</td><td>bm25</td><td>conftest.py</td><td>&lt;script&gt;p()&lt;/script&gt;</td></tr>" in run


def test_render_html_fits_the_report_format_registry(report: RunReport, page: str) -> None:
    entry = ReportFormat("html", "report.html", "pytest_codesearch.report.render.html:render_html", "the page")
    assert entry.render(report) == page


def test_a_real_run_of_three_agents_renders(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=oracle,bm25,random", "--codesearch-seed=5")
    result.assert_outcomes(passed=9)
    text = (pytester.path / "codesearch-report" / "results.json").read_text(encoding="utf-8")
    page = render_html(RunReport.model_validate_json(text))
    charts = re.findall(r'<svg class="chart (\w+)"', page)
    assert charts == ["distribution", "histogram", "scatter", "bars", "bars"]
    data = case_data(page)
    assert data["agents"] == ["oracle", "bm25", "random"]
    assert sorted(row[1] for row in data["cases"]) == ["app", "login", "password"]  # type: ignore[attr-defined]
    assert '<li class="pick significant" data-kind="quality">' not in page  # three cases prove nothing


def test_the_page_speaks_of_what_a_reader_must_know() -> None:
    """Failed cases are named before the figures; a one-case group has no interval; a single agent gets
    no 'needs two agents' pick; power warnings name the headline metric; paths break after a '/'."""
    from pytest_codesearch.report.aggregate import build_run_report
    from pytest_codesearch.scoring import metric_names
    from report_cases import KS

    report = make_report(40)
    page = render_html(report)
    counts = {s: report.status_counts[s] for s in report.shown_statuses() if s != "ok"}
    assert counts and all(n > 0 for n in counts.values())
    listed = ", ".join(f"{n:,} {s}" for s, n in counts.items())
    assert f"<li>{listed}: each such case scores 0 on every metric and counts in latency" in page
    assert all(" in ndcg@10 " in w for w in report.warnings)  # the headline, not the noisiest metric
    one = [c for c in report.cases if c.agent == "bm25"][:1]
    single = build_run_report(report.run.model_copy(update={"agents": {"bm25": report.run.agents["bm25"]}}),
                              one, metric_names(KS))  # fmt: skip
    alone = render_html(single)
    assert "(1 case)" in alone and "needs two agents" not in alone and "Best balance" not in alone
    assert 'createElement("wbr")' in page


def test_the_comparison_section_marks_better_and_worse_by_each_metric_direction() -> None:
    from pytest_codesearch.report.render.html_compare import comparison_views
    from pytest_codesearch.runs.compare import MetricDelta, RunComparison

    deltas = [
        MetricDelta("bm25", "ndcg@10", 0.5, 0.6, 40, 0.1, (0.02, 0.18), 0.01, 0.02, True),
        MetricDelta("bm25", "latency_p50", 2.0, 3.5, 40, 1.5, (1.0, 2.0), 0.001, 0.002, True),
        MetricDelta("bm25", "mrr", 0.7, 0.7, 40, 0.0, (0.0, 0.0), 1.0, 1.0, False),
    ]
    comparison = RunComparison("baseline latest", "this run", deltas, [], None, goldsets=["a.jsonl"], family=3)
    (view,) = comparison_views([comparison])
    assert [(r.metric, r.diff, r.trend, r.paired, r.p_holm) for r in view.rows] == [
        ("ndcg@10", "+0.100", "better", "+0.100 [+0.020, +0.180]", "0.02 *"),
        ("latency_p50", "+1.500", "worse", "+1.500 [+1.000, +2.000]", "0.002 *"),
        ("mrr", "+0.000", "", "+0.000 [+0.000, +0.000]", "1"),
    ]
    page = render_html(make_report(4), comparisons=[comparison])
    assert '<td class="better">+0.100</td>' in page and '<td class="worse">+1.500</td>' in page



def test_compiled_templates_kept_between_runs_give_the_same_page_and_a_broken_one_is_compiled_again(
    tmp_path: Path, report: RunReport, page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_module, "_compiled_templates", lambda: html_module._CompiledTemplates(str(tmp_path)))
    try:
        html_module._environment.cache_clear()  # each clear: a new run, nothing compiled in memory
        assert render_html(report) == page
        kept = list(tmp_path.iterdir())
        assert len(kept) == 1  # the page's template, compiled once
        html_module._environment.cache_clear()
        assert render_html(report) == page
        kept[0].write_bytes(kept[0].read_bytes()[:40])  # cut short, as a crash while writing it could leave it
        html_module._environment.cache_clear()
        assert render_html(report) == page
    finally:
        html_module._environment.cache_clear()
