"""Recommendations: best quality, fastest and best balance, significant or within noise."""

from __future__ import annotations

import math

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.report.recommend import (
    balance_scores,
    describe,
    latency_test,
    p_text,
    quality_metric,
    recommend,
    sign_test,
)
from pytest_codesearch.status import Status

METRICS = ["ndcg@10", "mrr"]


def case(n: int, agent: str, ndcg: float, latency: float) -> CaseResult:
    """Return an ok case scoring ``ndcg`` on both metrics."""
    return CaseResult(
        id=f"c{n}", goldset="g", agent=agent, query="q", nodeid=f"g::c{n}[{agent}]",
        ground_truth=["a.py"], relevance={"a.py": 1}, retrieved=["a.py"], status=Status.OK,
        latency_ms=latency, latencies_ms=[latency], index_ms=None,
        metrics={"ndcg@10": ndcg, "mrr": ndcg},
    )  # fmt: skip


def report_of(cases: list[CaseResult], agents: list[str]) -> RunReport:
    """Return the report of ``cases`` (200 resamples)."""
    run = RunInfo(
        seed=3, runs=1, k=None, ks=[10], started_at="t0", finished_at="t1", versions={},
        goldsets=["g"], workers=1, bootstrap=200,
        agents={a: AgentInfo(fixture=a, source="test") for a in agents},
    )  # fmt: skip
    return build_run_report(run, cases, METRICS)


@pytest.fixture
def clear() -> RunReport:
    """deep: best quality, slowest; quick: fastest, worst; mid: close second on quality, medium."""
    cases = []
    for n in range(20):
        cases += [case(n, "deep", 0.9, 100.0), case(n, "quick", 0.3, 1.0), case(n, "mid", 0.85, 10.0)]
    return report_of(cases, ["deep", "quick", "mid"])


def test_sign_test_is_the_exact_two_sided_binomial() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == 2 / 32
    assert sign_test(1, 4) == 2 * 6 / 32
    assert sign_test(3, 3) == 1.0
    assert sign_test(2000, 0) < 1e-100


def test_p_text_never_shows_zero() -> None:
    assert [p_text(p) for p in (0.0312, 1e-7, 0.0)] == ["p = 0.031", "p < 1e-06", "p < 1e-06"]


def test_balance_is_the_mean_of_min_max_normalised_quality_and_log_speed() -> None:
    scores = balance_scores({"deep": 0.9, "quick": 0.3, "mid": 0.85}, {"deep": 100.0, "quick": 1.0, "mid": 10.0})
    assert scores["deep"] == pytest.approx(0.5)
    assert scores["quick"] == pytest.approx(0.5)
    assert scores["mid"] == pytest.approx((0.55 / 0.6 + 0.5) / 2)


def test_balance_of_equal_agents_is_one() -> None:
    assert balance_scores({"a": 0.5, "b": 0.5}, {"a": 2.0, "b": 2.0}) == {"a": 1.0, "b": 1.0}


def test_quality_metric_prefers_ndcg_at_10(clear: RunReport) -> None:
    assert quality_metric(clear) == "ndcg@10"


def test_clear_leads_are_significant(clear: RunReport) -> None:
    picks = recommend(clear)
    assert (picks.quality.agent, picks.quality.runner_up, picks.quality.significant) == ("deep", "mid", True)
    assert picks.quality.value == pytest.approx(0.9)
    assert (picks.speed.agent, picks.speed.runner_up, picks.speed.significant) == ("quick", "mid", True)
    assert (picks.speed.value, picks.speed.runner_up_value) == (1.0, 10.0)


def test_balance_against_a_trade_off_is_not_significant(clear: RunReport) -> None:
    balance = recommend(clear).balance
    assert (balance.agent, balance.runner_up, balance.significant) == ("mid", "deep", False)
    assert "trade-off against deep" in balance.reason


def test_latency_test_counts_paired_wins(clear: RunReport) -> None:
    p_value, winner = latency_test(clear, "quick", "deep")
    assert (p_value, winner) == (2 / 2**20, 1)
    assert latency_test(clear, "deep", "quick")[1] == -1


def test_differences_that_cancel_are_within_noise() -> None:
    cases = []
    for n in range(20):
        up = n % 2 == 0
        cases += [case(n, "a", 0.6 if up else 0.5, 2.0 if up else 3.0),
                  case(n, "b", 0.5 if up else 0.6, 3.0 if up else 2.0)]  # fmt: skip
    cases.append(case(20, "a", 0.7, 2.0))  # a leads on the mean, by one unpaired-looking case
    cases.append(case(20, "b", 0.6, 2.5))
    picks = recommend(report_of(cases, ["a", "b"]))
    assert (picks.quality.agent, picks.quality.significant) == ("a", False)
    assert "within noise of b" in picks.quality.reason
    assert (picks.speed.agent, picks.speed.significant) == ("a", False)
    assert picks.balance.significant is False
    assert "within noise" in picks.balance.reason


def test_one_agent_gets_no_pick() -> None:
    report = report_of([case(0, "solo", 0.5, 1.0)], ["solo"])
    assert report.recommendations == recommend(report)
    assert report.recommendations.model_dump() == {"metric": "ndcg@10", "quality": None, "speed": None, "balance": None}
    assert report.recommendations.picks() == []


def test_a_tie_on_quality_names_no_agent() -> None:
    cases = [case(n, agent, 0.5, 1.0 + i) for n in range(3) for i, agent in enumerate(["x", "y"])]
    quality = recommend(report_of(cases, ["x", "y"])).quality
    assert quality.agent is None
    assert quality.reason == "x and y tie on ndcg@10"


def test_agents_without_latency_are_not_fastest() -> None:
    broken = case(0, "broken", 0.0, 1.0).model_copy(update={"status": Status.ERROR, "latency_ms": None})
    picks = recommend(report_of([broken, case(0, "works", 0.4, 5.0)], ["broken", "works"]))
    assert (picks.speed.agent, picks.speed.runner_up) == ("works", None)
    assert math.isclose(picks.speed.value or 0.0, 5.0)


def test_an_agent_timing_out_on_most_cases_is_neither_fastest_nor_best_balance() -> None:
    """flaky answers c0 in 0.5 ms and times out on c1-c3 (1000 ms each, its budget); steady answers all in 20 ms.

    Counted over its answers alone, flaky would be fastest (0.5 ms) and tie steady on balance. With its
    timeouts: p50 = median(0.5, 1000, 1000, 1000) = 1000 ms; steady's is 20 ms. Quality (ndcg@10):
    flaky 1/4 = 0.25, steady 0.6. Balance: steady q_norm = s_norm = 1 gives 1.0, flaky 0.0.
    """
    timeouts = [
        case(n, "flaky", 0.0, 1.0).model_copy(
            update={"status": Status.TIMEOUT, "latency_ms": None, "latencies_ms": [], "elapsed_ms": 1000.0}
        )
        for n in (1, 2, 3)
    ]
    cases = [case(0, "flaky", 1.0, 0.5), *timeouts, *(case(n, "steady", 0.6, 20.0) for n in range(4))]
    report = report_of(cases, ["flaky", "steady"])
    assert (report.agents["flaky"].latency_ms.p50, report.agents["steady"].latency_ms.p50) == (1000.0, 20.0)
    picks = report.recommendations
    assert picks.speed is not None and picks.balance is not None and picks.quality is not None
    assert (picks.speed.agent, picks.speed.metric, picks.speed.value) == ("steady", "latency_ms.p50", 20.0)
    assert (picks.speed.runner_up, picks.speed.runner_up_value) == ("flaky", 1000.0)
    assert (picks.balance.agent, picks.balance.metric, picks.balance.value) == ("steady", "balance", 1.0)
    assert (picks.balance.runner_up, picks.balance.runner_up_value) == ("flaky", 0.0)
    assert (picks.quality.agent, picks.quality.value, picks.quality.runner_up_value) == ("steady", 0.6, 0.25)
    assert picks == recommend(report)


def test_describe_gives_one_sentence_per_pick(clear: RunReport) -> None:
    lines = describe(clear.recommendations.picks())
    assert lines[0].startswith("Best quality: deep (highest mean ndcg@10, significantly ahead of mid")
    assert lines[1].startswith("Fastest: quick (lowest p50 latency, significantly faster than mid")
    assert lines[2].startswith("Best balance: mid (")
