"""Recommendations reach the terminal and summary.md of every run that compares agents."""

from __future__ import annotations

import pytest

from example_project import write_project


def test_recommendations_in_terminal_and_summary(pytester: pytest.Pytester) -> None:
    write_project(pytester.path, [{"id": f"c{i}", "query": "login view", "ground_truth_files": ["src/auth/login.py"]}
                                  for i in range(12)])
    result = pytester.runpytest("--codesearch-agent=oracle,random", "--codesearch-seed=1", "--codesearch-no-save")
    result.assert_outcomes(passed=24)
    result.stdout.fnmatch_lines(["Best quality: oracle (highest mean ndcg@10*", "Fastest: *", "Best balance: *"])
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text(encoding="utf-8")
    section = summary.split("## Recommendations\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(":", 1)[0] for line in section] == ["- Best quality", "- Fastest", "- Best balance"]
    assert section[0].startswith("- Best quality: oracle (highest mean ndcg@10, significantly")


def test_one_agent_gets_no_recommendations(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save")
    result.assert_outcomes(passed=3)
    assert "Best quality" not in result.stdout.str()
    assert "## Recommendations" not in (pytester.path / "codesearch-report" / "summary.md").read_text()
