"""Statistics through the plugin: a real run tells oracle from random and a twin from itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from example_project import read_results

TWIN_CONFTEST = """
import pytest_codesearch as pcs
from pytest_codesearch.agents.builtin.bm25 import BM25Agent

@pcs.agent(name="bm25-twin")
def bm25_twin():
    return BM25Agent()
"""
WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basil cedar dahlia elm fern "
    "garnet hazel iris jasper kelp lotus maple nutmeg olive pepper quartz rowan sage thyme umber violet "
    "willow yarrow zinnia acorn birch clover dune ember frost glade heron ivy jade knoll larch moss nettle"
).split()
FILES = 60
CASES = 30


def write_goldset(root: Path) -> None:
    """Write 60 source files, each with two words of its own, and 30 cases that name them."""
    for i in range(FILES):
        own = f"{WORDS[i]} {WORDS[(i + 7) % len(WORDS)]}"
        path = root / "repo" / "src" / f"module_{i:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'"""The {own} handler."""\n\ndef handle():\n    return "{own} value"\n')
    lines: list[dict[str, Any]] = [{"metadata": {"name": "stats", "repo": "repo"}}]
    for i in range(CASES):
        truth: list[Any] = [f"src/module_{i:02d}.py"]
        if i % 5 == 0:
            truth.append({"path": f"src/module_{i + 30:02d}.py", "relevance": 2})
        query = f"where is the {WORDS[i]} {WORDS[(i + 7) % len(WORDS)]} handler"
        complexity = "low" if i % 2 else "high"
        lines.append({"id": f"case{i:02d}", "query": query, "ground_truth_files": truth,
                      "complexity": complexity})  # fmt: skip
    (root / "stats.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")


@pytest.mark.slow
def test_oracle_beats_random_and_a_twin_never_differs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for every headline metric with its interval
    write_goldset(pytester.path)
    pytester.makeconftest(TWIN_CONFTEST)
    result = pytester.runpytest(
        "--codesearch-agent=oracle,random,bm25,bm25-twin", "--codesearch-runs=1", "--codesearch-seed=5"
    )
    result.assert_outcomes(passed=4 * CASES)
    result.stdout.fnmatch_lines(["*± half the 95% bootstrap interval; * best; ** best and significantly*"])
    data = read_results(pytester.path)
    comparisons = {(c["metric"], c["agent_a"], c["agent_b"]): c for c in data["comparisons"]}
    headline = data["headline"]
    assert headline == ["ndcg@10", "mrr", "hit@1", "hit@5", "recall@10", "map", "f1"]  # oracle answers sets
    assert sorted({metric for metric, _, _ in comparisons}) == sorted(headline)
    for metric in headline:
        better = comparisons[(metric, "oracle", "random")]
        assert better["significant"] and better["mean_diff"] > 0 and better["ci95"][0] > 0, metric
        twin = comparisons[(metric, "bm25", "bm25-twin")]
        assert (twin["mean_diff"], twin["p_value"], twin["significant"]) == (0.0, 1.0, False), metric
        against_twin = {**comparisons[(metric, "random", "bm25-twin")], "agent_b": "bm25"}
        assert against_twin == comparisons[(metric, "random", "bm25")], metric
    assert data["agents"]["bm25"]["metrics"] == data["agents"]["bm25-twin"]["metrics"]
    summaries = list(data["agents"].values())
    summaries += [s for groups in data["breakdowns"].values() for g in groups.values() for s in g.values()]
    for summary in summaries:
        assert all(len(m["ci95"]) == 2 and m["ci95"][0] <= m["mean"] <= m["ci95"][1]
                   for m in summary["metrics"].values())  # fmt: skip
    assert list(data["breakdowns"]["complexity"]) == ["high", "low"]
    assert data["run"]["bootstrap"] == 1000 and data["run"]["alpha"] == 0.05
    summary_md = (pytester.path / "codesearch-report" / "summary.md").read_text(encoding="utf-8")
    assert "| **mrr** | **oracle** | **random** |" in summary_md
