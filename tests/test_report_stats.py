"""Aggregation with uncertainty: optional metrics, comparisons, power, breakdowns, failures."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.breakdown import NO_VALUE
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.report.stats import PERMUTATIONS, holm

REQUIRED = ["f1", "mrr"]
ONE_IN_PERMUTATIONS = 1 / (PERMUTATIONS + 1)


def make_case(case_id: str, agent: str, metrics: dict[str, float], **fields: Any) -> CaseResult:
    """Return an ok case of gold set 'flask' scored ``metrics``, overridden by ``fields``."""
    values: dict[str, Any] = {
        "id": case_id, "goldset": "flask", "agent": agent, "query": "q",
        "nodeid": f"flask.jsonl::{case_id}[{agent}]", "ground_truth": ["a.py"],
        "relevance": {"a.py": 1}, "retrieved": ["a.py"], "status": "ok", "latency_ms": 1.0,
        "latencies_ms": [1.0], "index_ms": None, "metrics": metrics,
    }  # fmt: skip
    values.update(fields)
    return CaseResult(**values)


def run_info(*agents: str, **fields: Any) -> RunInfo:
    """Return run settings naming ``agents``."""
    values: dict[str, Any] = {
        "seed": 11, "runs": 1, "k": None, "ks": [1], "started_at": "2024-05-01T10:00:00Z",
        "finished_at": "2024-05-01T10:01:00Z", "versions": {}, "goldsets": ["flask"],
        "agents": {a: AgentInfo(fixture=a, source="conftest.py") for a in agents}, "workers": 1,
    }  # fmt: skip
    values.update(fields)
    return RunInfo(**values)


def scores(f1: float, mrr: float | None = None) -> dict[str, float]:
    """Return f1 and mrr scores (mrr defaults to f1)."""
    return {"f1": f1, "mrr": f1 if mrr is None else mrr}


def build(cases: list[CaseResult], *agents: str, **kwargs: Any) -> RunReport:
    """Return the report of ``cases``, comparing f1 and mrr."""
    kwargs.setdefault("compared", REQUIRED)
    return build_run_report(run_info(*agents), cases, REQUIRED, **kwargs)


def duel(n: int, a: list[float], b: list[float]) -> list[CaseResult]:
    """Return ``n`` cases answered by agents 'a' and 'b' with the f1 (= mrr) values cycled."""
    cases = [make_case(f"c{i:02d}", "a", scores(a[i % len(a)])) for i in range(n)]
    return cases + [make_case(f"c{i:02d}", "b", scores(b[i % len(b)])) for i in range(n)]


# --- metrics that apply to some cases only -------------------------------------------------


def test_optional_metric_is_averaged_over_the_cases_that_carry_it() -> None:
    cases = [
        make_case("c1", "a", {**scores(1.0), "line_coverage": 0.5}),
        make_case("c2", "a", {**scores(0.0), "line_coverage": 1.0}),
        make_case("c3", "a", scores(0.5)),
    ]
    metrics = build(cases, "a").agents["a"].metrics
    assert (metrics["f1"].mean, metrics["f1"].n) == (0.5, 3)
    line = metrics["line_coverage"]
    assert (line.mean, line.median, line.n) == (0.75, 0.75, 2)
    assert 0.5 <= line.ci95[0] <= line.ci95[1] <= 1.0


def test_error_case_counts_with_the_zeros_it_carries() -> None:
    cases = [
        make_case("c1", "a", {**scores(1.0), "line_coverage": 1.0}),
        make_case("c2", "a", {**scores(0.0), "line_coverage": 0.0}, status="error", error="boom"),
    ]
    line = build(cases, "a").agents["a"].metrics["line_coverage"]
    assert (line.mean, line.n) == (0.5, 2)


def test_error_case_without_scores_is_zero_on_required_metrics_only() -> None:
    crashed = make_case("c2", "a", {}, status="error", latency_ms=None, error="worker crashed")
    cases = [make_case("c1", "a", {**scores(1.0), "line_coverage": 1.0}), crashed]
    metrics = build(cases, "a").agents["a"].metrics
    assert (metrics["f1"].mean, metrics["f1"].n) == (0.5, 2)
    assert (metrics["line_coverage"].mean, metrics["line_coverage"].n) == (1.0, 1)


def test_metric_order_is_required_then_optional_order_then_first_seen() -> None:
    cases = [
        make_case("c1", "a", {**scores(1.0), "zeta": 1.0, "symbol_mrr": 1.0}),
        make_case("c2", "a", {**scores(1.0), "line_coverage": 1.0, "alpha": 0.0}),
    ]
    report = build(cases, "a", optional=["line_coverage", "symbol_mrr", "unused"])
    assert report.metric_names() == ["f1", "mrr", "line_coverage", "symbol_mrr", "zeta", "alpha"]


def test_agent_without_an_optional_metric_leaves_it_out() -> None:
    cases = [make_case("c1", "a", {**scores(1.0), "line_coverage": 1.0}), make_case("c1", "b", scores(1.0))]
    report = build(cases, "a", "b")
    assert "line_coverage" not in report.agents["b"].metrics
    assert "line_coverage" in report.metric_names()


def test_every_metric_summary_has_an_interval_around_its_mean() -> None:
    report = build(duel(20, [1.0, 0.0, 0.5], [0.2, 0.4]), "a", "b")
    for summary in report.agents.values():
        for metric in summary.metrics.values():
            assert metric.ci95[0] <= metric.mean <= metric.ci95[1]


def test_report_is_reproducible_and_follows_the_seed() -> None:
    cases = duel(20, [1.0, 0.0, 0.5], [0.2, 0.4])
    first = build_run_report(run_info("a", "b"), cases, REQUIRED)
    assert build_run_report(run_info("a", "b"), cases, REQUIRED) == first
    other = build_run_report(run_info("a", "b", seed=12), cases, REQUIRED)
    assert other.agents["a"].metrics["f1"].ci95 != first.agents["a"].metrics["f1"].ci95


def test_run_info_records_the_statistics_settings() -> None:
    run = run_info()
    assert (run.bootstrap, run.alpha, run.f_beta) == (1000, 0.05, None)
    assert run_info(bootstrap=200, alpha=0.01, f_beta=2.0).model_dump()["f_beta"] == 2.0


# --- paired comparisons ------------------------------------------------------------------


def test_comparison_of_a_clear_winner() -> None:
    report = build(duel(30, [1.0], [0.0]), "a", "b")
    first = report.comparisons[0].model_dump()
    assert list(first) == [
        "metric", "agent_a", "agent_b", "mean_diff", "ci95", "p_value", "p_holm", "significant",
    ]  # fmt: skip
    # 30 equal differences: a random sign vector matches |sum| with chance 2**-29, so no
    # permutation does and p = 1 / (permutations + 1); Holm multiplies by the 2 tests
    assert first == {
        "metric": "f1", "agent_a": "a", "agent_b": "b", "mean_diff": 1.0, "ci95": [1.0, 1.0],
        "p_value": ONE_IN_PERMUTATIONS, "p_holm": 2 * ONE_IN_PERMUTATIONS, "significant": True,
    }  # fmt: skip
    assert [c.metric for c in report.comparisons] == ["f1", "mrr"]


def test_identical_agents_are_never_significantly_different() -> None:
    cases = duel(30, [1.0, 0.0, 0.25, 0.5], [1.0, 0.0, 0.25, 0.5])
    report = build(cases, "a", "b")
    assert report.agents["a"].metrics == report.agents["b"].metrics  # the same draws: equal intervals
    for comparison in report.comparisons:
        assert (comparison.mean_diff, comparison.ci95) == (0.0, [0.0, 0.0])
        assert (comparison.p_value, comparison.p_holm, comparison.significant) == (1.0, 1.0, False)


def test_small_sample_is_tested_exactly() -> None:
    # 3 cases all favouring a: the most extreme of 2**3 sign vectors, either way -> p = 2/8
    report = build(duel(3, [1.0], [0.0]), "a", "b")
    assert [c.p_value for c in report.comparisons] == [0.25, 0.25]
    assert not any(c.significant for c in report.comparisons)


def test_cases_are_paired_by_goldset_and_id() -> None:
    cases = [
        make_case("c1", "a", scores(1.0)),
        make_case("c2", "a", scores(1.0)),
        make_case("c1", "b", scores(0.5)),
        make_case("c2", "b", scores(0.0), goldset="django", nodeid="django.jsonl::c2[b]"),
    ]
    report = build(cases, "a", "b")
    assert report.comparisons[0].mean_diff == 0.5
    assert {p.n for p in report.power} == {1}


def test_agents_without_common_cases_are_not_compared() -> None:
    report = build([make_case("c1", "a", scores(1.0)), make_case("c2", "b", scores(0.0))], "a", "b")
    assert report.comparisons == [] and report.power == [] and report.warnings == []


def test_holm_runs_over_every_comparison_of_the_run() -> None:
    cases = duel(20, [1.0, 0.0, 0.5, 0.5], [0.5, 0.25, 0.5, 0.0])
    cases += [make_case(f"c{i:02d}", "c", scores(0.5 if i % 3 else 0.0)) for i in range(20)]
    report = build(cases, "a", "b", "c")
    assert [(c.agent_a, c.agent_b) for c in report.comparisons[:3]] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(report.comparisons) == 6
    assert [c.p_holm for c in report.comparisons] == holm([c.p_value for c in report.comparisons])
    assert all(c.significant == (c.p_holm < 0.05) for c in report.comparisons)


def test_alpha_decides_significance() -> None:
    cases = duel(30, [1.0], [0.0])
    strict = build_run_report(run_info("a", "b", alpha=1e-5), cases, REQUIRED, compared=REQUIRED)
    assert not any(c.significant for c in strict.comparisons)


def leaders(report: RunReport) -> dict[str, tuple[list[str], bool]]:
    """Return the report's metric leaders as (agents, significant)."""
    return {m: (lead.agents, lead.significant) for m, lead in report.leaders.items() if "." not in m}


def test_significant_leader_beats_the_runner_up() -> None:
    cases = duel(30, [1.0], [0.0])
    cases += [make_case(f"c{i:02d}", "c", scores(1.0)) for i in range(30)]
    assert leaders(build(cases, "a", "b", "c")) == {"f1": (["a", "c"], False), "mrr": (["a", "c"], False)}
    two = build(duel(30, [1.0], [0.0]), "a", "b", compared=["f1", "mrr"])
    assert leaders(two) == {"f1": (["a"], True), "mrr": (["a"], True)}
    few = build(duel(3, [1.0], [0.0]), "a", "b")  # 3 paired cases: p = 1/4 at best, never significant
    assert leaders(few) == {"f1": (["a"], False), "mrr": (["a"], False)}


def test_leaders_of_a_metric_not_compared_are_never_significant() -> None:
    report = build(duel(30, [1.0], [0.0]), "a", "b", compared=["f1"])
    assert leaders(report)["mrr"] == (["a"], False)


def test_lower_is_better_for_latency_and_hard_negatives() -> None:
    cases = [make_case(f"c{i:02d}", "a", {**scores(1.0), "hard_negative_rate": 0.0}, latency_ms=5.0) for i in range(30)]
    cases += [make_case(f"c{i:02d}", "b", {**scores(0.0), "hard_negative_rate": 1.0}, latency_ms=2.0) for i in range(30)]
    report = build(cases, "a", "b", compared=["f1", "hard_negative_rate"])
    assert report.leaders["hard_negative_rate"].agents == ["a"]
    assert report.leaders["hard_negative_rate"].significant
    assert report.leaders["latency_ms.p50"].agents == ["b"]
    assert report.leaders["latency_ms.p90"].agents == ["b"]


def test_ties_are_judged_at_the_precision_shown() -> None:
    cases = [make_case("c1", "a", scores(0.5001)), make_case("c1", "b", scores(0.5004))]
    assert build(cases, "a", "b").leaders["f1"].agents == ["a", "b"]


def test_one_agent_leads_nothing() -> None:
    assert build(duel(3, [1.0], [0.0])[:3], "a").leaders == {}


# --- power ----------------------------------------------------------------------------------


def test_power_check_by_normal_approximation() -> None:
    # differences alternate 1, 0: sd = 0.50855; ((1.959964 + 0.841621) * 0.50855 / 0.05)^2 = 811.95
    report = build(duel(30, [1.0, 0.0], [0.0]), "a", "b")
    check = report.power[0]
    assert (check.metric, check.n, check.n_needed, check.underpowered) == ("f1", 30, 812, True)
    assert check.sd_diff == pytest.approx(0.5085476)
    assert report.warnings == [
        "a vs b: 30 paired cases, about 812 needed to detect a difference of 0.05 in f1 (alpha "
        "0.05, power 80%; normal approximation with sd 0.509 of the paired differences)"
    ]


def test_no_spread_needs_only_enough_cases_for_the_test() -> None:
    enough = build(duel(6, [1.0], [0.0]), "a", "b")
    assert [(p.n_needed, p.underpowered) for p in enough.power] == [(6, False), (6, False)]
    assert enough.warnings == []
    few = build(duel(5, [1.0], [0.0]), "a", "b")
    assert few.power[0].underpowered and "about 6 needed" in few.warnings[0]


def test_one_paired_case_cannot_estimate_power() -> None:
    report = build(duel(1, [1.0], [0.0]), "a", "b")
    assert (report.power[0].n_needed, report.power[0].underpowered) == (None, True)
    assert report.warnings == ["a vs b: 1 paired case, too few to estimate the spread of their differences"]


# --- breakdowns and failures ----------------------------------------------------------------


def breakdown_cases() -> list[CaseResult]:
    """Cases of two agents over two complexities, one without a category and one crashed."""
    return [
        make_case("c1", "a", scores(1.0), complexity="low", category="auth", repo="r1", latency_ms=2.0),
        make_case("c2", "a", scores(0.0), complexity="high", category="auth", repo="r1",
                  failure_category="vocabulary_mismatch"),
        make_case("c3", "a", scores(0.5), complexity="low", repo="r2"),
        make_case("c1", "b", scores(0.0), complexity="low", category="auth", repo="r1",
                  failure_category="other"),
        make_case("c2", "b", {}, status="error", latency_ms=None, error="crash"),
    ]  # fmt: skip


def test_breakdown_shape() -> None:
    breakdowns = build(breakdown_cases(), "a", "b").breakdowns.model_dump()
    assert list(breakdowns) == ["complexity", "category", "goldset", "repo"]
    assert list(breakdowns["complexity"]) == ["high", "low", NO_VALUE]
    assert list(breakdowns["complexity"]["low"]) == ["a", "b"]
    assert list(breakdowns["complexity"]["high"]) == ["a"]
    assert list(breakdowns["complexity"][NO_VALUE]) == ["b"]
    assert list(breakdowns["category"]) == ["auth", NO_VALUE]
    assert list(breakdowns["goldset"]) == ["flask"]
    assert list(breakdowns["repo"]) == ["r1", "r2", NO_VALUE]
    group = breakdowns["complexity"]["low"]["a"]
    assert list(group) == ["metrics", "latency_ms", "counts", "failures"]
    assert group["metrics"]["f1"]["mean"] == 0.75 and group["metrics"]["f1"]["n"] == 2
    assert set(group["metrics"]["f1"]) == {"mean", "median", "std", "ci95", "n"}
    assert group["latency_ms"]["p50"] == 1.5
    assert group["counts"] == {
        "cases": 2, "ok": 2, "error": 0, "timeout": 0, "crashed": 0, "not_run": 0, "nondeterministic": 0
    }


def test_breakdown_groups_count_failures_and_errors() -> None:
    breakdowns = build(breakdown_cases(), "a", "b").breakdowns
    assert breakdowns.complexity["high"]["a"].failures == {"vocabulary_mismatch": 1}
    crashed = breakdowns.complexity[NO_VALUE]["b"]
    assert crashed.counts["error"] == 1 and crashed.metrics["f1"].mean == 0.0
    assert crashed.latency_ms.p50 is None


def test_failures_are_counted_per_agent() -> None:
    report = build(breakdown_cases(), "a", "b")
    assert report.agents["a"].failures == {"vocabulary_mismatch": 1}
    assert report.agents["b"].failures == {"other": 1}
