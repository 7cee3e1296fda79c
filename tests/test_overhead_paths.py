"""The shortcuts that keep the harness's per-case cost down give exactly what the long way gives."""

from __future__ import annotations

import gc
import math
from pathlib import Path

import numpy as np
import pytest

from pytest_codesearch.gcpause import RARE_FULL_COLLECTIONS, rare_full_collections
from pytest_codesearch.session.junit import _metric_property, junit_properties as _properties
from example_project import read_results, write_project
from pytest_codesearch.runs.journal import JournalHeader, RunRecords, read_goldset_counts, write_goldset_counts
from pytest_codesearch.report.model import CaseResult, RunInfo
from pytest_codesearch.session.run_end import goldset_cases, is_partial_run
from pytest_codesearch.scoring import SourceFiles, classify_miss, score_case
from pytest_codesearch.scoring.ranking import Hits, hit_grades, ideal_grades
from pytest_codesearch.status import Status


@pytest.mark.parametrize("value", [0.0, -0.0, 1.0, 0.5, 1 / 3, 0.1234565, 2.5e-7, math.inf, math.nan])
def test_metric_property_is_the_rounded_pair(value: float) -> None:
    name, rounded = _metric_property("ndcg@10", value)
    expected = round(value, 6)
    assert name == "ndcg@10"
    assert (rounded == expected or (math.isnan(rounded) and math.isnan(expected)))
    assert math.copysign(1.0, rounded) == math.copysign(1.0, expected)


def test_minus_zero_keeps_its_sign_after_a_zero_was_shared() -> None:
    assert _metric_property("recall", 0.0) == ("recall", 0.0)
    assert math.copysign(1.0, _metric_property("recall", -0.0)[1]) == -1.0


def test_properties_share_equal_pairs_between_cases() -> None:
    first, second = _properties(_result("a")), _properties(_result("b"))
    assert first == second == [
        ("codesearch_status", "ok"),
        ("recall", 0.333333),
        ("hit@1", 0.0),
        ("latency_ms", 1.235),
        ("retrieved_count", 2),
        ("invalid_paths", 0),
    ]
    assert first[1] is second[1] and first[0] is second[0]


def test_properties_of_equal_metrics_are_shared_but_keep_the_sign_of_zero() -> None:
    zero = _result("z").model_copy(update={"metrics": {"recall": 0.0, "hit@1": 1.0}})
    minus = _result("m").model_copy(update={"metrics": {"recall": -0.0, "hit@1": 1.0}})
    assert _properties(zero)[1:3] == [("recall", 0.0), ("hit@1", 1.0)]
    assert _properties(zero)[1] is _properties(zero.model_copy())[1]
    assert math.copysign(1.0, _properties(minus)[1][1]) == -1.0  # type: ignore[arg-type]
    assert math.copysign(1.0, _properties(zero)[1][1]) == 1.0  # type: ignore[arg-type]


def test_properties_tell_true_from_one() -> None:
    flagged = _result("c").model_copy(update={"nondeterministic": True, "attempts": 2, "invalid_paths": 1})
    assert _properties(flagged)[-3:] == [("invalid_paths", 1), ("attempts", 2), ("nondeterministic", True)]
    assert type(_properties(flagged)[-1][1]) is bool and type(_properties(flagged)[-3][1]) is int


def test_hits_of_grades_equal_a_scan_of_the_list() -> None:
    ranked = ["x.py", "a.py", "y.py", "b.py", "c.py"]
    relevance = {"a.py": 2, "b.py": 1, "c.py": 3, "gone.py": 1}
    assert hit_grades(ranked, relevance) == ((2, 2), (4, 1), (5, 3))
    assert ideal_grades(relevance) == (3, 2, 1, 1)
    assert Hits.find(ranked, relevance) == Hits.of_grades(hit_grades(ranked, relevance), ideal_grades(relevance))


def test_answers_with_the_same_hits_share_scores_but_not_the_dict() -> None:
    first = score_case(["x.py", "a.py"], {"a.py": 1}, ks=(1, 5))
    second = score_case(["z.py", "b.py"], {"b.py": 1}, ks=(1, 5))
    assert first == second and first is not second
    first["recall"] = -1.0
    assert score_case(["x.py", "a.py"], {"a.py": 1}, ks=(1, 5))["recall"] == 1.0


def test_cached_scores_keep_cut_off_set_size_and_beta_apart() -> None:
    relevance = {"a.py": 1}
    ranked = ["a.py", "x.py", "y.py"]
    assert score_case(ranked, relevance, ks=(1,))["precision"] == pytest.approx(1 / 3)
    assert score_case(ranked, relevance, ks=(1,), k=1)["precision"] == 1.0
    assert score_case(ranked[:2], relevance, ks=(1,))["precision"] == 0.5
    assert "f_beta" in score_case(ranked, relevance, ks=(1,), f_beta=2.0)
    assert list(score_case(ranked, relevance, ks=(5, 1))) == list(score_case(ranked, relevance, ks=(5, 1)))
    with pytest.raises(ValueError, match="distinct positive"):
        score_case(ranked, relevance, ks=(1, 1))


def test_failure_analysis_reads_each_file_once_per_source(tmp_path: Path) -> None:
    reads: list[str] = []
    texts = {"auth/password.py": b"def reset_password(): ...", "auth/login.py": b"def login(): ..."}

    def read(path: str) -> bytes | None:
        reads.append(path)
        return texts.get(path)

    source = SourceFiles(read)
    for query in ("reset password", "password reset please"):
        category = classify_miss(query, {"auth/password.py": 1}, ["auth/login.py"], frozenset(), source, 10)
        assert category == "specificity_gap" if query == "reset password" else "other"
    assert sorted(reads) == ["auth/login.py", "auth/password.py"]


def test_goldset_cases_use_counts_from_collection(tmp_path: Path) -> None:
    (tmp_path / "read.jsonl").write_text('{"id": "a", "query": "q", "ground_truth_files": ["x.py"]}\n')
    # "known.jsonl" does not exist: its count can only come from what collection recorded
    assert goldset_cases(tmp_path, ["read.jsonl", "known.jsonl"], known={"known.jsonl": 3}) == 4


def test_partial_run_counts_against_collected_gold_sets(tmp_path: Path) -> None:
    records = RunRecords(_header(), collected={"g.jsonl::a[x]", "g.jsonl::b[x]"}, goldsets={"g.jsonl": "digest"})
    assert not is_partial_run(records, tmp_path, 1, {"g.jsonl": 2})
    assert is_partial_run(records, tmp_path, 1, {"g.jsonl": 3})
    assert not is_partial_run(records, tmp_path, 1, {"g.jsonl": 3}, limit=2)  # the limit is what the run is


def test_gold_set_counts_written_by_workers_are_read_back_merged(tmp_path: Path) -> None:
    write_goldset_counts(tmp_path / "w", {"a.jsonl": 3})
    write_goldset_counts(tmp_path / "w", {"a.jsonl": 3, "b.jsonl": 0})  # the same process again
    (tmp_path / "w" / "goldsets-1.json").write_text('{"a.jsonl": "3", "c.jsonl": 1')  # not whole: ignored
    assert read_goldset_counts(tmp_path / "w") == {"a.jsonl": 3, "b.jsonl": 0}
    assert read_goldset_counts(tmp_path / "absent") == {}


def test_under_xdist_a_partial_rerun_is_told_from_the_workers_counts(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.runpytest("--codesearch-agent=oracle", "-n", "2").assert_outcomes(passed=3)
    full = read_results(pytester.path)
    rerun = pytester.runpytest("--codesearch-agent=oracle", "-n", "2", "-k", "login")
    rerun.assert_outcomes(passed=1)  # the workers deselect: the controller shows no count
    assert read_results(pytester.path) == full
    assert [c["id"] for c in read_results(pytester.path, "codesearch-report/partial")["cases"]] == ["login"]
    assert not (pytester.path / "codesearch-report" / ".workers").exists()  # the counts went with the journals


def test_case_items_locate_themselves_as_pytest_would(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    (pytester.path / "sub").mkdir()
    write_project(pytester.path / "sub", name="more.jsonl")
    items, _ = pytester.inline_genitems("--codesearch-agent=oracle,bm25")
    assert len(items) == 12
    for item in items:
        assert item.location == pytest.Item.location.func(item)  # type: ignore[attr-defined]
    assert {item.location[0] for item in items} == {"cases.jsonl", "sub/more.jsonl"}


PROPERTY_PROBE = """
WORKER = []

def pytest_configure(config):
    WORKER[:] = [hasattr(config, "workerinput")]

def pytest_runtest_logreport(report):
    if report.when != "setup" and not WORKER[0]:  # the controller, or a serial run
        with open("seen.txt", "a") as seen:
            seen.write(f"{report.nodeid} {[type(p).__name__ for p in report.user_properties][:1]} "
                       f"{'codesearch_properties' in vars(report)}\\n")
"""


def _properties_of(xml: str) -> dict[str, list[tuple[str, str]]]:
    import xml.etree.ElementTree as ET

    timed = {"latency_ms", "index_ms"}
    return {
        case.get("name", ""): [(p.get("name", ""), "" if p.get("name") in timed else p.get("value", "")) for p in case.iter("property")]
        for case in ET.fromstring(xml).iter("testcase")
    }


def test_under_xdist_junit_properties_travel_packed_and_arrive_as_in_a_serial_run(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.makeconftest(PROPERTY_PROBE)
    args = ["--codesearch-agent=oracle,keyword", "--codesearch-seed=3"]
    pytester.runpytest(*args, "--junitxml=serial.xml").assert_outcomes(passed=6)
    pytester.runpytest(*args, "-n", "2", "--junitxml=parallel.xml").assert_outcomes(passed=6)
    serial = _properties_of((pytester.path / "serial.xml").read_text())
    assert serial == _properties_of((pytester.path / "parallel.xml").read_text())
    assert len(serial) == 6 and all(props[0] == ("codesearch_status", "ok") and len(props) > 30 for props in serial.values())
    seen = (pytester.path / "seen.txt").read_text().splitlines()
    assert len(seen) == 24 and all(line.endswith("['tuple'] False") for line in seen)  # other plugins see tuples



def test_rare_full_collections_raise_the_oldest_threshold_and_restore_it() -> None:
    before = gc.get_threshold()
    with pytest.raises(KeyError), rare_full_collections():
        assert gc.get_threshold() == (before[0], before[1], max(before[2], RARE_FULL_COLLECTIONS))
        raise KeyError("the thresholds come back even so")
    assert gc.get_threshold() == before


GC_PROBE = """
import gc
import pytest_codesearch as pcs

@pcs.agent(name="probe")
def probe():
    def search(query):
        with open("thresholds.txt", "a") as out:
            out.write(f"{gc.get_threshold()[2]}\\n")
        return ["src/app.py"]
    return search
"""


def test_cases_run_with_rare_full_collections_and_the_run_restores_them(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.makeconftest(GC_PROBE)
    before = gc.get_threshold()
    pytester.runpytest("--codesearch-agent=probe").assert_outcomes(passed=3)
    seen = (pytester.path / "thresholds.txt").read_text().split()
    assert len(seen) == 9 and set(seen) == {str(max(before[2], RARE_FULL_COLLECTIONS))}  # 3 cases x 3 runs
    assert gc.get_threshold() == before

def _result(case_id: str) -> CaseResult:
    return CaseResult(
        id=case_id, goldset="g.jsonl", agent="x", query="q", nodeid=f"g.jsonl::{case_id}[x]",
        ground_truth=["a.py"], relevance={"a.py": 1}, retrieved=["b.py", "c.py"], status=Status.OK,
        latency_ms=1.23456, latencies_ms=[1.23456], index_ms=None, metrics={"recall": 1 / 3, "hit@1": 0.0},
    )  # fmt: skip


def _header() -> JournalHeader:
    run = RunInfo(
        seed=1, runs=1, k=None, ks=[1], started_at="t", finished_at="t", versions={}, goldsets=[], agents={},
        workers=1, exit_status=None,
    )  # fmt: skip
    return JournalHeader(run=run, metric_names=["recall"])


def test_every_case_item_shares_one_codesearch_marker_that_m_selects(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    items, _ = pytester.inline_genitems("--codesearch-agent=oracle,bm25", "--strict-markers", "-m", "codesearch")
    assert len(items) == 6
    marks = [item.get_closest_marker("codesearch") for item in items]
    assert all(mark is not None and mark is marks[0] for mark in marks)
    assert [m.name for m in items[0].iter_markers()] == ["codesearch", "xdist_group"]


def test_metric_matrix_fills_what_a_case_lacks_as_row_by_row() -> None:
    from pytest_codesearch.report.table import metric_matrix

    full = _result("full").model_copy(update={"metrics": {"recall": 0.5, "hit@1": 1.0, "mrr": 0.25}})
    optional = _result("opt").model_copy(update={"metrics": {"recall": 1.0, "hit@1": 0.0}})
    failed = _result("err").model_copy(update={"status": Status.ERROR, "metrics": {}})
    unordered = _result("set").model_copy(update={"metrics": {"recall": 0.75}, "unordered": True})
    cases = [full, optional, failed, unordered]
    matrix = metric_matrix(cases, ["recall", "hit@1", "mrr"], required=["recall", "hit@1"])
    assert matrix.shape == (4, 3) and matrix.dtype == np.float64
    assert np.array_equal(matrix, np.array([
        [0.5, 1.0, 0.25], [1.0, 0.0, np.nan], [0.0, 0.0, np.nan], [0.75, np.nan, np.nan]
    ]), equal_nan=True)  # fmt: skip
    assert metric_matrix(cases, ["recall"]).tolist() == [[0.5], [1.0], [0.0], [0.75]]
    assert metric_matrix([], ["recall"]).shape == (0, 1) and metric_matrix(cases, []).shape == (4, 0)
    with pytest.raises(ValueError, match="opt\\[x\\]: status ok but no score for mrr"):
        metric_matrix(cases, ["recall", "hit@1", "mrr"])
