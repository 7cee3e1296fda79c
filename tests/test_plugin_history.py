"""Saved runs, partial reruns, comparisons, gates, TREC files and CI outputs, run as users run them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from example_project import read_results
from pytest_codesearch import __version__
from pytest_codesearch.runs.history import list_runs
from test_report_trec import check_against_trec_eval

HISTORY = Path(".codesearch") / "history"


def test_every_run_is_saved_and_listed(pytester: pytest.Pytester, project: Path) -> None:
    pytester.runpytest("--codesearch-agent=oracle").assert_outcomes(passed=3)
    result = pytester.runpytest("--codesearch-agent=oracle,bm25").assert_outcomes(passed=6)
    runs = list_runs(pytester.path / HISTORY)
    assert [(r.agents, r.cases, r.complete, r.partial) for r in runs] == [
        (["oracle"], 3, True, False), (["oracle", "bm25"], 6, True, False)
    ]  # fmt: skip
    assert runs[0].goldsets == {"cases.jsonl": json.loads(_journal_goldsets(pytester.path))["cases.jsonl"]}
    assert runs[0].commit is None  # the pytester directory is not a git repository
    saved = pytester.path / HISTORY / runs[1].id
    assert (saved / "results.json").read_bytes() == (pytester.path / "codesearch-report" / "results.json").read_bytes()
    listing = pytester.runpytest("--codesearch-history")
    assert listing.ret == 0
    listing.stdout.fnmatch_lines(["saved runs in *history*", f"{runs[0].id} * 3 - * complete * oracle",
                                  f"{runs[1].id} * 6 - * complete * oracle, bm25"])  # fmt: skip
    assert "passed" not in listing.stdout.str()
    pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save").assert_outcomes(passed=3)
    assert len(list_runs(pytester.path / HISTORY)) == 2
    del result


def _journal_goldsets(root: Path) -> str:
    for line in (root / "codesearch-report" / "journal.jsonl").read_text().splitlines():
        if line.startswith('{"goldsets"'):
            return json.dumps(json.loads(line)["goldsets"])
    raise AssertionError("no goldsets line")


def test_a_partial_rerun_keeps_the_full_report(pytester: pytest.Pytester, project: Path) -> None:
    pytester.runpytest("--codesearch-agent=oracle").assert_outcomes(passed=3)
    full = read_results(pytester.path)
    full_journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text()
    result = pytester.runpytest("--codesearch-agent=oracle", "-k", "login")
    result.assert_outcomes(passed=1, deselected=2)
    assert read_results(pytester.path) == full
    partial = read_results(pytester.path, "codesearch-report/partial")
    assert [c["id"] for c in partial["cases"]] == ["login"]
    # the journal goes with its report: the full run's stays, so --codesearch-resume still finds it
    assert (pytester.path / "codesearch-report" / "journal.jsonl").read_text() == full_journal
    assert (pytester.path / "codesearch-report" / "partial" / "journal.jsonl").is_file()
    result.stdout.fnmatch_lines(["*partial run (1 of the gold sets' cases): report in *partial; "
                                 "the last full report in *codesearch-report is kept"])  # fmt: skip
    node = pytester.runpytest("--codesearch-agent=oracle", "cases.jsonl::app[oracle]")
    node.assert_outcomes(passed=1)
    assert read_results(pytester.path) == full
    assert [c["id"] for c in read_results(pytester.path, "codesearch-report/partial")["cases"]] == ["app"]
    assert [r.partial for r in list_runs(pytester.path / HISTORY)] == [False, True, True]


def test_compare_two_saved_runs_runs_no_case(pytester: pytest.Pytester, project: Path) -> None:
    pytester.runpytest("--codesearch-agent=oracle,bm25").assert_outcomes(passed=6)
    pytester.runpytest("--codesearch-agent=oracle,keyword").assert_outcomes(passed=6)
    result = pytester.runpytest("--codesearch-compare", "previous", "latest")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "# Comparison: previous → latest",
        "Gold sets compared: cases.jsonl.",
        "| oracle | mrr | 1.000 | 1.000 | +0.000 | +0.000 [+0.000, +0.000] | 3 | 1 | 1 |",
        "Agents only in previous: bm25", "Agents only in latest: keyword",
        "comparison written to *comparison.md, *comparison.html",
    ])  # fmt: skip
    assert "passed" not in result.stdout.str()
    written = (pytester.path / "codesearch-report" / "comparison.md").read_text()
    assert written.startswith("# Comparison: previous → latest")
    page = (pytester.path / "codesearch-report" / "comparison.html").read_text()
    assert "<h2>Compared with previous</h2>" in page and "<td>oracle</td><td>mrr</td><td>1.000</td><td>1.000</td>" in page
    missing = pytester.runpytest("--codesearch-compare", "latest", "nope")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*nope: no such file, run directory or saved run in *history*"])


def test_a_run_with_a_baseline_shows_the_comparison_in_its_report(pytester: pytest.Pytester, project: Path) -> None:
    pytester.runpytest("--codesearch-agent=oracle,random", "--codesearch-seed=1").assert_outcomes(passed=6)
    result = pytester.runpytest("--codesearch-agent=oracle,path", "--codesearch-seed=1", "--codesearch-baseline=latest")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["codesearch: oracle ndcg@10 1.000 -> 1.000 (+0.000, p (Holm) 1) against the baseline latest"])
    report = pytester.path / "codesearch-report"
    page = (report / "report.html").read_text()
    assert '<a href="#baseline">Baseline</a>' in page and '<section id="baseline" class="baseline">' in page
    assert "<h2>Compared with baseline latest</h2>" in page and "Agents only in baseline latest: random." in page
    assert (report / "comparison.md").read_text().startswith("# Comparison: baseline latest → this run")
    assert "<h2>Compared with baseline latest</h2>" in (report / "comparison.html").read_text()
    (pytester.path / "other.jsonl").write_text((pytester.path / "cases.jsonl").read_text())
    (pytester.path / "cases.jsonl").rename(pytester.path / "moved.jsonl.off")
    apart = pytester.runpytest("--codesearch-agent=oracle", "other.jsonl", "--codesearch-baseline=latest")
    apart.assert_outcomes(passed=3)
    apart.stdout.fnmatch_lines(["codesearch: not compared with the baseline latest: baseline latest and this run share no gold set*"])
    assert '<section id="baseline"' not in (report / "report.html").read_text()
    assert not (report / "comparison.md").exists()


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_gates_pass_and_fail_with_the_documented_exit_status(
    pytester: pytest.Pytester, project: Path, dist: str
) -> None:
    run = ["--codesearch-agent=oracle,random", "--codesearch-seed=1", "-p", "xdist", dist]
    passing = pytester.runpytest_subprocess(*run, "--codesearch-fail-under=mrr=0.0")
    passing.assert_outcomes(passed=6)
    assert passing.ret == pytest.ExitCode.OK
    failing = pytester.runpytest_subprocess(
        *run, "--codesearch-fail-under=mrr=0.99,hit@1=0.5",
        "--codesearch-baseline=latest", "--codesearch-fail-on=mrr:-0.01", "--codesearch-gate-any",
    )  # fmt: skip
    failing.assert_outcomes(passed=6)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["gate failed: agent random: mrr = * < floor 0.99"])
    # random's hit@1 (2 of 3) clears its floor; the same seed gives it the same answers as in the
    # baseline, so no regression; oracle passes every gate
    assert failing.stdout.str().count("gate failed") == 1


SWITCHING_CONFTEST = """
import os
import pytest_codesearch as pcs

@pcs.agent(name="switching")
def switching():
    def search(query):
        if os.environ.get("ANSWER_BADLY") and "login" in query:
            return ["README.md"]
        return {"login view": ["src/auth/login.py"], "check password hashing": ["src/auth/password.py"]}.get(
            query, ["src/app.py"]
        )
    return search
"""


def test_a_regression_against_the_baseline_fails(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(SWITCHING_CONFTEST)
    pytester.runpytest("--codesearch-agent=switching").assert_outcomes(passed=3)
    baseline = list_runs(pytester.path / HISTORY)[0].id
    monkeypatch.setenv("ANSWER_BADLY", "1")  # the agent now misses the login case
    args = ["--codesearch-agent=switching", f"--codesearch-baseline={baseline}", "--codesearch-fail-on=mrr:-0.01"]
    significant = pytester.runpytest(*args)  # three cases cannot make a significant difference
    significant.assert_outcomes(passed=3)
    assert significant.ret == pytest.ExitCode.OK
    anyway = pytester.runpytest(*args, "--codesearch-gate-any")
    assert anyway.ret == pytest.ExitCode.TESTS_FAILED
    anyway.stdout.fnmatch_lines(
        [f"gate failed: agent switching: mrr = 0.6667, baseline {baseline} 1.0000 (allowed -0.01: 0.9900, p = 1, Holm over the 1 gated tests)"]
    )


def test_bad_gates_are_usage_errors(pytester: pytest.Pytester, project: Path) -> None:
    bad = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-fail-under=mrr")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--codesearch-fail-under: 'mrr': expected METRIC=MINIMUM*"])
    alone = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-fail-on=mrr:-0.1")
    alone.stderr.fnmatch_lines(["*--codesearch-fail-on: needs --codesearch-baseline RUN*"])
    none = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-baseline=latest")
    none.stderr.fnmatch_lines(["*latest: * holds 0 saved run(s)*"])


def test_a_run_writes_trec_files_trec_eval_agrees_with(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=bm25,keyword", "--codesearch-trec=trec")
    result.assert_outcomes(passed=6)
    trec = pytester.path / "trec"
    assert sorted(p.name for p in trec.iterdir()) == ["qrels", "run.bm25", "run.keyword"]
    assert "cases.jsonl::password 0 src/auth/password.py 2\n" in (trec / "qrels").read_text()
    result.stdout.fnmatch_lines(["*TREC qrels and run files in *trec"])
    from pytest_codesearch.runs.finish import report_from_journal

    report = report_from_journal(pytester.path / "codesearch-report" / "journal.jsonl")
    assert check_against_trec_eval(report) == sum(bool(c.retrieved) for c in report.cases) > 0


def test_the_summary_is_appended_to_the_github_step_summary(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = pytester.path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    pytester.runpytest("--codesearch-agent=oracle").assert_outcomes(passed=3)
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text()
    assert step.read_text() == "earlier step\n" + summary + "\n"


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_junit_testsuite_properties_name_seed_agents_version(
    pytester: pytest.Pytester, project: Path, dist: str
) -> None:
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=oracle,bm25", "--codesearch-seed=5", "--junitxml=out.xml", "-p", "xdist", dist
    )
    result.assert_outcomes(passed=6)
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iterfind("properties/property")}
    assert properties == {"codesearch_seed": "5", "codesearch_agents": "oracle,bm25", "codesearch_version": __version__}


def test_compare_is_scoped_to_shared_gold_sets_and_lists_rank_changes(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two gold sets then one: the comparison covers the shared one and names the other; runs sharing
    no gold set are refused in one line; ``latest:PATTERN`` picks by gold set; history lists the sets."""
    pytester.makeconftest(SWITCHING_CONFTEST)
    (pytester.path / "other.jsonl").write_text(json.dumps(
        {"id": "o1", "query": "create the app", "ground_truth_files": ["src/app.py"], "repo": "repo"}) + "\n")
    # the interval below is the bootstrap's of one seed: 53 of 2,000 seeds draw another
    seed = "--codesearch-seed=1"
    pytester.runpytest("--codesearch-agent=switching", seed, "cases.jsonl", "other.jsonl").assert_outcomes(passed=4)
    monkeypatch.setenv("ANSWER_BADLY", "1")
    pytester.runpytest("--codesearch-agent=switching", seed, "cases.jsonl").assert_outcomes(passed=3)
    pytester.runpytest("--codesearch-agent=switching", seed, "other.jsonl").assert_outcomes(passed=1)
    result = pytester.runpytest("--codesearch-compare", "previous:cases", "latest:cases")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "# Comparison: previous:cases → latest:cases",
        "Gold sets compared: cases.jsonl. Left out, only in previous:cases: other.jsonl.",
        "| switching | mrr | 1.000 | 0.667 | -0.333 | -0.333 [[]-1.000, +0.000[]] | 3 | 1 | 1 |",
        "*Holm's correction is over the 10 tests of this table*",
        "Rank of the first relevant file: 0 case(s) moved up, 1 moved down*",
        "### Biggest losses",
        "| switching | cases.jsonl | login | 1 | – | login view |",
    ])  # fmt: skip
    refused = pytester.runpytest("--codesearch-compare", "previous", "latest")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["ERROR: --codesearch-compare: previous and latest share no gold set "
                                  "(previous: cases.jsonl; latest: other.jsonl): nothing to compare"])  # fmt: skip
    assert "| switching" not in refused.stdout.str()
    listing = pytester.runpytest("--codesearch-history")
    listing.stdout.fnmatch_lines(["* gold sets: cases.jsonl, other.jsonl; report: *codesearch-report",
                                  "* gold sets: cases.jsonl; report: *codesearch-report",
                                  "* gold sets: other.jsonl; report: *codesearch-report"])  # fmt: skip
