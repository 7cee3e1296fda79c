"""On an FQN retrieval set, names an agent gives as files resolve to files as the set's positives do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from example_project import read_results

DATA = Path(__file__).parent / "data" / "fqn"

AGENT = """
import pytest_codesearch as pcs

ANSWERS = {
    "Which class runs agents concurrently?": ["adk.agents.SequentialAgent", "adk.agents.ParallelAgent"],
    "Which class runs agents one after another?": ["adk.agents.Missing", "adk.agents.sequential", "not a name"],
}

@pcs.agent(name="names")
def names():
    return lambda query: pcs.RetrievalResult(files=ANSWERS[query])
"""


def test_names_answered_as_files_are_scored_as_their_files(pytester: pytest.Pytester) -> None:
    shutil.copytree(DATA, pytester.path / "fqn")
    pytester.makeconftest(AGENT)
    result = pytester.runpytest("--codesearch-agent=names", "--codesearch-runs=1", "fqn/retrieval.jsonl")
    result.assert_outcomes(passed=2)
    records = {case["id"]: case for case in read_results(pytester.path)["cases"]}
    parallel, sequential = records["parallel"], records["sequential"]
    assert parallel["retrieved"] == ["src/adk/agents/sequential.py", "src/adk/agents/parallel.py"]
    assert (parallel["metrics"]["mrr"], parallel["metrics"]["recall@5"]) == (0.5, 1.0)
    assert sequential["retrieved"] == ["src/adk/agents/sequential.py"]
    assert sequential["dropped"] == ["adk.agents.Missing", "not a name"]
    assert sequential["metrics"]["mrr"] == 1.0
    converted = pytester.runpytest(
        "--codesearch-convert", "fqn/retrieval.jsonl", "--codesearch-output", "fqn/native.jsonl"
    )
    assert converted.ret == 0
    pytester.runpytest("--codesearch-agent=names", "--codesearch-runs=1", "fqn/native.jsonl").assert_outcomes(passed=2)
    again = {case["id"]: case["retrieved"] for case in read_results(pytester.path)["cases"]}
    assert again == {"parallel": parallel["retrieved"], "sequential": sequential["retrieved"]}
    assert json.loads((pytester.path / "fqn" / "native.jsonl").read_text().splitlines()[1])["x-fqn"]
