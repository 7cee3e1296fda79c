"""Patches as predictions: a SWE-bench prediction file scored by what each patch edits at the case's base."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest
from example_project import read_results
from gitrepo import commit
from rst_repo import RST, UTIL, build_instances

from pytest_codesearch.agents.builtin.patches import PatchAnswer, answer_from_patch, related_locs
from pytest_codesearch.agents.builtin.replay import Prediction, PredictionsError, load_predictions

MISFIT = (
    "diff --git a/pkg/rst.py b/pkg/rst.py\n--- a/pkg/rst.py\n+++ b/pkg/rst.py\n"
    "@@ -11,2 +11,2 @@\n def helper():\n-    return 99\n+    return 100\n"
)
"""A patch whose context the base does not have (``helper`` returns 2)."""


def _predicted_patch(root: Path) -> str:
    """Return a patch of the base that changes ``helper`` and ``fmt`` (not ``RST.__init__``)."""
    repo = pygit2.Repository(str(root / "rst"))
    base = json.loads((root / "instances.jsonl").read_text().splitlines()[0])["base_commit"]
    files = {"pkg/rst.py": RST.replace("return 2", "return 5"), "pkg/util.py": UTIL.replace("str(value)", "value")}
    predicted = commit(repo, files, "Predicted", parents=[base], branch="predicted")
    patch = repo.diff(base, predicted).patch
    assert patch is not None
    return patch


def test_a_prediction_file_of_patches_is_scored_by_what_each_patch_edits(pytester: pytest.Pytester) -> None:
    instances = build_instances(pytester.path)
    predictions = pytester.path / "preds.json"
    predictions.write_text(json.dumps([
        {"instance_id": "acme__rst-1", "model_name_or_path": "m", "model_patch": _predicted_patch(pytester.path)},
        {"instance_id": "acme__rst-2", "model_name_or_path": "m", "model_patch": MISFIT},
    ]))  # fmt: skip
    result = pytester.runpytest(
        str(instances), "--codesearch-agent=replay", f"--codesearch-predictions={predictions}", "--codesearch-runs=1",
        "--codesearch-ks=1", "--codesearch-profile=orcaloca", f"--codesearch-repo-map=acme/rst={pytester.path / 'rst'}",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    cases = {case["id"]: case for case in read_results(pytester.path)["cases"]}
    edited = cases["acme__rst-1"]
    assert edited["unordered"] is True
    assert (edited["retrieved"], edited["retrieved_functions"]) == (
        ["pkg/rst.py", "pkg/util.py"], ["pkg/rst.py:helper", "pkg/util.py:fmt"]
    )  # fmt: skip
    assert {n: edited["metrics"][n] for n in ("precision", "recall", "match", "function_match")} == {
        "precision": 1.0, "recall": 1.0, "match": 1.0, "function_match": 0.0  # RST.__init__ is not edited
    }  # fmt: skip
    assert not {"hit@1", "mrr", "acc@1", "function_acc@1", "function_mrr"} & set(edited["metrics"])
    misfit = cases["acme__rst-2"]
    assert misfit["retrieved"] == [] and misfit["metrics"]["match"] == 0.0
    why = "the predicted patch does not apply: pkg/rst.py:12: the patch expects 'return 99', the file has 'return 2'"
    assert misfit["metadata"]["patch_problem"] == why
    means = read_results(pytester.path)["agents"]["replay"]["metrics"]
    assert (means["match"]["mean"], means["recall"]["mean"]) == (0.5, 0.5)
    assert "hit@1" not in means
    result.stdout.fnmatch_lines([
        "2 case(s) answered with an unordered set (replayed patches): metrics that read an order *",
        "1 replayed patch(es) empty or not applicable, scored as empty answers (summary.md lists them)",
    ])  # fmt: skip
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text()
    assert f"replay acme__rst-2: {why}; scored as an empty answer" in summary


def test_a_folder_of_patch_diffs_reads_as_swe_bench_harness_logs(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run_evaluation" / "run1" / "model"
    for case_id, patch in (("acme__rst-1", "diff one\n"), ("acme__rst-2", "")):
        (run / case_id).mkdir(parents=True)
        (run / case_id / "patch.diff").write_text(patch)
    assert load_predictions(tmp_path / "logs") == {
        "acme__rst-1": Prediction(patch="diff one\n"), "acme__rst-2": Prediction(patch="")
    }  # fmt: skip
    (tmp_path / "empty").mkdir()
    with pytest.raises(PredictionsError, match="empty: no INSTANCE_ID/patch.diff in this folder"):
        load_predictions(tmp_path / "empty")


def test_an_empty_or_broken_patch_answers_nothing_and_says_why() -> None:
    base = {"a.py": b"def f():\n    return 1\n"}.get
    assert answer_from_patch(" \n", base) == PatchAnswer(problem="the predicted patch is empty")
    missing = answer_from_patch("--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n", base)
    assert missing == PatchAnswer(problem="the predicted patch does not apply: the base has no b.py")
    fine = answer_from_patch("--- a/a.py\n+++ b/a.py\n@@ -2 +2 @@\n-    return 1\n+    return 2\n", base)
    assert fine == PatchAnswer(("a.py",), ("a.py:f",), ("a.py:f",))


def test_agentless_and_cosil_related_locs_become_functions() -> None:
    cosil = {"a.py": ["function: A.f\nclass: B\nvariable: X"], "b.py": [""]}
    assert related_locs(cosil, ["a.py", "b.py"]) == ["a.py:A.f", "a.py:B"]
    agentless = [["function: g"], ["class: C\nfunction: C.h"]]
    assert related_locs(agentless, ["a.py", "b.py"]) == ["a.py:g", "b.py:C", "b.py:C.h"]
    assert related_locs("function: g", ["a.py"]) is None
