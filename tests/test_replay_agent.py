"""The built-in ``replay`` agent and its predictions files (agents/builtin/replay.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_project import read_results

from pytest_codesearch.agents.builtin.replay import Prediction, PredictionsError, ReplayAgent, load_predictions
from pytest_codesearch.agents.builtin.sanity import CaseInfo

DATA = Path(__file__).parent / "data" / "predictions"


def test_locagent_outputs_are_read_by_instance_id() -> None:
    predictions = load_predictions(DATA / "loc_outputs.jsonl")
    assert predictions == {
        "acme__shop-1": Prediction(("pkg/shop.py",), ("pkg/shop.py:Cart",), ("pkg/shop.py:Cart.add",)),
        "acme__shop-2": Prediction(("pkg/util.py", "pkg/shop.py"), (), ("pkg/util.py:fmt",)),
    }


def test_the_agent_answers_the_case_it_is_handed_and_nothing_for_an_unknown_one() -> None:
    agent = ReplayAgent(DATA / "loc_outputs.jsonl")
    agent.observe_case(CaseInfo("acme__shop-2", {"pkg/util.py": 1}, 0))
    answer = agent.retrieve("any query")
    assert (answer.files, answer.functions, answer.modules) == (
        ["pkg/util.py", "pkg/shop.py"], ["pkg/util.py:fmt"], ["pkg/util.py:fmt"]
    )  # fmt: skip
    agent.observe_case(CaseInfo("acme__shop-9", {}, 0))
    assert agent.retrieve("any query").files == []


def test_our_own_keys_and_a_json_object_by_id(tmp_path: Path) -> None:
    path = tmp_path / "predictions.json"
    path.write_text('{"a-1": {"files": ["x.py"], "functions": ["x.py:f"], "modules": ["x.py:f"]}}')
    assert load_predictions(path) == {"a-1": Prediction(("x.py",), ("x.py:f",), ("x.py:f",))}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("p.jsonl", '{"instance_id": "a"}\n{"found_files": []}\n', r"p.jsonl:2: instance_id: missing"),
        ("p.jsonl", '{"id": "a", "found_files": "x.py"}\n', r"p.jsonl:1: found_files: must be a list of strings"),
        ("p.jsonl", '{"id": "a"}\n\n{"id": "a"}\n', r"p.jsonl:3: 'a' has a prediction already"),
        ("p.jsonl", '{"id": "a"}\n{"id": \n', r"p.jsonl:2: not JSON"),
        ("p.json", "[1]", r"p.json:1: a prediction must be a JSON object, got int"),
        ("p.json", '"x"', r"p.json:1: expected a list of predictions"),
    ],
)
def test_a_broken_predictions_file_names_the_line_and_field(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(PredictionsError, match=message):
        load_predictions(tmp_path / name)


def test_replay_without_predictions_says_which_option_to_give(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases='{"id": "c", "query": "q", "ground_truth_files": ["a.py"], "repo": "."}')
    result = pytester.runpytest("--codesearch-agent=replay")
    result.stderr.fnmatch_lines(["*unknown agent 'replay'*(replay exists once --codesearch-predictions FILE*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_a_missing_predictions_file_is_named_before_any_case_runs(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", cases='{"id": "c", "query": "q", "ground_truth_files": ["a.py"], "repo": "."}')
    result = pytester.runpytest("--codesearch-agent=replay", "--codesearch-predictions=nope.jsonl")
    result.stderr.fnmatch_lines(["*agent 'replay' cannot be built*nope.jsonl: cannot read the predictions*"])
    assert result.ret != 0


def test_replay_runs_in_a_child_process_too(pytester: pytest.Pytester) -> None:
    (pytester.path / "a.py").write_text("x = 1\n")
    pytester.makefile(".jsonl", cases='{"id": "c", "query": "q", "ground_truth_files": ["a.py"], "repo": "."}')
    (pytester.path / "answers.json").write_text('[{"id": "c", "files": ["a.py"]}]')
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=replay", "--codesearch-predictions=answers.json", "--codesearch-isolate=process",
        "--codesearch-runs=1", "cases.jsonl",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert (record["retrieved"], record["metrics"]["mrr"]) == (["a.py"], 1.0)
