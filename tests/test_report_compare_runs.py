"""Comparing two saved runs: deltas, paired tests on shared cases, the cases that changed."""

from __future__ import annotations

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.runs.compare import compare_runs, paired_values, render_comparison
from pytest_codesearch.report.model import CaseResult, RunReport
from pytest_codesearch.scoring import metric_names
from report_cases import KS, make_report


def worsened(report: RunReport, agent: str, every: int, metric_scale: float = 0.0, slower: float = 1.0) -> RunReport:
    """Return ``report`` with ``agent``'s every ``every``-th case scored 0 (or scaled) and slower."""
    cases = []
    for n, case in enumerate(report.cases):
        if case.agent == agent and n % every == 0:
            metrics = {m: v * metric_scale for m, v in case.metrics.items()}
            latency = None if case.latency_ms is None else case.latency_ms * slower
            case = case.model_copy(update={"metrics": metrics, "latency_ms": latency})
        cases.append(case)
    return build_run_report(report.run, cases, metric_names(KS))


def test_an_unchanged_run_has_zero_deltas_and_no_changed_case() -> None:
    report = make_report(30)
    result = compare_runs(report, report, ["ndcg@10", "latency_p50"])
    assert {(d.agent, d.metric) for d in result.deltas} == {
        (a, m) for a in ("bm25", "keyword", "dense") for m in ("ndcg@10", "latency_p50")
    }
    for delta in result.deltas:
        assert delta.diff == 0.0 and delta.mean_diff == 0.0 and delta.p_value == 1.0
        assert not delta.significant
    assert result.changed == [] and result.hit_metric == "hit@10"


def test_a_broad_drop_is_significant_and_its_lost_cases_listed() -> None:
    before = make_report(60)
    after = worsened(before, "bm25", 1)  # every bm25 case now scores 0
    result = compare_runs(before, after, ["ndcg@10", "mrr"], labels=("A", "B"))
    delta = next(d for d in result.deltas if (d.agent, d.metric) == ("bm25", "ndcg@10"))
    old, new = paired_values(before, after, "bm25", "ndcg@10")
    assert delta.n == 60 and new == [0.0] * 60
    assert delta.mean_diff == pytest.approx(-sum(old) / 60)
    assert delta.diff == -before.agents["bm25"].metrics["ndcg@10"].mean
    assert delta.significant and delta.p_holm is not None and delta.p_holm < 0.05
    assert all(not d.significant for d in result.deltas if d.agent != "bm25")
    lost = [c for c in result.changed if c.agent == "bm25"]
    hits_before = [c for c in before.cases if c.agent == "bm25" and c.metrics["hit@10"] == 1.0]
    assert len(lost) == len(hits_before) and not any(c.hit_after for c in lost)
    assert [c for c in result.changed if c.agent != "bm25"] == []


def test_only_shared_cases_are_paired_and_missing_agents_named() -> None:
    before = make_report(20)
    fewer: list[CaseResult] = [c for c in before.cases if c.id < "case-00010" and c.agent != "dense"]
    run = before.run.model_copy(update={"agents": {a: i for a, i in before.run.agents.items() if a != "dense"}})
    after = build_run_report(run, fewer, metric_names(KS))
    result = compare_runs(before, after, ["f1"])
    assert [(d.agent, d.n) for d in result.deltas] == [("bm25", 10), ("keyword", 10)]
    assert result.only_before == ["dense"] and result.only_after == []


def test_the_markdown_escapes_queries_and_marks_significance() -> None:
    before = make_report(60)
    after = worsened(before, "bm25", 1)
    text = render_comparison(compare_runs(before, after, ["ndcg@10"], labels=("latest|x", "now")))
    assert text.startswith("# Comparison: latest\\|x → now\n")
    assert "| bm25 | ndcg@10 |" in text and " * |" in text
    assert "a \\| b \\| c second line" in text  # the hostile query stays in one cell
    for line in text.splitlines():
        if line.startswith("|"):
            assert line.endswith("|") and "\n" not in line
