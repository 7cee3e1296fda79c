"""``-n 2 --dist loadgroup``: each snapshot on one worker, every case run once, a crashed worker's group finished.

xdist's own group scheduler runs the case that killed a worker again on every replacement, until
``--max-worker-restart`` ends the run, and can leave a replacement worker waiting for ever.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from example_project import CASES, read_results, write_project

AGENT = """
import os
import pytest_codesearch as pcs

@pcs.agent(name="fragile")
def fragile():
    def search(query):
        if query == "exit":
            os._exit(3)
        return ["src/app.py"]
    return search
"""


@pytest.mark.slow
def test_groups_run_once_each_and_a_crash_costs_only_its_case(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    # three repositories, so three snapshot groups; the middle one holds two cases that kill their worker
    for name in ("a", "b", "c"):
        crash = [{"id": f"exit{n}", "query": "exit", "ground_truth_files": ["src/app.py"]} for n in (1, 2)]
        crash = crash if name == "b" else []
        write_project(pytester.path / name, [*CASES, *crash])
    make_conftest(AGENT)
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=fragile", "--codesearch-runs=1", "-p", "xdist", "-n", "2", "--dist", "loadgroup",
        "a", "b", "c",
    )
    result.assert_outcomes(passed=9, failed=2)
    assert "spreads the cases" not in result.stdout.str()  # no hint to use the --dist already given
    data = read_results(pytester.path)
    status = sorted((c["goldset"], c["id"], c["status"]) for c in data["cases"])
    expected = [(f"{name}/cases.jsonl", case, "ok") for name in "abc" for case in ("app", "login", "password")]
    assert status == sorted([*expected, ("b/cases.jsonl", "exit1", "crashed"), ("b/cases.jsonl", "exit2", "crashed")])
    assert data["not_run"] == [] and data["incomplete"] is False
    workers: dict[str, set[str]] = {"a/cases.jsonl": set(), "c/cases.jsonl": set()}
    for case in data["cases"]:
        if case["goldset"] in workers:
            workers[case["goldset"]].add(case["worker"])
    assert all(len(found) == 1 for found in workers.values()), workers  # a group stays on one worker
