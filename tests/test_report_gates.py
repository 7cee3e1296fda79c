"""Quality gates as library functions: parsing, floors, regressions against a baseline."""

from __future__ import annotations

import pytest

from pytest_codesearch.runs.gates import (
    Floor,
    GateError,
    Tolerance,
    check_floors,
    check_regressions,
    parse_floors,
    parse_tolerances,
)
from report_cases import make_report
from test_report_compare_runs import worsened


def test_floors_and_tolerances_parse() -> None:
    assert parse_floors(" ndcg@10=0.40, recall@10=0.6 ") == [Floor("ndcg@10", 0.4), Floor("recall@10", 0.6)]
    assert parse_tolerances("ndcg@10:-0.02,latency_p90:+20%,mrr:-5%") == [
        Tolerance("ndcg@10", -0.02, relative=False),
        Tolerance("latency_p90", 0.2, relative=True),
        Tolerance("mrr", -0.05, relative=True),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndcg@10", "--codesearch-fail-under: 'ndcg@10': expected METRIC=MINIMUM"),
        ("ndcg@10=high", "--codesearch-fail-under: 'ndcg@10=high': 'high' is not a number"),
        ("ndcg@10=nan", "the amount must be finite"),
        (" , ", "--codesearch-fail-under: empty"),
    ],
)
def test_bad_floors_are_named(text: str, message: str) -> None:
    with pytest.raises(GateError, match=message):
        parse_floors(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndcg@10=-0.02", "expected METRIC:-AMOUNT"),
        ("ndcg@10:0.02", "expected METRIC:-AMOUNT"),
        ("ndcg@10:+0.02", "ndcg@10 is higher is better, so its tolerance is -AMOUNT"),
        ("latency_p90:-20%", "latency_p90 is lower is better, so its tolerance is \\+AMOUNT"),
    ],
)
def test_bad_tolerances_are_named(text: str, message: str) -> None:
    with pytest.raises(GateError, match=message):
        parse_tolerances(text)


def test_floors_fail_exactly_the_agents_below_them() -> None:
    report = make_report(30)
    means = {a: s.metrics["ndcg@10"].mean for a, s in report.agents.items()}
    middle = sorted(means.values())[1]
    failures = check_floors(report, [Floor("ndcg@10", middle)])
    (lowest,) = [a for a, m in means.items() if m < middle]
    assert failures == [f"gate failed: agent {lowest}: ndcg@10 = {means[lowest]:.4f} < floor {middle:g}"]
    assert check_floors(report, [Floor("ndcg@10", 0.0)]) == []
    assert check_floors(report, [Floor("ndcg@99", 0.1)])[0] == (
        "gate failed: agent bm25: ndcg@99 is not in the report (floor 0.1)"
    )


def test_a_significant_regression_fails_and_an_unchanged_run_passes() -> None:
    baseline = make_report(60)
    tolerances = parse_tolerances("ndcg@10:-0.02,latency_p50:+20%")
    assert check_regressions(baseline, baseline, tolerances) == []
    current = worsened(baseline, "bm25", 1, slower=2.0)
    failures = check_regressions(current, baseline, tolerances, label="latest")
    assert [f.split(":")[1].strip() for f in failures] == ["agent bm25", "agent bm25"]
    old = baseline.agents["bm25"].metrics["ndcg@10"].mean
    assert failures[0].startswith(f"gate failed: agent bm25: ndcg@10 = 0.0000, latest {old:.4f} (allowed -0.02: ")
    assert "latency_p50 = " in failures[1] and "(allowed +20%: " in failures[1]


def test_a_small_drop_fails_only_when_significance_is_not_required() -> None:
    baseline = make_report(60)
    current = worsened(baseline, "keyword", 20)  # one keyword case (of 60) scored 0: a drop, not a clear one
    tolerances = parse_tolerances("mrr:-0.001")
    assert check_regressions(current, baseline, tolerances) == []
    failures = check_regressions(current, baseline, tolerances, require_significance=False)
    assert [f.split(":")[1].strip() for f in failures] == ["agent keyword"]
