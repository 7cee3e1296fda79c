"""Cost and tokens from answer metadata: summed per agent, shown in the terminal and summary.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_codesearch.report.cost import summarize_costs
from pytest_codesearch.report.render.cost import cost_lines, cost_section
from pytest_codesearch.report.render.markdown import render_summary
from report_cases import make_cases, make_report

PRICED_CONFTEST = """
import pytest_codesearch as pcs

@pcs.agent(name="priced")
def priced():
    def search(query):
        files = ["src/auth/login.py"] if "login" in query else ["src/app.py"]
        return pcs.RetrievalResult(files=files, metadata={"cost_usd": 0.25, "tokens_in": 100, "tokens_out": 7})
    return search
"""


def test_costs_are_summed_per_agent_and_divided_by_correct_answers() -> None:
    cases = make_cases(10, agents=("bm25", "keyword"))
    priced = [
        c.model_copy(update={"metadata": {"cost_usd": 0.5, "tokens_in": 10, "tokens_out": 2, "note": "x"}})
        if c.agent == "bm25" else c
        for c in cases
    ]  # fmt: skip
    bm25 = [c for c in priced if c.agent == "bm25"]
    correct = sum(c.metrics["hit@10"] == 1.0 for c in bm25)
    costs = summarize_costs(priced, "hit@10")
    assert list(costs) == ["bm25"]  # keyword returned no cost: left out
    cost = costs["bm25"]
    assert (cost.cost_usd, cost.tokens_in, cost.tokens_out, cost.cases) == (5.0, 100, 20, 10)
    assert (cost.correct, cost.correct_metric) == (correct, "hit@10")
    assert cost.cost_per_correct == (5.0 / correct if correct else None)


def test_non_numbers_are_ignored_and_a_run_without_costs_shows_nothing() -> None:
    (case, *_) = make_cases(1, agents=("bm25",))
    odd = case.model_copy(update={"metadata": {"cost_usd": "0.5", "tokens_in": True}})
    assert summarize_costs([odd], "hit@10") == {}
    report = make_report(6)
    assert report.costs == {}  # no case of make_report carries a cost
    assert cost_section(report) == "" and cost_lines(report) == []
    assert "## Cost" not in render_summary(report)


def test_a_run_reports_its_agents_cost(pytester: pytest.Pytester, project: Path) -> None:
    pytester.makeconftest(PRICED_CONFTEST)
    result = pytester.runpytest("--codesearch-agent=priced")
    result.assert_outcomes(passed=3)
    data = json.loads((pytester.path / "codesearch-report" / "results.json").read_text())
    assert data["costs"]["priced"] == {
        "cost_usd": 0.75, "tokens_in": 300, "tokens_out": 21, "cases": 3, "correct": 2,
        "correct_metric": "hit@10", "cost_per_correct": 0.375,
    }  # fmt: skip
    result.stdout.re_match_lines([r"agent\s+correct\s+p50 ms\s+cost \$", r"priced\s+2 \(hit@10\)\s+\S+\s+0\.7500\s+300\s+21\s+0\.3750"])
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text()
    assert "| priced | 2 (hit@10) |" in summary and "| 0.7500 | 300 | 21 | 0.3750 |" in summary
