"""``--codesearch-truth FILE``: published truth (CoSIL's gt.json, or JSONL by level) replaces a case's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_project import read_results
from rst_repo import build_instances

from pytest_codesearch.goldset.model import GroundTruthFile, TestCase
from pytest_codesearch.goldset.truthfile import GivenTruth, TruthFileError, apply_truth, load_truth_file


def test_cosil_entries_give_files_functions_and_modules(tmp_path: Path) -> None:
    path = tmp_path / "gt.json"
    path.write_text(json.dumps({"a-1": ["x/rst.py::RST.__init__", "x/rst.py::RST.write", "x/util.py", "x/rst.py::f"]}))
    assert load_truth_file(path) == {"a-1": GivenTruth(
        files=("x/rst.py", "x/util.py"),
        modules=("x/rst.py:RST", "x/rst.py:f"),
        functions=("x/rst.py:RST.__init__", "x/rst.py:RST.write", "x/rst.py:f"),
    )}  # fmt: skip


def test_jsonl_records_replace_only_the_levels_they_give(tmp_path: Path) -> None:
    path = tmp_path / "truth.jsonl"
    path.write_text('{"instance_id": "a-1", "functions": ["a.py::A.f", "a.py:g"]}\n\n'
                    '{"instance_id": "a-2", "files": []}\n')
    given = load_truth_file(path)
    assert given == {"a-1": GivenTruth(functions=("a.py:A.f", "a.py:g")), "a-2": GivenTruth(files=())}
    case = TestCase(id="a-1", query="q", ground_truth_files=[GroundTruthFile(path="a.py", lines=[[1, 2]])],
                    ground_truth_modules=["a.py:A"])  # fmt: skip
    replaced = apply_truth(case, given["a-1"])
    assert (replaced.ground_truth_functions, replaced.ground_truth_modules) == (["a.py:A.f", "a.py:g"], ["a.py:A"])
    assert apply_truth(case, given["a-2"]).ground_truth_files == case.ground_truth_files  # a case needs a file
    kept = apply_truth(case, GivenTruth(files=("b.py", "a.py")))
    assert kept.ground_truth_files == [GroundTruthFile(path="b.py"), case.ground_truth_files[0]]  # lines kept


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a-1": "a.py"}', "gt.json: a-1: expected a list of 'path' or 'path::Qualified.name' entries"),
        ('[{"instance_id": "a-1", "files": "a.py"}]', "gt.json:1: files: must be a list of non-empty strings"),
        ('[{"files": ["a.py"]}]', "gt.json:1: instance_id: missing, or not a string (the case id it gives truth for)"),
        ("{", "gt.json:1: not JSON: Expecting property name enclosed in double quotes"),
    ],
)
def test_a_broken_truth_file_names_where(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "gt.json"
    path.write_text(text)
    with pytest.raises(TruthFileError) as caught:
        load_truth_file(path)
    assert str(caught.value) == f"{tmp_path}/{error}"


def test_cosil_truth_and_profile_score_a_replayed_run(pytester: pytest.Pytester) -> None:
    instances = build_instances(pytester.path)
    truth = pytester.path / "gt.json"
    truth.write_text(json.dumps({"acme__rst-1": ["pkg/rst.py::RST.__init__", "pkg/util.py"]}))
    predictions = pytester.path / "outputs.jsonl"
    predictions.write_text(json.dumps({"instance_id": "acme__rst-1", "found_files": ["pkg/util.py", "pkg/rst.py"],
                                       "found_entities": ["pkg/util.py:fmt", "pkg/rst.py:RST.__init__"]}))  # fmt: skip
    result = pytester.runpytest(
        str(instances), "--codesearch-agent=replay", f"--codesearch-predictions={predictions}", "--codesearch-runs=1",
        "--codesearch-ks=1,3", "--codesearch-profile=cosil", f"--codesearch-truth={truth}",
        f"--codesearch-repo-map=acme/rst={pytester.path / 'rst'}",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    report = read_results(pytester.path)
    assert report["run"]["truth"].startswith("gt.json sha256:")
    cases = {case["id"]: case for case in report["cases"]}
    given = cases["acme__rst-1"]
    assert given["ground_truth_functions"] == ["pkg/rst.py:RST.__init__"]
    assert given["ground_truth_modules"] == ["pkg/rst.py:RST"]
    assert given["ground_truth"] == ["pkg/rst.py", "pkg/util.py"]
    names = ("top@1", "map", "function_top@1", "function_top@3", "function_map", "function_mrr")
    assert [given["metrics"][n] for n in names] == [1.0, 1.0, 0.0, 1.0, 0.5, 0.5]  # names: fmt, RST.__init__
    assert cases["acme__rst-2"]["ground_truth_functions"] == ["pkg/rst.py:helper"]  # not named: derived truth


def test_a_broken_truth_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    instances = build_instances(pytester.path)
    (pytester.path / "gt.json").write_text('{"acme__rst-1": 3}')
    result = pytester.runpytest(str(instances), "--codesearch-agent=path", "--codesearch-truth=gt.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codesearch-truth: */gt.json: acme__rst-1: expected a list of *"])
