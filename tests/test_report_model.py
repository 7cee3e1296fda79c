"""The report models and their aggregation: exact figures on hand-made cases."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pydantic
import pytest

from pytest_codesearch.report import HEADLINE_METRICS, headline_metrics
from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.model import (
    AgentInfo,
    CaseResult,
    InvalidEntry,
    RunInfo,
    RunReport,
)
from pytest_codesearch.report.schema import render_schema

METRICS = ["f1", "mrr", "hit@1"]
SCHEMA_FILE = Path(__file__).parent.parent / "docs" / "results.schema.json"


def make_case(case_id: str, agent: str, **fields: Any) -> CaseResult:
    """Return an ok case of gold set 'flask' with neutral defaults, overridden by ``fields``."""
    values: dict[str, Any] = {
        "id": case_id,
        "goldset": "flask",
        "agent": agent,
        "query": f"where is {case_id}",
        "nodeid": f"goldsets/flask.jsonl::{case_id}[{agent}]",
        "ground_truth": ["src/app.py"],
        "relevance": {"src/app.py": 1},
        "retrieved": ["src/app.py"],
        "status": "ok",
        "latency_ms": 1.0,
        "latencies_ms": [1.0, 1.0, 1.0],
        "index_ms": None,
        "metrics": {},
    }
    values.update(fields)
    return CaseResult(**values)


def run_info(*agents: str) -> RunInfo:
    """Return run settings naming ``agents``."""
    return RunInfo(
        seed=42,
        runs=3,
        k=None,
        ks=[1, 5, 10],
        started_at="2024-05-01T10:00:00Z",
        finished_at="2024-05-01T10:01:00Z",
        versions={"python": "3.12.3", "pytest-codesearch": "0.1.0"},
        goldsets=["flask"],
        agents={a: AgentInfo(fixture=a, source="conftest.py") for a in agents},
        workers=2,
    )


def scores(f1: float, mrr: float, hit: float) -> dict[str, float]:
    """Return a metrics dict over METRICS."""
    return {"f1": f1, "mrr": mrr, "hit@1": hit}


def sample_cases() -> list[CaseResult]:
    """Two agents: bm25 with one error case on one worker, grep on two workers."""
    return [
        make_case("c1", "bm25", metrics=scores(0.5, 1.0, 1.0), latency_ms=10.0,
                  index_ms=100.0, indexed=True, worker="gw0"),
        make_case("c2", "bm25", metrics=scores(1.0, 0.5, 0.0), latency_ms=20.0,
                  index_ms=100.0, worker="gw0", nondeterministic=True),
        make_case("c3", "bm25", status="error", latency_ms=None, latencies_ms=[],
                  error="TimeoutError: agent took too long", worker="gw0"),
        make_case("c1", "grep", metrics=scores(0.25, 0.25, 0.0), latency_ms=1.0,
                  index_ms=5.0, indexed=True, worker="gw0"),
        make_case("c2", "grep", metrics=scores(0.75, 1.0, 1.0), latency_ms=3.0,
                  index_ms=7.0, indexed=True, worker="gw1"),
        make_case("c3", "grep", metrics=scores(0.5, 1 / 3, 0.0), latency_ms=2.0,
                  index_ms=5.0, worker="gw0"),
    ]  # fmt: skip


def sample_report(cases: list[CaseResult] | None = None) -> RunReport:
    """Return the report of ``sample_cases`` (or ``cases``)."""
    return build_run_report(run_info("bm25", "grep"), sample_cases() if cases is None else cases,
                            METRICS)  # fmt: skip


def test_error_case_scores_zero_in_every_metric() -> None:
    bm25 = sample_report().agents["bm25"]
    # f1 over [0.5, 1.0, 0.0]; an all-0.0 and an all-1.0 resample each come up 1 time in 27
    # (more than 2.5%), so the interval spans the whole range
    f1 = {"mean": 0.5, "median": 0.5, "std": 0.5, "ci95": [0.0, 1.0], "n": 3}
    assert bm25.metrics["f1"].model_dump() == f1
    assert bm25.metrics["mrr"].model_dump() == {**f1, "ci95": [0.0, 1.0]}
    hit = bm25.metrics["hit@1"]
    assert hit.mean == pytest.approx(1 / 3)
    assert hit.median == 0.0
    assert hit.std == pytest.approx(math.sqrt(1 / 3))


def test_metrics_of_an_agent_without_errors() -> None:
    f1 = sample_report().agents["grep"].metrics["f1"]
    assert (f1.mean, f1.median, f1.std) == (0.5, 0.5, 0.25)


def test_latency_excludes_the_error_case() -> None:
    latency = sample_report().agents["bm25"].latency_ms
    assert (latency.p50, latency.mean) == (15.0, 15.0)
    assert latency.p90 == pytest.approx(19.0)
    assert latency.p99 == pytest.approx(19.9)


def test_latency_of_an_agent_that_never_answered_is_null() -> None:
    only_error = [make_case("c1", "bm25", status="error", latency_ms=None)]
    latency = build_run_report(run_info("bm25"), only_error, METRICS).agents["bm25"].latency_ms
    assert latency.model_dump() == {"p50": None, "p90": None, "p99": None, "mean": None}


def test_single_case_has_zero_std() -> None:
    one = [make_case("c1", "bm25", metrics=scores(0.5, 1.0, 1.0))]
    summary = build_run_report(run_info("bm25"), one, METRICS).agents["bm25"]
    assert summary.metrics["f1"].std == 0.0


def test_counts_index_time_and_workers() -> None:
    report = sample_report()
    bm25, grep = report.agents["bm25"], report.agents["grep"]
    assert bm25.counts == {
        "cases": 3, "ok": 2, "error": 1, "timeout": 0, "crashed": 0, "not_run": 0, "nondeterministic": 1
    }
    assert bm25.index_ms == {"total": 100.0, "count": 1.0}
    assert grep.index_ms == {"total": 12.0, "count": 2.0}
    assert (bm25.workers, grep.workers) == (1, 2)


def test_agents_follow_run_order_then_unknown_agents() -> None:
    cases = [*sample_cases(), make_case("c1", "aaa-extra", metrics=scores(1.0, 1.0, 1.0))]
    report = build_run_report(run_info("grep", "bm25", "idle"), cases, METRICS)
    assert list(report.agents) == ["grep", "bm25", "idle", "aaa-extra"]
    idle = report.agents["idle"]
    assert idle.metrics == {} and idle.counts["cases"] == 0 and idle.workers == 0


def test_cases_sorted_by_goldset_id_agent() -> None:
    cases = [make_case("b", "x"), make_case("a", "y"), make_case("a", "x", goldset="django")]
    report = build_run_report(run_info("x", "y"), cases, [])
    assert [(c.goldset, c.id, c.agent) for c in report.cases] == [
        ("django", "a", "x"), ("flask", "a", "y"), ("flask", "b", "x"),
    ]  # fmt: skip


def test_report_does_not_depend_on_case_order() -> None:
    expected = sample_report().model_dump_json()
    for seed in range(5):
        shuffled = sample_cases()
        random.Random(seed).shuffle(shuffled)
        assert sample_report(shuffled).model_dump_json() == expected


def test_invalid_and_not_run_are_kept_sorted() -> None:
    invalid = [InvalidEntry(goldset="flask", line=9, case_id=None, error="bad"),
               InvalidEntry(goldset="flask", line=2, case_id="x", error="bad")]  # fmt: skip
    report = build_run_report(run_info(), [], [], invalid=invalid, not_run=["t::b", "t::a"])
    assert [e.line for e in report.invalid] == [2, 9]
    assert report.not_run == ["t::a", "t::b"]


def test_ok_case_without_a_metric_is_refused() -> None:
    broken = [make_case("c1", "bm25", metrics={"f1": 1.0})]
    with pytest.raises(ValueError, match=r"flask.jsonl::c1\[bm25\].*mrr, hit@1"):
        build_run_report(run_info("bm25"), broken, METRICS)


def test_report_round_trips_through_json() -> None:
    report = sample_report()
    assert RunReport.model_validate_json(report.model_dump_json()) == report


def test_case_round_trips_through_json() -> None:
    case = sample_cases()[0]
    assert CaseResult.model_validate_json(case.model_dump_json()) == case


def _assert_builtin(value: object, where: str) -> None:
    """Fail unless ``value`` is made of exact JSON-native builtins only."""
    assert type(value) in (str, int, float, bool, type(None), list, dict), where
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str, where
            _assert_builtin(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _assert_builtin(item, f"{where}[{index}]")


def test_report_holds_only_builtin_values() -> None:
    report = sample_report()
    _assert_builtin(report.model_dump(), "report")
    for summary in report.agents.values():
        assert type(summary.metrics["f1"].std) is float
        assert type(summary.latency_ms.p90) is float


def test_json_numbers_are_plain() -> None:
    data = json.loads(sample_report().model_dump_json())
    assert data["agents"]["grep"]["latency_ms"]["p50"] == 2.0
    assert list(data) == [
        "schema_version", "run", "agents", "headline", "leaders", "comparisons", "power", "warnings", "breakdowns",
        "cases", "invalid", "not_run", "incomplete", "superseded_by", "costs", "success_metric", "status_counts", "recommendations",
    ]  # fmt: skip


def test_non_finite_numbers_are_rejected() -> None:
    with pytest.raises(pydantic.ValidationError):
        make_case("c1", "bm25", metrics={"f1": math.nan})


def test_headline_metrics_keep_only_what_the_report_has() -> None:
    assert headline_metrics(sample_report()) == ["mrr", "hit@1", "f1"]
    assert headline_metrics(sample_report(), ["hit@1", "ndcg@3", "f1"]) == ["hit@1", "f1"]
    assert HEADLINE_METRICS[0] == "ndcg@10"


def test_schema_file_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == render_schema(), (
        "regenerate: python -m pytest_codesearch.report.schema docs/results.schema.json"
    )
