"""``--codesearch-profile``: one run per profile over SWE-bench-style instances of a pygit2-built repository."""

from __future__ import annotations

import json
from typing import Any

import pytest
from example_project import read_results
from rst_repo import build_instances

PREDICTION = {"instance_id": "acme__rst-1", "found_files": ["pkg/other.py", "pkg/rst.py", "pkg/util.py"],
              "found_entities": ["pkg/rst.py:RST", "pkg/util.py:fmt", "pkg/rst.py:helper"]}  # fmt: skip
"""acme__rst-2 has no prediction: it scores 0 and counts under every profile."""

NATIVE_FUNCTIONS = ["pkg/rst.py:RST.__init__", "pkg/rst.py:helper", "pkg/util.py:fmt"]
LOCAGENT_FUNCTIONS = ["pkg/rst.py:RST", "pkg/rst.py:helper", "pkg/util.py:fmt", "pkg/util.py:Config"]
# profile -> (truth functions of acme__rst-1, its metrics, computed by hand)
EXPECTED: dict[str, tuple[list[str], dict[str, float]]] = {
    "native": (NATIVE_FUNCTIONS, {"acc@1": 1.0, "function_acc@3": 1.0, "function_recall@3": 1.0}),  # other.py dropped
    "locagent": (LOCAGENT_FUNCTIONS, {"function_acc@3": 1.0, "function_recall@3": 0.75}),  # Config: not answered
    "cosil": (NATIVE_FUNCTIONS, {
        "top@1": 0.0, "top@3": 1.0,  # other.py is no file of the tree, yet holds rank 1
        "map": (1 / 2 + 2 / 3) / 2, "mrr": 0.5,
        "function_top@1": 0.0, "function_top@3": 1.0,  # RST is not RST.__init__ by name
        "function_map": (1 / 2 + 2 / 3) / 3, "function_mrr": 0.5}),
    "orcaloca": (LOCAGENT_FUNCTIONS, {"match": 1.0, "function_match": 0.0}),  # Config's body changed, not answered
}  # fmt: skip


@pytest.mark.parametrize("profile", list(EXPECTED))
def test_each_profile_scores_a_replayed_prediction_by_its_rules(pytester: pytest.Pytester, profile: str) -> None:
    instances = build_instances(pytester.path)
    predictions = pytester.path / "outputs.jsonl"
    predictions.write_text(json.dumps(PREDICTION) + "\n")
    result = pytester.runpytest(
        str(instances), "--codesearch-agent=replay", f"--codesearch-predictions={predictions}",
        "--codesearch-runs=1", "--codesearch-ks=1,3", f"--codesearch-profile={profile}",
        f"--codesearch-repo-map=acme/rst={pytester.path / 'rst'}",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    report = read_results(pytester.path)
    assert report["run"]["profile"] == profile
    cases: dict[str, Any] = {case["id"]: case for case in report["cases"]}
    functions, metrics = EXPECTED[profile]
    assert cases["acme__rst-1"]["ground_truth_functions"] == functions
    assert {name: cases["acme__rst-1"]["metrics"][name] for name in metrics} == pytest.approx(metrics)
    unanswered = cases["acme__rst-2"]["metrics"]
    assert {name: unanswered[name] for name in metrics} == dict.fromkeys(metrics, 0.0)
    means = report["agents"]["replay"]["metrics"]
    assert {name: means[name]["mean"] for name in metrics} == pytest.approx({n: v / 2 for n, v in metrics.items()})
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text()
    assert f"- Scoring profile: {profile} (docs/profiles.md)" in summary
    noted = [line for line in result.stdout.lines if line.startswith("scored under")]
    assert noted == ([] if profile == "native" else [f"scored under the {profile} profile (docs/profiles.md)"])
