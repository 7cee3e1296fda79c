"""Every door ends a run the same way: a live run, a merge and a resume share one end and one run identity."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from example_project import read_results, write_project
from pytest_codesearch.nodeids import CaseNodeId, base_nodeid, case_nodeid, is_case_nodeid, parse_nodeid
from pytest_codesearch.report.model import RunInfo
from pytest_codesearch.runs.finish import NO_TESTS_COLLECTED, OK, TESTS_FAILED, exit_status
from pytest_codesearch.runs.identity import first_difference, identity
from pytest_codesearch.runs.journal import JournalHeader, RunRecords
from pytest_codesearch.settings.options import IDENTITY
from pytest_codesearch.settings.types import recorded

CASES = [{"id": f"c{i:02d}", "query": f"q{i}", "ground_truth_files": ["src/app.py"]} for i in range(12)]

# Answers every query right but one in three; with the file "stop-after" holding N, the N+1-th query it
# is asked raises, so ``--maxfail=1`` interrupts the run there. Every query answered goes to answered.log.
COUNTING = """
from pathlib import Path
import pytest_codesearch as pcs

def search(query):
    stop = Path("stop-after")
    answered = Path("answered.log").read_text().split() if Path("answered.log").exists() else []
    if stop.exists() and len(answered) >= int(stop.read_text()):
        stop.unlink()
        raise RuntimeError("interrupted on purpose")
    with open("answered.log", "a") as log:
        log.write(query + "\\n")
    return ["src/routes.py"] if int(query[1:]) % 3 == 0 else ["src/app.py"]

@pcs.agent(name="counting")
def counting():
    return search
"""


def _ids(root: Path, report_dir: str = "codesearch-report") -> list[str]:
    return sorted(c["id"] for c in read_results(root, report_dir)["cases"])


# --- node ids -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nodeid", "agents", "expected"),
    [
        ("goldsets/a.jsonl::c1[bm25]", (), CaseNodeId("goldsets/a.jsonl", "c1", "bm25")),
        ("goldsets/a.jsonl::c1[bm25]@repo-abc123-0f0f0f0f", (), CaseNodeId("goldsets/a.jsonl", "c1", "bm25")),
        ("a.jsonl::c1[grid[k1=1.2, b=0.75]]", (), CaseNodeId("a.jsonl", "c1", "grid[k1=1.2, b=0.75]")),
        ("a.jsonl::x[y][bm25]", (), CaseNodeId("a.jsonl", "x[y]", "bm25")),
        ("a.jsonl::x[bm25][bm25]", ("bm25",), CaseNodeId("a.jsonl", "x[bm25]", "bm25")),
        ("a.jsonl::line-4", (), None),
        ("a.jsonl::goldset-file", (), None),
        ("tests/test_x.py::test_y", (), None),
        ("a.jsonl::[bm25]", (), None),
    ],
)
def test_node_ids_are_parsed_by_one_grammar(nodeid: str, agents: tuple[str, ...], expected: CaseNodeId | None) -> None:
    assert parse_nodeid(nodeid, agents) == expected
    assert is_case_nodeid(nodeid) == (expected is not None)
    if expected is not None:
        assert case_nodeid(expected.goldset, expected.case_id, expected.agent) == base_nodeid(nodeid)


def test_base_nodeid_drops_only_the_loadgroup_suffix() -> None:
    assert base_nodeid("a.jsonl::c[x]@flask-1a2b-00ff00ff") == "a.jsonl::c[x]"
    assert base_nodeid("a.jsonl::c@home[x]") == "a.jsonl::c@home[x]"
    assert base_nodeid("a.jsonl::c[x]") == "a.jsonl::c[x]"


# --- run identity ---------------------------------------------------------------------------------


def _run(**fields: object) -> RunInfo:
    base: dict[str, object] = dict(seed=1, runs=3, k=None, ks=[1, 5, 10], started_at="a", finished_at="b",
                                   versions={"pytest-codesearch": "1.0"}, goldsets=[], agents={}, workers=1)
    return RunInfo.model_validate({**base, **fields})


def test_run_info_records_every_option_that_changes_results_with_the_tables_default() -> None:
    for option in IDENTITY:
        if option.field == "agents":
            continue  # recorded as the resolved agents, with their parameters
        field = RunInfo.model_fields.get(option.field)
        assert field is not None, option.field
        if not field.is_required():  # a default is what a record written before the field existed used
            assert field.default == recorded(option.type, option.default), option.field


def test_identity_names_each_option_as_users_type_it() -> None:
    shown = identity(_run(shard="2/3", timeout=2.5, keyword="bm25 and not slow"))
    assert shown["--codesearch-shard"] == "2/3"
    assert shown["--codesearch-ks"] == "1,5,10"
    assert shown["--codesearch-timeout"] == "2.5"
    assert shown["-k"] == "bm25 and not slow" and shown["-m"] == "none"
    assert shown["evaluation.randomize"] == "true"
    assert first_difference(_run(), _run(ks=[1, 3])) == ("--codesearch-ks", "1,5,10", "1,3")
    assert first_difference(_run(shard="1/2"), _run(shard="2/2"), ignore=("--codesearch-shard",)) is None
    assert first_difference(_run(), _run(versions={"pytest-codesearch": "2.0"})) == (
        "pytest-codesearch version", "1.0", "2.0"
    )


@pytest.mark.parametrize(
    ("session", "statuses", "sharded", "failed", "expected"),
    [
        (OK, ["ok"], False, False, OK),
        (OK, ["ok"], False, True, TESTS_FAILED),  # a gate failed
        (NO_TESTS_COLLECTED, ["ok", "error"], False, False, TESTS_FAILED),  # resumed records count
        (NO_TESTS_COLLECTED, ["ok"], False, False, OK),
        (NO_TESTS_COLLECTED, [], True, False, OK),  # an empty shard passes
        (NO_TESTS_COLLECTED, [], False, False, NO_TESTS_COLLECTED),
        (2, ["ok"], False, True, 2),  # an interrupted session stays interrupted
        (TESTS_FAILED, ["ok"], False, False, TESTS_FAILED),  # another test of the session failed
    ],
)
def test_exit_status_counts_every_record(
    session: int, statuses: list[str], sharded: bool, failed: bool, expected: int
) -> None:
    from pytest_codesearch.report.model import CaseResult

    records = RunRecords(JournalHeader(run=_run(), metric_names=[]))
    for i, status in enumerate(statuses):
        records.cases[f"a::c{i}[x]"] = CaseResult(
            id=f"c{i}", goldset="a", agent="x", query="q", nodeid=f"a::c{i}[x]", ground_truth=[], relevance={},
            retrieved=[], status=status, latency_ms=None, latencies_ms=[], index_ms=None, metrics={},
        )  # fmt: skip
    assert exit_status(session, records, sharded=sharded, failed=failed) == expected


# --- the doors, as users run them -----------------------------------------------------------------


def test_resume_with_a_changed_result_option_is_refused_in_one_line(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path, CASES)
    make_conftest(COUNTING)
    (pytester.path / "stop-after").write_text("4")
    common = ["--codesearch-agent=counting", "--codesearch-runs=1", "-p", "no:cacheprovider"]
    pytester.runpytest(*common, "--codesearch-ks=1,5,10", "--maxfail=1")
    result = pytester.runpytest(*common, "--codesearch-ks=1,3", "--codesearch-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: --codesearch-resume: the interrupted run used --codesearch-ks 1,5,10, this one 1,3; resume with the "
        "same options, or run without --codesearch-resume"
    ])  # fmt: skip
    assert [line for line in result.stderr.lines if line.strip()] == [result.stderr.lines[0]]
    assert "Traceback" not in result.stdout.str()


def test_resume_of_an_interrupted_limited_run_finishes_exactly_its_cases(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path, CASES)
    make_conftest(COUNTING)
    common = ["--codesearch-agent=counting", "--codesearch-runs=1", "--codesearch-seed=3", "-p", "no:cacheprovider"]
    pytester.runpytest(*common, "--codesearch-limit=5").assert_outcomes(passed=5)
    expected = _ids(pytester.path)
    (pytester.path / "answered.log").unlink()

    (pytester.path / "stop-after").write_text("2")
    first = pytester.runpytest(*common, "--codesearch-limit=5", "--maxfail=1")
    first.assert_outcomes(passed=2, failed=1)
    assert read_results(pytester.path)["incomplete"] is True
    resumed = pytester.runpytest(*[a for a in common if "seed" not in a], "--codesearch-limit=5", "--codesearch-resume")
    resumed.assert_outcomes(passed=2)  # the two cases the interrupted run never reached, nothing more
    final = read_results(pytester.path)
    assert _ids(pytester.path) == expected and final["not_run"] == [] and final["incomplete"] is False
    assert len((pytester.path / "answered.log").read_text().split()) == 4
    assert final["run"]["limit"] == 5 and final["run"]["seed"] == 3


@pytest.mark.parametrize("sample", ["first", "stratified"])
def test_a_limit_applies_to_the_whole_benchmark_before_sharding(pytester: pytest.Pytester, sample: str) -> None:
    write_project(pytester.path, [{**c, "complexity": "low" if i % 2 else "high"} for i, c in enumerate(CASES)])
    common = ["--codesearch-agent=oracle", "--codesearch-runs=1", "--codesearch-seed=7", "--codesearch-limit=6",
              f"--codesearch-sample={sample}", "-p", "no:cacheprovider"]  # fmt: skip
    pytester.runpytest(*common).assert_outcomes(passed=6)
    single = _ids(pytester.path)
    for index in (1, 2):
        pytester.runpytest(*common, f"--codesearch-shard={index}/2", f"--codesearch-report-dir=s{index}")
    shards = [_ids(pytester.path, f"s{i}") for i in (1, 2)]
    assert sorted(shards[0] + shards[1]) == single and len(single) == 6
    merged = pytester.runpytest("--codesearch-merge", "s1", "s2", "--codesearch-report-dir=merged")
    assert merged.ret == pytest.ExitCode.OK
    report = read_results(pytester.path, "merged")
    assert sorted(c["id"] for c in report["cases"]) == single
    assert report["run"]["shard"] is None and report["run"]["limit"] == 6


def test_merge_ends_like_a_single_run_gates_trec_history(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path, CASES)
    make_conftest(COUNTING)
    common = ["--codesearch-agent=counting", "--codesearch-runs=1", "--codesearch-seed=2", "-p", "no:cacheprovider"]
    gate = ["--codesearch-fail-under", "ndcg@10=0.99", "--codesearch-trec"]
    single = pytester.runpytest(*common, *gate, "trec-single", "--codesearch-report-dir=single")
    assert single.ret == pytest.ExitCode.TESTS_FAILED
    for index in (1, 2):
        pytester.runpytest(*common, f"--codesearch-shard={index}/2", f"--codesearch-report-dir=s{index}",
                           "--codesearch-no-save")  # fmt: skip
    history = pytester.path / ".codesearch" / "history"
    saved_before = len(list(history.iterdir()))
    merged = pytester.runpytest("--codesearch-merge", "s1", "s2", "--codesearch-report-dir=merged", *gate, "trec")
    assert merged.ret == pytest.ExitCode.TESTS_FAILED
    merged.stdout.fnmatch_lines([
        "codesearch: merged 2 journal(s): 12 case record(s), 0 not run; report in *merged",
        "codesearch: TREC qrels and run files in *trec",
        "codesearch: run saved as * in *history",
        "gate failed: agent counting: ndcg@10 = 0.6667 < floor 0.99",
    ])  # fmt: skip
    assert sorted(p.name for p in (pytester.path / "trec").iterdir()) == ["qrels", "run.counting"]
    assert (pytester.path / "trec" / "qrels").read_text() == (pytester.path / "trec-single" / "qrels").read_text()
    assert len(list(history.iterdir())) == saved_before + 1
    ours, theirs = read_results(pytester.path, "merged"), read_results(pytester.path, "single")
    assert ours["agents"]["counting"]["metrics"] == theirs["agents"]["counting"]["metrics"]
    assert json.loads((pytester.path / "merged" / "journal.jsonl").read_text().splitlines()[0])["header"]


def test_a_typo_in_a_gate_stops_the_run_before_any_case(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-fail-under", "ndcgg@10=0.4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: --codesearch-fail-under: 'ndcgg@10' is not a metric of this run (did you mean 'ndcg@10'?)"
    ])
    assert not (pytester.path / "codesearch-report").exists()


def test_a_limited_rerun_replaces_the_report_rather_than_going_to_partial(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, CASES)
    common = ["--codesearch-agent=oracle", "--codesearch-runs=1", "-p", "no:cacheprovider"]
    pytester.runpytest(*common, "--codesearch-limit=4").assert_outcomes(passed=4)
    second = pytester.runpytest(*common, "--codesearch-limit=4", "--codesearch-seed=9")
    second.assert_outcomes(passed=4)
    assert "partial run" not in second.stdout.str()
    assert read_results(pytester.path)["run"]["seed"] == 9
    partial = pytester.runpytest(*common, "-k", "c01 or c02")
    partial.stdout.fnmatch_lines(["codesearch: partial run (2 of the gold sets' cases): report in *partial*"])
