"""Comparing two saved runs: deltas, paired tests on shared cases, the cases that changed."""

from __future__ import annotations

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.runs.compare import ComparisonError, compare_runs, paired_values
from pytest_codesearch.runs.compare_render import render_comparison
from pytest_codesearch.report.model import CaseResult, RunReport
from pytest_codesearch.scoring import metric_names
from pytest_codesearch.status import Status
from report_cases import KS, make_report


def worsened(report: RunReport, agent: str, every: int, metric_scale: float = 0.0, slower: float = 1.0) -> RunReport:
    """Return ``report`` with ``agent``'s every ``every``-th case scored 0 (or scaled) and slower."""
    cases = []
    for n, case in enumerate(report.cases):
        if case.agent == agent and n % every == 0:
            metrics = {m: v * metric_scale for m, v in case.metrics.items()}
            latency = None if case.latency_ms is None else case.latency_ms * slower
            retrieved = case.retrieved if metric_scale else []  # scored 0: nothing relevant found
            case = case.model_copy(update={"metrics": metrics, "latency_ms": latency, "retrieved": retrieved})
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
    text = render_comparison(compare_runs(before, after, ["ndcg@10"], labels=("latest|x", "now")), max_cases=100)
    assert text.startswith("# Comparison: latest\\|x → now\n")
    assert "| bm25 | ndcg@10 |" in text and " * |" in text
    assert "a \\| b \\| c second line" in text  # the hostile query stays in one cell
    for line in text.splitlines():
        if line.startswith("|"):
            assert line.endswith("|") and "\n" not in line


def test_latency_pairs_count_a_timed_out_case_at_what_it_cost() -> None:
    """A case that timed out after 5 s costs 5 s in the comparison, as in the report and the gates."""
    before = make_report(10, agents=("bm25",))
    cases = [
        c.model_copy(update={"status": Status.TIMEOUT, "latency_ms": None, "elapsed_ms": 5000.0, "retrieved": []})
        if c.id == "case-00003" else c
        for c in before.cases
    ]  # fmt: skip
    after = build_run_report(before.run, cases, metric_names(KS))
    old, new = paired_values(before, after, "bm25", "latency_p50")
    assert len(old) == len(new) == 10 - sum(c.latency_ms is None for c in before.cases)
    index = sorted((c.goldset, c.id) for c in before.cases if c.latency_ms is not None).index(("synthetic", "case-00003"))
    assert new[index] == 5000.0
    result = compare_runs(before, after, ["latency_mean", "mrr"])
    mean = next(d for d in result.deltas if d.metric == "latency_mean")
    assert mean.after == after.agents["bm25"].latency_ms.mean and mean.mean_diff is not None and mean.mean_diff > 0
    assert [(r.case_id, r.before, r.after, r.gain) for r in result.ranks] == [("case-00003", 3, None, -1 / 3)]
    assert result.family == 2


def test_runs_are_compared_on_the_gold_sets_both_hold() -> None:
    before = make_report(20, agents=("bm25",))
    moved = [c.model_copy(update={"goldset": "other"}) if c.id >= "case-00010" else c for c in before.cases]
    run = before.run.model_copy(update={"goldsets": ["synthetic", "other"]})
    after = build_run_report(run, moved, metric_names(KS))
    result = compare_runs(before, after, ["mrr"])
    assert result.goldsets == ["synthetic"] and result.goldsets_only_after == ["other"]
    (delta,) = result.deltas
    kept = [c.metrics["mrr"] for c in after.cases if c.goldset == "synthetic"]
    assert delta.n == 10 and delta.after == pytest.approx(sum(kept) / 10)
    alone = build_run_report(run.model_copy(update={"goldsets": ["other"]}), [c for c in moved if c.goldset == "other"],
                             metric_names(KS))  # fmt: skip
    only = before.model_copy(update={"cases": [c for c in before.cases if c.id < "case-00010"]})
    with pytest.raises(ComparisonError, match="^A and B share no gold set \\(A: synthetic; B: other\\): nothing to compare$"):
        compare_runs(only, alone, ["mrr"], labels=("A", "B"))
