"""Interrupted runs: the journal keeps every completed case; --codesearch-resume runs only the rest."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from example_project import read_results, write_project

CASES = [{"id": f"c{i}", "query": f"q{i}", "ground_truth_files": ["src/app.py"]} for i in range(12)]

# The agent interrupts the run (a Ctrl-C sent to its own process, or a failure under --maxfail) when
# the file "interrupt" exists and it is asked q7; it logs every query it answers.
INTERRUPTING = """
import os
import signal
from pathlib import Path
import pytest_codesearch as pcs

def search(query):
    if query == "q7" and Path("interrupt").exists():
        Path("interrupt").unlink()
        if Path("ctrl-c").exists():
            os.kill(os.getpid(), signal.SIGINT)
        raise RuntimeError("flaky once")
    with open("answered.log", "a") as log:
        log.write(query + "\\n")
    return ["src/app.py"] if int(query[1:]) % 2 else ["src/routes.py", "src/app.py"]

@pcs.agent(name="steady")
def steady():
    return search
"""


def _scores(root: Path) -> dict[str, tuple[str, dict[str, float]]]:
    return {c["id"]: (c["status"], c["metrics"]) for c in read_results(root)["cases"]}


@pytest.mark.slow
@pytest.mark.parametrize(("dist", "interrupt"), [("-n0", "ctrl-c"), ("-n2", "maxfail")])
def test_an_interrupted_run_resumed_equals_an_uninterrupted_one(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], dist: str, interrupt: str
) -> None:
    write_project(pytester.path, CASES)
    make_conftest(INTERRUPTING)
    common = ["--codesearch-agent=steady", "--codesearch-seed=5", "--codesearch-runs=1", dist, "-p", "no:cacheprovider"]
    full = pytester.runpytest_subprocess(*common)
    full.assert_outcomes(passed=12)
    expected = _scores(pytester.path)

    (pytester.path / "answered.log").unlink()
    (pytester.path / "interrupt").touch()
    if interrupt == "ctrl-c":
        (pytester.path / "ctrl-c").touch()
    first = pytester.runpytest_subprocess(*common, *(["--maxfail=1"] if interrupt == "maxfail" else []))
    assert first.ret in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED)
    partial = read_results(pytester.path)
    assert partial["incomplete"] is True
    done_first = (pytester.path / "answered.log").read_text().split()
    journal = (pytester.path / "codesearch-report" / "journal.jsonl").read_text().splitlines()
    assert len([line for line in journal if line.startswith('{"case"')]) == len(partial["cases"])

    resumed = pytester.runpytest_subprocess(*[a for a in common if a != "--codesearch-seed=5"], "--codesearch-resume")
    resumed.stdout.fnmatch_lines(["codesearch: resuming the run of *: * completed case(s) reused"])
    answered = (pytester.path / "answered.log").read_text().split()
    final = read_results(pytester.path)
    failed_once = [c["id"] for c in final["cases"] if c["status"] != "ok"]
    # each query answered exactly once over both runs (one that failed in the first run is not asked again)
    assert sorted(answered) == sorted(f"q{i}" for i in range(12) if f"c{i}" not in failed_once)
    assert len(answered) - len(done_first) < 12
    assert final["incomplete"] is False and final["not_run"] == []
    assert {k: v for k, v in _scores(pytester.path).items() if v[0] == "ok"} == {
        k: v for k, v in expected.items() if k in {c["id"] for c in final["cases"] if c["status"] == "ok"}
    }
    assert len(final["cases"]) == 12 and final["run"]["seed"] == 5
    assert failed_once in ([], ["c7"])  # a case that failed in the first run is kept as it ended
    assert resumed.ret == (pytest.ExitCode.TESTS_FAILED if failed_once else pytest.ExitCode.OK)


def test_resume_without_an_earlier_run_runs_everything(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-resume")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["codesearch: no earlier run in *journal.jsonl: running every case"])


def test_resume_refuses_a_goldset_that_changed_since(pytester: pytest.Pytester) -> None:
    goldset = write_project(pytester.path)
    pytester.runpytest("--codesearch-agent=oracle").assert_outcomes(passed=3)
    goldset.write_text(goldset.read_text() + json.dumps({"id": "new", "query": "x", "ground_truth_files": ["src/app.py"]}) + "\n")
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        f"ERROR: --codesearch-resume: {goldset.name} changed since the interrupted run; its cases are not the ones "
        "that run had: run without --codesearch-resume"
    ])


def test_resuming_a_complete_run_runs_nothing_and_records_exit_status_0(pytester: pytest.Pytester) -> None:
    write_project(pytester.path)
    pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1").assert_outcomes(passed=3)
    resumed = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1", "--codesearch-resume")
    assert resumed.ret == 0
    results = read_results(pytester.path)
    assert (results["run"]["exit_status"], results["incomplete"], len(results["cases"])) == (0, False, 3)
