"""Progress lines while cases run: total, rate, time left and indexing, only where a person reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.session import progress
from pytest_codesearch.session.progress import CollectProgress, Progress, collected_line, format_duration
from example_project import write_project
from report_cases import make_report


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_interval_with_rate_time_left_and_indexing() -> None:
    clock = Clock()
    cases = make_report(20, agents=("bm25",)).cases
    counter = Progress(clock=clock, interval=10.0, total=20)
    first = cases[0].model_copy(update={"indexed": True, "index_ms": 4500.0})
    clock.now += 2.0
    assert counter.count(first.agent, first.index_ms) is None  # not due yet
    for case in cases[1:4]:
        clock.now += 2.0
        assert counter.count(case.agent, None) is None
    clock.now += 2.0  # 10 s after the start: 5 cases, 0.5/s, 15 left
    assert counter.count(cases[4].agent, None) == (
        "codesearch: 5 of 20 cases (25%), 0.5/s, about 30 s left; indexing bm25 1 snapshot in 4.5 s (4.50 s each)"
    )
    clock.now += 100.0
    assert counter.count(cases[5].agent, None) == (
        "codesearch: 6 of 20 cases (30%), 0.1/s, about 4 min 17 s left; indexing bm25 1 snapshot in 4.5 s (4.50 s each)"
    )


def test_indexing_is_shown_per_agent() -> None:
    clock = Clock()
    counter = Progress(clock=clock, interval=10.0, total=100)
    cases = make_report(2, agents=("bm25", "keyword")).cases
    spent = {"bm25": 3000.0, "keyword": 500.0}
    for case in cases:
        counter.count(case.agent, spent[case.agent])
    assert counter.line(clock.now + 1.0).endswith(
        "; indexing bm25 2 snapshots in 6.0 s (3.00 s each), keyword 2 snapshots in 1.0 s (0.50 s each)"
    )


def test_collection_lines_give_each_phase_its_total_rate_and_time_left() -> None:
    clock, lines = Clock(), []
    tracker = CollectProgress("goldsets/big.jsonl", lines.append, clock=clock, interval=10.0)
    clock.now += 10.0
    tracker.step("reading entries", 5_000, 20_000)  # 500/s over 10 s: 30 s left
    clock.now += 5.0
    tracker.step("reading entries", 7_500, 20_000)  # not due
    clock.now += 6.0
    tracker.step("collecting cases", 512, 20_000)  # a new phase: no rate until it ran a while
    clock.now += 4.0
    tracker.step("collecting cases", 8_000, 20_000)  # 2,000/s over 4 s
    tracker.step("collecting cases", 20_000, 20_000)  # done: the end line says the rest
    assert lines == [
        "codesearch: reading goldsets/big.jsonl: 5,000 of 20,000 entries (25%), 500/s, about 30 s left",
        "codesearch: collecting goldsets/big.jsonl: 8,000 of 20,000 cases (40%), 2,000/s, about 6 s left",
    ]
    assert collected_line(43_092, 2, 1, 29.5) == (
        "codesearch: collected 43,092 cases x 2 agents from 1 gold set in 29.5 s (1,461 cases/s)"
    )


def test_durations_read_as_people_say_them() -> None:
    assert [format_duration(s) for s in (0.4, 45, 170, 120, 3900, 7200)] == [
        "0 s", "45 s", "2 min 50 s", "2 min", "1 h 5 min", "2 h"
    ]  # fmt: skip


def test_progress_lines_print_when_asked_and_not_in_a_log(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "INTERVAL_S", 0.0)
    asked = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save", "--codesearch-progress=on")
    asked.assert_outcomes(passed=3)
    asked.stdout.fnmatch_lines(["codesearch: 1 of 3 cases (33%), *? s left*", "codesearch: 2 of 3 cases (67%), *"])
    assert "3 of 3 cases" not in asked.stdout.str()  # the summary follows at once
    quiet = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save")  # auto: not a terminal
    quiet.assert_outcomes(passed=3)
    assert "cases (" not in quiet.stdout.str()


def test_a_long_collection_says_how_far_it_is_past_pytest_capture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [{"id": f"c{n}", "query": "add numbers", "ground_truth_files": ["src/app.py"]} for n in range(1100)]
    write_project(pytester.path, cases)
    for name in ("INTERVAL_S", "MIN_PHASE_S", "COLLECT_LINE_S"):
        monkeypatch.setattr(progress, name, 0.0)
    result = pytester.runpytest("--codesearch-agent=oracle", "--collect-only", "-q", "--codesearch-progress=on")
    result.stdout.fnmatch_lines([
        "codesearch: reading cases.jsonl: 512 of 1,101 entries (47%), *",
        "codesearch: reading cases.jsonl: 1,024 of 1,101 entries (93%), *",
        "codesearch: collecting cases.jsonl: 512 of 1,100 cases (47%), *",
        "codesearch: collecting cases.jsonl: 1,024 of 1,100 cases (93%), *",
    ])  # fmt: skip
    result.stdout.fnmatch_lines(["codesearch: collected 1,100 cases x 1 agent from 1 gold set in * s (*cases/s)"])
    quiet = pytester.runpytest("--codesearch-agent=oracle", "--collect-only", "-q")  # auto, not a terminal
    assert "codesearch: reading" not in quiet.stdout.str() and "codesearch: collected" not in quiet.stdout.str()
