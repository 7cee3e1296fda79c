"""A replay agent answers SWE-bench-style instances with given predictions: file, module and function acc@k."""

from __future__ import annotations

import json

from collections.abc import Callable
from statistics import mean

import pytest
from example_project import read_results, write_project
from shop_repo import swebench_workspace

from pytest_codesearch.scoring.levels import score_level

# LocAgent's loc_outputs.jsonl keys; the second prediction gives modules of its own, the first derives them
PREDICTIONS = [
    {"instance_id": "acme__shop-1", "found_files": ["pkg/util.py", "pkg/shop.py"],
     "found_entities": ["pkg/shop.py:Cart.add", "pkg/util.py:fmt", "pkg/shop.py:Cart.remove", "pkg/shop.py:Cart.total",
                        "pkg/util.py:unused"]},
    {"instance_id": "acme__shop-2", "found_files": ["pkg/shop.py", "pkg/util.py"],
     "found_entities": ["pkg/util.py:unused"],
     "found_modules": ["pkg/shop.py:Cart", "pkg/util.py:fmt", "pkg/util.py:fmt"]},
]  # fmt: skip

# case -> level -> acc@1, acc@3, acc@5, computed by hand from the predictions above
EXPECTED = {
    "acme__shop-1": {"": [1.0, 0.0, 0.0], "module_": [1.0, 1.0, 1.0], "function_": [1.0, 0.0, 1.0]},
    "acme__shop-2": {"": [0.0, 1.0, 1.0], "module_": [0.0, 0.0, 0.0], "function_": [1.0, 0.0, 0.0]},
}


def test_replayed_predictions_give_hand_computed_acc_at_each_level(pytester: pytest.Pytester) -> None:
    swebench_workspace(pytester.path)
    for name in ("lite.json", "locbench-instance.json"):
        (pytester.path / name).unlink()
    predictions = pytester.path / "outputs" / "loc_outputs.jsonl"
    predictions.parent.mkdir()
    predictions.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS))
    result = pytester.runpytest(
        "--codesearch-agent=replay", f"--codesearch-predictions={predictions}", "--codesearch-runs=1",
        "--codesearch-ks=1,3,5",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    records = {case["id"]: case for case in read_results(pytester.path)["cases"]}
    for case_id, levels in EXPECTED.items():
        for level, values in levels.items():
            assert [records[case_id]["metrics"][f"{level}acc@{k}"] for k in (1, 3, 5)] == values, (case_id, level)
    first = records["acme__shop-1"]
    assert first["ground_truth_modules"] == ["pkg/shop.py:Cart", "pkg/util.py:fmt", "pkg/util.py:unused"]
    assert first["retrieved_modules"] == first["ground_truth_modules"]  # derived from the functions
    assert records["acme__shop-2"]["retrieved_modules"] == ["pkg/shop.py:Cart", "pkg/util.py:fmt"]
    assert records["acme__shop-2"]["ground_truth_functions"] == ["pkg/util.py:fmt", "pkg/util.py:unused"]
    table = {level: [mean(records[c]["metrics"][f"{level}acc@{k}"] for c in EXPECTED) for k in (1, 3, 5)]
             for level in ("", "module_", "function_")}
    assert table == {"": [0.5, 0.5, 0.5], "module_": [0.5, 0.5, 0.5], "function_": [1.0, 0.0, 0.5]}


def test_native_entity_truth_is_scored_and_a_failed_case_scores_zero_at_each_level(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    truth = {"ground_truth_functions": ["src/app.py:create_app"], "ground_truth_modules": ["src/app.py:create_app"]}
    write_project(pytester.path, [
        {"id": "ok", "query": "create the flask app", "ground_truth_files": ["src/app.py"], **truth},
        {"id": "boom", "query": "explode", "ground_truth_files": ["src/app.py"], **truth},
    ])  # fmt: skip
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="entities")
        def entities():
            def answer(query):
                if query == "explode":
                    raise RuntimeError("no")
                return pcs.RetrievalResult(files=["src/app.py"], functions=["src/app.py:create_app"])
            return answer
        """
    )
    result = pytester.runpytest("--codesearch-agent=entities", "--codesearch-runs=1", "--codesearch-ks=1")
    result.assert_outcomes(passed=1, failed=1)
    records = {case["id"]: case for case in read_results(pytester.path)["cases"]}
    levels = ("acc@1", "module_acc@1", "module_map", "function_acc@1", "function_mrr")
    assert [records["ok"]["metrics"][name] for name in levels] == [1.0] * 5
    assert [records["boom"]["metrics"][name] for name in levels] == [0.0] * 5
    assert records["boom"]["ground_truth_functions"] == ["src/app.py:create_app"]
    assert records["ok"]["retrieved_functions"] == ["src/app.py:create_app"]


def test_a_constructor_answers_to_its_class_name_at_function_level() -> None:
    """LocAgent names a changed ``__init__`` by its class, in its gold sets and its outputs alike."""
    truth = ["a.py:Cart.__init__", "a.py:Cart.add"]
    by_class = score_level("functions", ["a.py:Cart", "a.py:Cart.add"], truth, (1, 2))
    by_method = score_level("functions", ["a.py:Cart.__init__", "a.py:Cart", "a.py:Cart.add"], truth, (1, 2))
    assert by_class == by_method
    assert (by_class["function_acc@1"], by_class["function_acc@2"]) == (1.0, 1.0)
    assert score_level("modules", ["a.py:Cart"], ["a.py:Cart"], (1,))["module_acc@1"] == 1.0
