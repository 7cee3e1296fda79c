"""Latency counts the cases an agent failed: a timeout at least its budget, an error or crash its elapsed time."""

from __future__ import annotations

import pytest

from pytest_codesearch.report.model import CaseResult
from pytest_codesearch.report.table import case_latency, latency_summary
from pytest_codesearch.status import Status


def _case(n: int, status: Status, latency: float | None = None, elapsed: float | None = None) -> CaseResult:
    return CaseResult(
        id=f"c{n}", goldset="g", agent="a", query="q", nodeid=f"g::c{n}[a]", ground_truth=["a.py"],
        relevance={"a.py": 1}, retrieved=[], status=status, latency_ms=latency,
        latencies_ms=[] if latency is None else [latency], elapsed_ms=elapsed, index_ms=None, metrics={},
    )  # fmt: skip


def test_each_case_counts_what_it_cost() -> None:
    assert case_latency(_case(1, Status.OK, latency=2.5)) == 2.5
    assert case_latency(_case(2, Status.TIMEOUT, elapsed=1000.4)) == 1000.4
    assert case_latency(_case(3, Status.CRASHED, elapsed=7.0)) == 7.0
    assert case_latency(_case(4, Status.ERROR, elapsed=0.25)) == 0.25
    assert case_latency(_case(5, Status.ERROR)) is None  # never reached the agent (a missing snapshot)
    assert case_latency(_case(6, Status.CRASHED)) is None  # its xdist worker died: nothing was measured
    assert case_latency(_case(7, Status.NOT_RUN, elapsed=3.0)) is None


def test_the_summary_takes_failed_cases_at_their_cost() -> None:
    """Latencies 1, 3 (answered) and 1000 (a timeout); the error without a time is left out.

    p50 = 3; p90 = 3 + 0.8 * (1000 - 3) = 800.6 and p99 = 3 + 0.98 * 997 = 980.06 (linear
    interpolation at positions 1.8 and 1.98 of three values); mean = 1004 / 3.
    """
    cases = [_case(1, Status.OK, latency=1.0), _case(2, Status.OK, latency=3.0),
             _case(3, Status.TIMEOUT, elapsed=1000.0), _case(4, Status.ERROR)]  # fmt: skip
    summary = latency_summary(cases)
    assert summary.p50 == 3.0
    assert summary.p90 == pytest.approx(800.6)
    assert summary.p99 == pytest.approx(980.06)
    assert summary.mean == pytest.approx(1004 / 3)


def test_an_agent_with_no_known_cost_has_no_latency() -> None:
    summary = latency_summary([_case(1, Status.ERROR), _case(2, Status.CRASHED)])
    assert (summary.p50, summary.p90, summary.p99, summary.mean) == (None, None, None, None)
