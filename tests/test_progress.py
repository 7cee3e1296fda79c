"""Progress lines while cases run: total, rate, time left and indexing, only where a person reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.session import progress
from pytest_codesearch.session.progress import Progress, format_duration
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
    assert counter.case(first) is None  # not due yet
    for case in cases[1:4]:
        clock.now += 2.0
        assert counter.case(case) is None
    clock.now += 2.0  # 10 s after the start: 5 cases, 0.5/s, 15 left
    assert counter.case(cases[4]) == (
        "codesearch: cases 5 of 20 (25%), 0.5/s, about 30 s left; indexing 4.5 s over 1 snapshot x agent"
    )
    clock.now += 100.0
    assert counter.case(cases[5]) == "codesearch: cases 6 of 20 (30%), 0.1/s, about 4 min 17 s left; indexing 4.5 s over 1 snapshot x agent"


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
    asked.stdout.fnmatch_lines(["codesearch: cases 1 of 3 (33%), *? s left*", "codesearch: cases 2 of 3 (67%), *"])
    assert "cases 3 of 3" not in asked.stdout.str()  # the summary follows at once
    quiet = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save")  # auto: not a terminal
    quiet.assert_outcomes(passed=3)
    assert "codesearch: cases" not in quiet.stdout.str()
