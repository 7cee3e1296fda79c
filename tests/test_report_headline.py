"""The headline (defect 9): ranking quality first, f1 only where agents return sets, chosen once."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.headline import choose_headline, returns_sets
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.scoring import metric_names, score_case

KS = (1, 5, 10)
FILES = [f"src/m{i:03d}.py" for i in range(300)]


def run_info(agents: list[str], **fields: Any) -> RunInfo:
    values: dict[str, Any] = {
        "seed": 3, "runs": 1, "k": None, "ks": list(KS), "started_at": "2024-05-01T10:00:00Z",
        "finished_at": "2024-05-01T10:01:00Z", "versions": {}, "goldsets": ["g"], "workers": 1,
        "agents": {a: AgentInfo(fixture=a, source="conftest.py") for a in agents},
    }  # fmt: skip
    values.update(fields)
    return RunInfo(**values)


def scored_case(case_id: str, agent: str, retrieved: list[str], truth: dict[str, int], **extra: Any) -> CaseResult:
    """Return an ok case scored as the harness scores it."""
    directories = extra.pop("directories", frozenset())
    metrics = score_case(retrieved, truth, ks=KS, directories=directories)
    return CaseResult(
        id=case_id, goldset="g", agent=agent, query="q", nodeid=f"g.jsonl::{case_id}[{agent}]",
        ground_truth=list(truth), relevance=truth, retrieved=retrieved, status="ok",
        latency_ms=1.0, latencies_ms=[1.0], index_ms=None, metrics=metrics, **extra,
    )  # fmt: skip


def long_lists(agent: str, n: int, seed: int, length: int = 100) -> list[CaseResult]:
    """Return ``n`` cases answered with ``length`` files, the truth somewhere in the top 10 or missed."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        truth = {FILES[i]: 1}
        answer = rng.sample([f for f in FILES if f != FILES[i]], length)
        if rng.random() < 0.8:
            answer[rng.randrange(10)] = FILES[i]
        cases.append(scored_case(f"c{i:02d}", agent, answer, truth))
    return cases


def report(cases: list[CaseResult], agents: list[str], **kwargs: Any) -> RunReport:
    return build_run_report(run_info(agents), cases, metric_names(KS), **kwargs)


def test_long_answers_get_a_ranking_headline_without_f1() -> None:
    cases = long_lists("bm25", 20, 1) + long_lists("keyword", 20, 2)
    built = report(cases, ["bm25", "keyword"])
    assert built.headline == ["ndcg@10", "mrr", "hit@1", "hit@5", "recall@10", "map"]
    assert {c.metric for c in built.comparisons} == set(built.headline)


def test_f1_joins_when_some_agent_returns_a_set() -> None:
    short = [scored_case(f"c{i:02d}", "picker", [FILES[i]], {FILES[i]: 1}) for i in range(20)]
    built = report(long_lists("bm25", 20, 1) + short, ["bm25", "picker"])
    assert built.headline[-1] == "f1"
    assert "f1_partial" not in built.headline  # no directory anywhere: it would only repeat f1


def test_f1_partial_joins_only_where_it_differs_from_f1() -> None:
    cases = [scored_case(f"c{i:02d}", "picker", [FILES[i]], {FILES[i]: 1}) for i in range(5)]
    cases.append(scored_case("d1", "picker", ["src"], {"src/m001.py": 1}, directories=frozenset({"src"})))
    assert report(cases, ["picker"]).headline[-2:] == ["f1", "f1_partial"]


def test_answer_length_is_the_median_over_answered_cases_cut_at_k() -> None:
    cases = long_lists("bm25", 3, 1, length=11)
    assert not returns_sets(cases, run_info(["bm25"]))
    assert returns_sets(cases, run_info(["bm25"], k=10))  # only the first 10 are scored as a set
    assert returns_sets(cases[:1] + [c.model_copy(update={"retrieved": []}) for c in cases[1:]], run_info(["bm25"]))


def test_missing_cut_offs_become_the_nearest_one() -> None:
    names = metric_names((3, 20))
    headline = choose_headline([], names, run_info([], ks=[3, 20]))
    assert headline == ["ndcg@3", "mrr", "hit@3", "recall@3", "map"]


def test_a_chosen_headline_is_kept_in_order_and_compared() -> None:
    cases = long_lists("bm25", 10, 1) + long_lists("keyword", 10, 2)
    built = report(cases, ["bm25", "keyword"], headline=["map", "f1@5", "map"])
    assert built.headline == ["map", "f1@5"]
    assert [c.metric for c in built.comparisons] == ["map", "f1@5"]


def test_an_unknown_headline_metric_says_what_was_meant() -> None:
    with pytest.raises(ValueError, match=r"unknown headline metric 'ndcg@11' \(did you mean 'ndcg@1'\?\)"):
        report(long_lists("bm25", 2, 1), ["bm25"], headline=["ndcg@11"])


def four_agents() -> RunReport:
    """bm25 and keyword answer with 100 files, random with 10, oracle with the truth."""
    rng = random.Random(9)
    cases = long_lists("bm25", 30, 1) + long_lists("keyword", 30, 2)
    for i in range(30):
        truth = {FILES[i]: 1}
        cases.append(scored_case(f"c{i:02d}", "oracle", [FILES[i]], truth))
        cases.append(scored_case(f"c{i:02d}", "random", rng.sample(FILES, 10), truth))
    speed = {"bm25": 0.09, "keyword": 0.06, "oracle": 0.01, "random": 0.01}
    timed = [c.model_copy(update={"latency_ms": speed[c.agent] * (1 + int(c.id[1:]) % 3)}) for c in cases]
    return report(timed, ["bm25", "keyword", "oracle", "random"])


def test_terminal_at_200_columns_shows_the_whole_headline_with_intervals() -> None:
    from pytest_codesearch.report.render.terminal import render_terminal

    lines = render_terminal(four_agents(), None, 200)
    assert lines[0].split()[:8] == ["agent", "ndcg@10", "mrr", "hit@1", "hit@5", "recall@10", "map", "f1"]
    assert "±" in lines[1] and not any(line.startswith("omitted") for line in lines)
    assert all(len(line) <= 200 for line in lines)


def test_terminal_at_80_columns_keeps_ranking_quality_and_says_what_it_left_out() -> None:
    from pytest_codesearch.report.render.terminal import render_terminal

    lines = render_terminal(four_agents(), None, 80)
    assert all(len(line) <= 80 for line in lines[:6])  # the table and the omitted line
    assert lines[0].split()[:3] == ["agent", "ndcg@10", "mrr"]
    assert "p50 ms" in lines[0]
    omitted = [line for line in lines if line.startswith("omitted")]
    assert len(omitted) == 1 and omitted[0].startswith("omitted at 80 columns: ± intervals, ")
    shown = set(lines[0].replace(" ms", "_ms").split())
    for name in omitted[0].split(": ", 1)[1].removesuffix(" (summary.md has them)").split(", ")[1:]:
        assert name.replace(" ms", "_ms") not in shown
