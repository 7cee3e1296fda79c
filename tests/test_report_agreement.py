"""Every writer shows what the report decided: the same status counts, the same recommendations."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from example_project import read_results, write_project

MIXED = """
import os
import time
import pytest_codesearch as pcs

def _behave(query):
    if query == "sleep":
        time.sleep(30)   # past the deadline: killed, status timeout
    elif query == "die":
        os._exit(3)      # the child process dies: status crashed
    return ["src/app.py"]

@pcs.agent(name="mixed")
def mixed():
    return _behave
"""
ONE_OF_EACH = [
    {"id": "answers", "query": "answer", "ground_truth_files": ["src/app.py"]},
    {"id": "sleeps", "query": "sleep", "ground_truth_files": ["src/app.py"]},
    {"id": "dies", "query": "die", "ground_truth_files": ["src/app.py"]},
]
BUDGET_S = 0.25


def embedded_cases(page: str) -> dict[str, Any]:
    """Return the case data report.html embeds for its script."""
    found = re.search(r'<script type="application/json" id="case-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@pytest.mark.parametrize("dist", ["-n0", pytest.param("-n2", marks=pytest.mark.slow)])
def test_one_ok_one_timeout_one_crash_are_counted_alike_everywhere(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], dist: str
) -> None:
    write_project(pytester.path, ONE_OF_EACH)
    make_conftest(MIXED)
    result = pytester.runpytest(
        "--codesearch-agent=mixed", "--codesearch-isolate=process", f"--codesearch-timeout={BUDGET_S}",
        "--codesearch-runs=1", "--codesearch-no-save", dist,
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=2)
    data = read_results(pytester.path)
    assert data["status_counts"] == {"ok": 1, "error": 0, "timeout": 1, "crashed": 1, "not_run": 0}
    counts = data["agents"]["mixed"]["counts"]
    assert (counts["cases"], counts["ok"], counts["error"], counts["timeout"], counts["crashed"]) == (3, 1, 0, 1, 1)
    cases = {c["id"]: c for c in data["cases"]}
    assert cases["answers"]["elapsed_ms"] is None
    assert cases["sleeps"]["elapsed_ms"] >= BUDGET_S * 1000  # a timeout costs at least its budget
    assert cases["dies"]["elapsed_ms"] is not None

    result.stdout.re_match_lines([r"agent\s+.*\s+ok/timeout/crashed$", r"mixed\s+.*\s+1/1/1$"])
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text(encoding="utf-8")
    results_table = summary.split("## Results\n\n", 1)[1].splitlines()
    assert results_table[0].endswith("| p50 ms | p90 ms | ok / timeout / crashed |")
    assert results_table[2].endswith(" | 1 / 1 / 1 |")
    assert "| mixed | 3 | 1 | 0 | 1 | 1 | 0 | 0 |" in summary  # cases, ok, error, timeout, crashed, not_run
    assert "- Cases: 3 (1 ok, 1 timeout, 1 crashed)" in summary

    page = (pytester.path / "codesearch-report" / "report.html").read_text(encoding="utf-8")
    assert "3 results (1 ok, 1 timeout, 1 crashed)" in page
    header = page.split('<table class="agents">', 1)[1].split("</thead>", 1)[0]
    assert "<th>ok</th><th>timeout</th><th>crashed</th><th>nondet.</th>" in header
    embedded = embedded_cases(page)
    assert embedded["statuses"] == ["ok", "error", "timeout", "crashed", "not_run"]
    answers = [row[7][0] for row in embedded["cases"]]
    assert Counter(answer[0] for answer in answers) == {"ok": 1, "timeout": 1, "crashed": 1}


RECOMMENDED = """
import time
import pytest_codesearch as pcs

@pcs.agent(name="flaky")
def flaky():
    def search(query):
        if query != "case 0":
            time.sleep(30)   # past the budget on three cases of four
        return ["src/app.py"]
    return search

@pcs.agent(name="steady")
def steady():
    def search(query):
        time.sleep(0.005)    # slower than flaky's one answer, far below its budget
        return ["src/app.py"]
    return search
"""


def test_an_agent_that_times_out_on_most_cases_is_not_recommended(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    """Counted over its one answer, flaky would be the fastest and the best balance; its timeouts count."""
    write_project(pytester.path, [{"id": f"c{n}", "query": f"case {n}", "ground_truth_files": ["src/app.py"]}
                                  for n in range(4)])  # fmt: skip
    make_conftest(RECOMMENDED)
    result = pytester.runpytest(
        "--codesearch-agent=flaky,steady", "--codesearch-isolate=none", "--codesearch-timeout=0.2",
        "--codesearch-runs=1", "--codesearch-seed=1", "--codesearch-no-save",
    )  # fmt: skip
    result.assert_outcomes(passed=5, failed=3)
    data = read_results(pytester.path)
    assert data["agents"]["flaky"]["latency_ms"]["p50"] >= 200.0  # three timeouts of 4 cases, each >= 200 ms
    picks = data["recommendations"]
    assert picks["metric"] == "ndcg@10"
    assert {kind: picks[kind]["agent"] for kind in ("quality", "speed", "balance")} == {
        "quality": "steady", "speed": "steady", "balance": "steady",
    }  # fmt: skip
    speed, balance = picks["speed"], picks["balance"]
    assert (speed["kind"], speed["metric"], speed["runner_up"]) == ("speed", "latency_ms.p50", "flaky")
    assert speed["value"] == data["agents"]["steady"]["latency_ms"]["p50"]
    assert speed["runner_up_value"] == data["agents"]["flaky"]["latency_ms"]["p50"]
    assert (balance["metric"], balance["value"], balance["runner_up_value"]) == ("balance", 1.0, 0.0)
    assert picks["quality"]["value"] == 1.0 and picks["quality"]["runner_up_value"] == 0.25

    result.stdout.fnmatch_lines(["Best quality: steady (*", "Fastest: steady (*", "Best balance: steady (*"])
    summary = (pytester.path / "codesearch-report" / "summary.md").read_text(encoding="utf-8")
    section = summary.split("## Recommendations\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(" (", 1)[0] for line in section] == [
        "- Best quality: steady", "- Fastest: steady", "- Best balance: steady",
    ]  # fmt: skip
    page = (pytester.path / "codesearch-report" / "report.html").read_text(encoding="utf-8")
    shown = re.findall(r'data-kind="(\w+)">\n<strong>[^<]*</strong>\n<span class="agent">(\w+)</span>', page)
    assert shown == [("quality", "steady"), ("speed", "steady"), ("balance", "steady")]


def test_results_json_says_when_no_pick_applies(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save")
    result.assert_outcomes(passed=3)
    picks = read_results(pytester.path)["recommendations"]
    assert picks == {"metric": "ndcg@10", "quality": None, "speed": None, "balance": None}
    assert 'id="recommendations"' not in (pytester.path / "codesearch-report" / "report.html").read_text()
