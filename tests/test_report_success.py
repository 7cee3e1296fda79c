"""The success metric: one rule (hit@10, else the largest hit@k) read by cost, run comparison and the HTML page."""

from __future__ import annotations

import json

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.report.render.html_cases import case_json
from pytest_codesearch.report.success import success_metric
from pytest_codesearch.runs.compare import compare_runs
from pytest_codesearch.scoring import metric_names
from pytest_codesearch.scoring.failures import miss_cutoff
from pytest_codesearch.status import Status


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["mrr", "hit@1", "hit@5", "hit@10", "hit@20"], "hit@10"),  # 10 wins over a larger k
        (["hit@20", "hit@10"], "hit@10"),
        (["hit@1", "hit@5"], "hit@5"),  # without 10: the largest k
        (["hit@3", "hit@50", "hit@1"], "hit@50"),
        (["hit@1"], "hit@1"),
        (["mrr", "ndcg@10", "hit@", "hit@x", "all_hit@10"], None),  # no hit@k at all
        ([], None),
    ],
)
def test_success_is_hit_at_10_else_the_largest_hit_at_k(names: list[str], expected: str | None) -> None:
    assert success_metric(names) == expected


@pytest.mark.parametrize("ks", [(1, 5, 10), (1, 5), (10, 20, 50), (3,), (1, 5, 10, 100)])
def test_success_is_the_failure_analysis_cut_off(ks: tuple[int, ...]) -> None:
    """An answered case has a failure category exactly when it scores 0 on the success metric."""
    assert success_metric(metric_names(ks)) == f"hit@{miss_cutoff(ks)}"


def _case(case_id: str, agent: str, hit1: float, hit5: float, cost: float) -> CaseResult:
    """Return an ok case scoring ``hit1`` on hit@1 and ``hit5`` on hit@5, its answer costing ``cost``."""
    return CaseResult(
        id=case_id, goldset="g", agent=agent, query="q", nodeid=f"g::{case_id}[{agent}]", ground_truth=["a.py"],
        relevance={"a.py": 1}, retrieved=["b.py", "a.py"], status=Status.OK, latency_ms=1.0, latencies_ms=[1.0],
        index_ms=None, metrics={"hit@1": hit1, "hit@5": hit5, "mrr": max(hit1, hit5 / 2)},
        metadata={"cost_usd": cost},
    )  # fmt: skip


def _report(cases: list[CaseResult]) -> RunReport:
    run = RunInfo(
        seed=1, runs=1, k=None, ks=[1, 5], started_at="t0", finished_at="t1", versions={}, goldsets=["g"],
        workers=1, bootstrap=50, agents={"a": AgentInfo(fixture="a", source="test")},
    )  # fmt: skip
    return build_run_report(run, cases, ["hit@1", "hit@5", "mrr"])


def test_cost_comparison_and_html_all_count_successes_on_it() -> None:
    """Without hit@10 the run's success is hit@5: three cases hit at 5, one of them at 1."""
    before = _report([_case("c1", "a", 1.0, 1.0, 0.5), _case("c2", "a", 0.0, 1.0, 0.5),
                      _case("c3", "a", 0.0, 1.0, 0.5), _case("c4", "a", 0.0, 0.0, 0.5)])  # fmt: skip
    assert before.success_metric == "hit@5"
    cost = before.costs["a"]
    assert (cost.correct, cost.correct_metric, cost.cost_per_correct) == (3, "hit@5", 2.0 / 3)
    assert json.loads(str(case_json(before, "mrr")))["hit"] == "hit@5"
    after = _report([_case("c1", "a", 1.0, 1.0, 0.5), _case("c2", "a", 0.0, 0.0, 0.5),
                     _case("c3", "a", 0.0, 1.0, 0.5), _case("c4", "a", 0.0, 1.0, 0.5)])  # fmt: skip
    comparison = compare_runs(before, after, ["mrr"])
    assert comparison.hit_metric == "hit@5"
    assert [(c.case_id, c.hit_after) for c in comparison.changed] == [("c2", False), ("c4", True)]
