"""``--codesearch-blind``: each agent also answers with an empty repository, beside its real run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from example_project import read_results
from rst_repo import build_instances

MEMORY_AGENT = """
import os
import pytest_codesearch as pcs

def recall(query, repo_path):
    found = sorted(os.path.relpath(os.path.join(d, n), repo_path) for d, _, names in os.walk(repo_path)
                   for n in names if n.endswith(".py"))
    return found or ["pkg/util.py"]  # without files, what it remembers

@pcs.agent(name="memory")
def memory():
    return recall
"""


@pytest.mark.parametrize("isolate", ["none", "process"])
def test_each_agent_has_a_blind_twin_scored_against_the_real_tree(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], isolate: str
) -> None:
    make_conftest(MEMORY_AGENT)
    instances = build_instances(pytester.path)
    result = pytester.runpytest(
        str(instances), "--codesearch-agent=memory", "--codesearch-blind", "--codesearch-runs=1",
        f"--codesearch-isolate={isolate}", f"--codesearch-repo-map=acme/rst={pytester.path / 'rst'}",
    )  # fmt: skip
    result.assert_outcomes(passed=4)
    report = read_results(pytester.path)
    assert report["run"]["blind"] is True
    recall = {(c["agent"], c["id"]): c["metrics"]["recall"] for c in report["cases"]}
    assert recall == {
        ("memory", "acme__rst-1"): 1.0, ("memory", "acme__rst-2"): 1.0,
        ("memory-blind", "acme__rst-1"): 0.5, ("memory-blind", "acme__rst-2"): 0.0,  # util.py, from memory
    }  # fmt: skip
    blind = [c for c in report["cases"] if c["agent"] == "memory-blind"]
    assert [c["retrieved"] for c in blind] == [["pkg/util.py"], ["pkg/util.py"]]
    assert [c["nodeid"].rsplit("::", 1)[1] for c in blind] == ["acme__rst-1[memory-blind]", "acme__rst-2[memory-blind]"]
    pairs = {(c["metric"], c["agent_a"], c["agent_b"]): c for c in report["comparisons"]}
    assert pairs[("recall@10", "memory", "memory-blind")]["mean_diff"] == pytest.approx(0.75)
    result.stdout.fnmatch_lines(["blind: each agent also answered with an empty repository (NAME-blind)*"])
