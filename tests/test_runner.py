"""The agent runner as users meet it: budgets, what agents return beside files, agents that raise."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from example_project import read_results
from pytest_codesearch.agents.adapter import adapt_agent, takes_repo_path
from pytest_codesearch.runner.base import AgentError, AgentTimeout
from pytest_codesearch.runner.deadline import deadline
from pytest_codesearch.runner.inprocess import run_agent_code

SLOW_INDEX = """
import time
import pytest_codesearch as pcs

class SlowIndex:
    def initialize(self, repo_path):
        with open("initialize.log", "a") as log:
            log.write(repo_path + "\\n")
        time.sleep({index_s})
    def retrieve(self, query):
        return ["src/app.py"]
    def reset(self):
        pass

@pcs.agent(name="slow-index")
def slow_index():
    return SlowIndex()
"""


def test_indexing_has_its_own_budget_apart_from_retrieval(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(SLOW_INDEX.format(index_s=1.5))
    result = pytester.runpytest("--codesearch-agent=slow-index", "--codesearch-timeout=1", "--codesearch-runs=1")
    result.assert_outcomes(passed=3)
    cases = read_results(pytester.path)["cases"]
    assert [c["status"] for c in cases] == ["ok", "ok", "ok"]
    assert max(c["index_ms"] for c in cases) >= 1500


def test_an_index_over_its_budget_times_out_every_case_of_the_snapshot_once(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(SLOW_INDEX.format(index_s=5))
    result = pytester.runpytest("--codesearch-agent=slow-index", "--codesearch-index-timeout=0.3")
    result.assert_outcomes(failed=3)
    cases = read_results(pytester.path)["cases"]
    assert {c["status"] for c in cases} == {"timeout"}
    errors = sorted(c["error"] for c in cases)
    assert errors[0] == "initializing took longer than its budget of 0.3 s"
    assert errors[1:] == [errors[0] + " (earlier in this process; not retried for this snapshot)"] * 2
    assert len((pytester.path / "initialize.log").read_text().splitlines()) == 1  # not once per case


def test_answer_extras_reach_the_case_record(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="rich")
        def rich():
            def search(query):
                return pcs.RetrievalResult(
                    files=["nope.py", "src/app.py", "./src/app.py", "src/routes.py"],
                    scores=[4.0, 3.0, 2.5, 1.0],
                    spans=[pcs.Span("src/app.py", 1, 2)],
                    symbols=["app.create_app"],
                    metadata={"tokens_in": 120, "cost_usd": 0.002, "model": {"name": "m", "tags": ["a"]}},
                )
            return search
        """
    )
    result = pytester.runpytest("--codesearch-agent=rich", "-k", "app", "-n", "2")
    result.assert_outcomes(passed=1)
    (case,) = read_results(pytester.path)["cases"]
    assert case["retrieved"] == ["src/app.py", "src/routes.py"]
    assert case["scores"] == [3.0, 1.0]
    assert case["spans"] == [["src/app.py", 1, 2]]
    assert case["symbols"] == ["app.create_app"]
    assert case["metadata"] == {"tokens_in": 120, "cost_usd": 0.002, "model": {"name": "m", "tags": ["a"]}}


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_metadata_that_cannot_be_stored_is_an_error_naming_the_key(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], dist: str
) -> None:
    make_conftest(
        """
        from pathlib import Path
        import pytest_codesearch as pcs

        @pcs.agent(name="pathy")
        def pathy():
            def search(query):
                return pcs.RetrievalResult(files=["src/app.py"], metadata={"log": Path("/tmp/x")})
            return search
        """
    )
    result = pytester.runpytest("--codesearch-agent=pathy", dist)
    result.assert_outcomes(failed=3)
    assert "INTERNALERROR" not in result.stdout.str()
    cases = read_results(pytester.path)["cases"]
    assert {c["status"] for c in cases} == {"error"}
    assert cases[0]["error"] == (
        "agent 'pathy' returned metadata['log']: a pathlib.PosixPath value, which is not JSON-native: "
        "use str, int, float, bool, None, list or dict"
    )


def test_keyboard_interrupt_raised_by_the_agent_is_its_error_not_the_end(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest
        import pytest_codesearch as pcs

        @pcs.agent(name="rude")
        def rude():
            def search(query):
                if query == "login view":
                    raise KeyboardInterrupt
                if query == "create the flask app":
                    pytest.exit("agent says stop")
                return ["src/auth/password.py"]
            return search
        """
    )
    result = pytester.runpytest("--codesearch-agent=rude", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2)
    statuses = {c["id"]: (c["status"], c["error"]) for c in read_results(pytester.path)["cases"]}
    assert statuses["login"] == ("error", "KeyboardInterrupt: ")
    assert statuses["app"] == ("error", "Exit: agent says stop")
    assert statuses["password"] == ("ok", None)


def test_deadline_interrupts_python_code_and_restores_the_outer_timer() -> None:
    import signal

    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 5.0)
        with pytest.raises(AgentTimeout, match=r"^retrieving took longer than its budget of 0.05 s$"):
            run_agent_code("retrieving", lambda: time.sleep(2), 0.05)
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 4.0 < remaining <= 5.0  # the outer (pytest-timeout style) timer still runs
        assert signal.getsignal(signal.SIGALRM) is not None and fired == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_earlier_outer_deadline_calls_its_own_handler() -> None:
    import signal

    class OuterTimeout(Exception):
        pass

    def outer(signum: int, frame: object) -> None:
        raise OuterTimeout

    previous = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(OuterTimeout), deadline(5.0):
            time.sleep(2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_agent_exceptions_are_chained_to_agent_error() -> None:
    def broken() -> None:
        raise ValueError("bad index")

    with pytest.raises(AgentError, match="^while initializing$") as caught:
        run_agent_code("initializing", broken)
    assert isinstance(caught.value.__cause__, ValueError)


FLAKY = """
import pytest_codesearch as pcs

class RateLimited(Exception):
    pass

class BadKey(pcs.NonRetryableError):
    pass

calls = {{}}

def search(query):
    calls[query] = calls.get(query, 0) + 1
    if query == "login view" and calls[query] <= 2:
        raise RateLimited(f"429, attempt {{calls[query]}}")
    if query == "create the flask app":
        raise BadKey("invalid API key")
    return ["src/app.py"]

@pcs.agent(name="flaky")
def flaky():
    return search
"""


@pytest.mark.parametrize("isolate", ["none", "process"])
def test_retries_ask_again_after_retryable_errors_only(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], isolate: str
) -> None:
    make_conftest(FLAKY.format())
    result = pytester.runpytest(
        "--codesearch-agent=flaky", "--codesearch-retries=2", "--codesearch-runs=1", f"--codesearch-isolate={isolate}"
    )
    result.assert_outcomes(passed=2, failed=1)
    cases = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert (cases["login"]["status"], cases["login"]["attempts"]) == ("ok", 3)
    assert cases["login"]["retry_errors"] == ["RateLimited: 429, attempt 1", "RateLimited: 429, attempt 2"]
    assert (cases["app"]["status"], cases["app"]["attempts"], cases["app"]["error"]) == (
        "error", 1, "BadKey: invalid API key"
    )
    assert (cases["password"]["attempts"], cases["password"]["retry_errors"]) == (1, [])


def test_long_answers_are_cut_and_invalid_paths_counted(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="verbose")
        def verbose():
            return lambda query: ["../../etc/passwd", "/etc/passwd", "src/app.py", "src/app.py"] + [
                f"ghost{i}.py" for i in range(100_000)
            ]
        """
    )
    result = pytester.runpytest("--codesearch-agent=verbose", "--codesearch-runs=1", "-k", "app")
    result.assert_outcomes(passed=1)
    data = read_results(pytester.path)
    (case,) = data["cases"]
    assert case["retrieved"] == ["src/app.py"]
    assert case["answer_cut_from"] == 100_004
    assert case["invalid_paths"] == 1000 - 2  # the bound keeps 1,000 entries: two are the file, once each
    assert len(case["dropped"]) == 1000 - 2 and case["dropped"][:2] == ["../../etc/passwd", "/etc/passwd"]
    assert data["warnings"][-2:] == [
        "agent verbose: 1 answer(s) longer than the bound were cut (longest 100,004)",
        "agent verbose: 998 answer entries named no file of the snapshot and were dropped",
    ]


class _Callable:
    def __call__(self, query: str, repo_path: str) -> list[str]:
        return [repo_path]


def _query_only(query: str) -> list[str]:
    return []


def _with_path(query: str, repo_path: str) -> list[str]:
    return []


def _optional_path(query: str, repo_path: str | None = None) -> list[str]:
    return []


def _top_k(query: str, k: int = 10) -> list[str]:
    return []


def _star(*args: str) -> list[str]:
    return []


async def _async_with_path(query: str, root: str) -> list[str]:
    return [root]


@pytest.mark.parametrize(
    ("agent", "takes"),
    [(_query_only, False), (_with_path, True), (_optional_path, True), (_top_k, False), (_star, False),
     (_async_with_path, True), (_Callable(), True), (len, False)],
)
def test_a_callable_takes_the_snapshot_path_when_its_second_parameter_says_so(agent: Any, takes: bool) -> None:
    assert takes_repo_path(agent) is takes


class _ReadsAView:
    needs_directory = False

    def __call__(self, query: str, repo_path: str) -> list[str]:
        return []


@pytest.mark.parametrize(
    ("agent", "needs"),
    [(_query_only, False), (_top_k, False), (_with_path, True), (_async_with_path, True), (_Callable(), True),
     (_ReadsAView(), False)],
)
def test_only_an_agent_told_the_directory_needs_one_unless_it_says_otherwise(agent: Any, needs: bool) -> None:
    assert adapt_agent("a", agent).needs_directory is needs


def test_a_callable_taking_the_path_is_called_with_the_directory_it_was_last_given() -> None:
    handle = adapt_agent("paths", _async_with_path)
    handle.initialize("/snapshots/aaa")
    assert handle.retrieve("q") == ["/snapshots/aaa"]
    handle.initialize("/snapshots/bbb")
    assert handle.retrieve("q") == ["/snapshots/bbb"]
    handle.close()
