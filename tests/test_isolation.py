"""Hostile agents: hangs, GIL-holding spins, swallowed interrupts, exits and segfaults, contained."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from example_project import read_results, write_project
from gitrepo import commit, init_repo

HOSTILE = """
import ctypes
import os
import time
import pytest_codesearch as pcs

def _behave(query):
    if query == "login view":
        time.sleep(30)                          # sleeps past the deadline
    elif query == "check password hashing":
        sum(range(10 ** 11))                    # one C call holding the GIL
    elif query == "create the flask app":
        end = time.monotonic() + 30
        while time.monotonic() < end:           # swallows every interrupt
            try:
                time.sleep(0.05)
            except BaseException:
                pass
    elif query == "exit":
        os._exit(3)
    elif query == "segfault":
        ctypes.string_at(0)
    return ["src/app.py"]

@pcs.agent(name="hostile")
def hostile():
    return _behave
"""

EXTRA_CASES = [
    {"id": "exit", "query": "exit", "ground_truth_files": ["src/app.py"]},
    {"id": "segfault", "query": "segfault", "ground_truth_files": ["src/app.py"]},
    {"id": "fine", "query": "fine", "ground_truth_files": ["src/app.py"]},
]


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_process_isolation_contains_every_kind_of_misbehaviour(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], dist: str
) -> None:
    from example_project import CASES

    write_project(pytester.path, [*CASES, *EXTRA_CASES])
    make_conftest(HOSTILE)
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=hostile", "--codesearch-isolate=process", "--codesearch-timeout=1",
        "--codesearch-runs=1", dist,
    )
    result.assert_outcomes(passed=1, failed=5)
    data = read_results(pytester.path)
    cases = {c["id"]: c for c in data["cases"]}
    assert len(cases) == 6 and data["not_run"] == []
    for case_id in ("login", "password", "app"):
        assert cases[case_id]["status"] == "timeout", case_id
        assert cases[case_id]["error"] == "retrieving took longer than its budget of 1 s (the child process was killed)"
        assert cases[case_id]["metrics"]["f1"] == 0.0
    assert cases["exit"]["status"] == "crashed"
    assert cases["exit"]["error"] == "the child process running the agent died while retrieving (exit code 3)"
    assert cases["segfault"]["status"] == "crashed"
    assert cases["segfault"]["error"] == "the child process running the agent died while retrieving (SIGSEGV)"
    assert cases["fine"]["status"] == "ok" and cases["fine"]["metrics"]["f1"] == 1.0
    counts = data["agents"]["hostile"]["counts"]
    assert (counts["ok"], counts["timeout"], counts["crashed"]) == (1, 3, 2)


FIXTURE_AGENTS = {
    "signature": """
import os
import pytest_codesearch as pcs

@pcs.agent(name="needs-tmp")
def needs_tmp(tmp_path_factory):
    return lambda query: ["src/app.py", str(os.getpid())]
""",
    "getfixturevalue": """
import os
import pytest_codesearch as pcs

@pcs.agent(name="needs-tmp")
def needs_tmp(request):
    request.getfixturevalue("tmp_path_factory")
    return lambda query: ["src/app.py", str(os.getpid())]
""",
}
"""Agents whose factory uses another fixture (by its signature, or through ``request``): they need the session."""
NEEDS = {
    "signature": "its factory asks for the fixture tmp_path_factory, which exists only in the pytest session",
    "getfixturevalue": "its factory uses request.getfixturevalue('tmp_path_factory'), which exists only in the "
    "pytest session",
}


@pytest.mark.parametrize("kind", ["signature", "getfixturevalue"])
def test_an_agent_needing_session_fixtures_cannot_run_in_a_child_and_the_error_names_the_fallback(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], kind: str
) -> None:
    make_conftest(FIXTURE_AGENTS[kind])
    result = pytester.runpytest("--codesearch-agent=needs-tmp", "--codesearch-isolate=process")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert errors == [
        f"ERROR: agent 'needs-tmp' cannot run in a child process: {NEEDS[kind]}; make it without the session, "
        "or run it in process: --codesearch-isolate=none"
    ]


@pytest.mark.parametrize("kind", ["signature", "getfixturevalue"])
def test_with_a_budget_an_agent_needing_session_fixtures_runs_in_process_and_says_so_once(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], kind: str
) -> None:
    make_conftest(FIXTURE_AGENTS[kind])
    result = pytester.runpytest("--codesearch-agent=needs-tmp,oracle", "--codesearch-timeout=5")
    result.assert_outcomes(passed=6)
    said = [line for line in result.stdout.lines if "needs-tmp" in line and "process" in line]
    soft = "runs in the pytest process, where its budgets are soft"
    assert said == [f"codesearch: agent 'needs-tmp' {soft}: {NEEDS[kind]}"]
    cases = [c for c in read_results(pytester.path)["cases"] if c["agent"] == "needs-tmp"]
    assert [c["dropped"] for c in cases] == [[str(os.getpid())]] * 3  # answered from this (pytest's) process


def test_agent_errors_in_the_child_show_the_agents_traceback(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(
        """
        import pytest_codesearch as pcs

        def broken_search(query):
            raise ValueError(f"no index for {query!r}")

        @pcs.agent(name="broken")
        def broken():
            return broken_search
        """
    )
    result = pytester.runpytest("--codesearch-agent=broken", "--codesearch-isolate=process", "-k", "login")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*in broken_search*", "*ValueError: no index for 'login view'",
        "agent 'broken' raised this while retrieving in its child process (case 'login')",
    ])
    (case,) = read_results(pytester.path)["cases"]
    assert (case["status"], case["error"]) == ("error", "ValueError: no index for 'login view'")


def test_yaml_entry_point_and_parametrized_agents_are_rebuilt_in_the_child(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    (pytester.path / "agents_mod.py").write_text(
        "import os\n"
        "class Pid:\n"
        "    def __init__(self, answer): self.answer = answer\n"
        "    def initialize(self, repo_path): pass\n"
        "    def retrieve(self, query): return [self.answer, str(os.getpid())]\n"
        "    def reset(self): pass\n"
    )
    (pytester.path / "bench.yaml").write_text(
        "agents:\n  - name: pid\n    class: agents_mod:Pid\n    config: {answer: src/app.py}\n"
    )
    site = pytester.path / "site"  # an installed package whose entry point is an agent made by a helper
    (site / "ep_agents-1.0.dist-info").mkdir(parents=True)
    info = site / "ep_agents-1.0.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-agents\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pytest_codesearch.agents]\nfrom-ep = ep_agents:closure\n"
    )
    (site / "ep_agents.py").write_text(
        "import os\n"
        "def made_by_helper(answer):\n"
        "    def factory():\n"
        "        return lambda query: [answer, str(os.getpid())]\n"
        "    return factory\n"
        "closure = made_by_helper('src/routes.py')\n"
    )
    monkeypatch.syspath_prepend(str(site))
    make_conftest(
        """
        import pytest_codesearch as pcs

        @pcs.agent(name="grid", params=["src/app.py", "src/routes.py"], ids=["app", "routes"])
        def grid(request):
            return lambda query: [request.param]
        """
    )
    result = pytester.runpytest(
        "--codesearch-config=bench.yaml", "--codesearch-agent=pid,grid,from-ep", "--codesearch-isolate=process"
    )
    result.assert_outcomes(passed=12)
    cases = {c["agent"]: c for c in read_results(pytester.path)["cases"] if c["id"] == "app"}
    assert cases["grid[app]"]["retrieved"] == ["src/app.py"]
    assert cases["grid[routes]"]["retrieved"] == ["src/routes.py"]
    assert cases["pid"]["retrieved"] == ["src/app.py"]
    assert cases["from-ep"]["retrieved"] == ["src/routes.py"]
    (child_pid,) = cases["pid"]["dropped"]
    (ep_pid,) = cases["from-ep"]["dropped"]
    assert len({child_pid, ep_pid, str(os.getpid())}) == 3  # each agent answered from a process of its own


@pytest.mark.slow
def test_thirty_crashing_cases_under_xdist_are_all_accounted_for(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None]
) -> None:
    write_project(pytester.path, [{"id": f"c{i}", "query": "q", "ground_truth_files": ["src/app.py"]} for i in range(30)])
    make_conftest(
        """
        import os
        import pytest_codesearch as pcs

        @pcs.agent(name="dies")
        def dies():
            def search(query):
                os._exit(3)
            return search
        """
    )
    # One worker, so the crashes come one after another: with two workers dying at the same moment, xdist's own
    # scheduler can fail (INTERNALERROR sending to the dead worker) before it reports the crashed item.
    result = pytester.runpytest_subprocess("--codesearch-agent=dies", "-n", "1", "--max-worker-restart=2")
    assert result.ret != pytest.ExitCode.OK
    data = read_results(pytester.path)
    crashed = [c for c in data["cases"] if c["status"] == "crashed"]
    assert len(crashed) + len(data["not_run"]) == 30  # every collected case: crashed or listed as never run
    # the first worker and its two restarts each crash on their first case; xdist then stops scheduling
    assert (len(crashed), len(data["not_run"]), data["incomplete"]) == (3, 27, True)


CLOSURE_AGENTS = """
import os
import time
import pytest_codesearch as pcs

def agent(name, action):
    # a factory helper: the agents it makes are closures, defined inside this function
    @pcs.agent(name=name)
    def make():
        return action
    return make

def exit_on(fatal_query):
    def action(query):
        if query == fatal_query:
            os._exit(3)
        return ["src/app.py", str(os.getpid())]
    return action

def swallow_for(seconds):
    def action(query):
        end = time.monotonic() + seconds
        while time.monotonic() < end:   # swallows every interrupt, as a retry loop may
            try:
                time.sleep(0.05)
            except BaseException:
                pass
        return ["src/app.py"]
    return action

def make_factory(answer):
    def factory():
        return lambda query: [answer, str(os.getpid())]
    return factory

exiter = agent("exiter", exit_on("login view"))
swallower = agent("swallower", swallow_for(10))
steady = pcs.agent(name="steady")(make_factory("src/auth/login.py"))
"""
"""Agents made by factory helpers: none of their factories is importable by a qualified name."""


@pytest.mark.parametrize("dist", ["-n0", pytest.param("-n2", marks=pytest.mark.slow)])
def test_a_closure_agent_that_exits_crashes_its_case_and_the_run_completes(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None], dist: str
) -> None:
    make_conftest(CLOSURE_AGENTS)
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=exiter,steady", "--codesearch-timeout=5", "--codesearch-runs=1", dist
    )
    result.assert_outcomes(passed=5, failed=1)
    assert "cannot run in a child process" not in result.stdout.str()
    data = read_results(pytester.path)
    assert (data["incomplete"], data["not_run"]) == (False, [])
    statuses = {(c["id"], c["agent"]): (c["status"], c["error"]) for c in data["cases"]}
    crash = ("crashed", "the child process running the agent died while retrieving (exit code 3)")
    assert statuses == {
        ("login", "exiter"): crash,
        ("password", "exiter"): ("ok", None),
        ("app", "exiter"): ("ok", None),
        ("login", "steady"): ("ok", None),
        ("password", "steady"): ("ok", None),
        ("app", "steady"): ("ok", None),
    }
    answered_from = {c["agent"]: c["dropped"][0] for c in data["cases"] if c["status"] == "ok"}
    assert answered_from["exiter"] != answered_from["steady"]  # each agent in a child process of its own


def test_a_closure_agent_that_swallows_interrupts_times_out_at_its_budget(
    pytester: pytest.Pytester, project: Path, make_conftest: Callable[[str], None]
) -> None:
    make_conftest(CLOSURE_AGENTS)
    result = pytester.runpytest(
        "--codesearch-agent=swallower", "--codesearch-timeout=0.5", "--codesearch-runs=1", "-k", "app"
    )
    result.assert_outcomes(failed=1)
    (case,) = read_results(pytester.path)["cases"]
    assert case["status"] == "timeout"
    assert case["error"] == "retrieving took longer than its budget of 0.5 s (the child process was killed)"


PATH_AGENT = """
import os
import pytest_codesearch as pcs

def grep(query, repo_path):
    hits = []
    for directory, _, files in os.walk(repo_path):
        for name in files:
            with open(os.path.join(directory, name)) as handle:
                if query in handle.read():
                    hits.append(os.path.relpath(os.path.join(directory, name), repo_path))
    return pcs.RetrievalResult(files=sorted(hits), metadata={"repo_path": repo_path, "pid": os.getpid()})

@pcs.agent(name="grep")
def grep_agent():
    return grep
"""
"""A plain callable that takes the snapshot path: ``(query, repo_path) -> ranked paths``."""


@pytest.mark.parametrize("isolate", ["none", "process"])
def test_a_callable_taking_repo_path_searches_the_commit_of_each_case(
    pytester: pytest.Pytester, make_conftest: Callable[[str], None], isolate: str
) -> None:
    repo = init_repo(pytester.path / "repo")
    old = commit(repo, {"src/login.py": "def login(): check_token()\n", "README.md": "login\n"}, "first")
    new = commit(repo, {"src/login.py": "def login(): pass\n", "src/token.py": "def check_token(): ...\n"}, "second")
    cases = [
        {"id": "old", "query": "check_token", "ground_truth_files": ["src/login.py"], "base_commit": old},
        {"id": "new", "query": "check_token", "ground_truth_files": ["src/token.py"], "base_commit": new},
    ]
    (pytester.path / "cases.jsonl").write_text(
        "\n".join([json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]) + "\n"
    )
    make_conftest(PATH_AGENT)
    result = pytester.runpytest("--codesearch-agent=grep", f"--codesearch-isolate={isolate}", "--codesearch-runs=1")
    result.assert_outcomes(passed=2)
    records = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert records["old"]["retrieved"] == ["src/login.py"]
    assert records["new"]["retrieved"] == ["src/token.py"]
    paths = {case_id: Path(record["metadata"]["repo_path"]) for case_id, record in records.items()}
    assert paths["old"] != paths["new"]
    assert (paths["old"] / "src" / "login.py").read_text() == "def login(): check_token()\n"
    in_this_process = {record["metadata"]["pid"] == os.getpid() for record in records.values()}
    assert in_this_process == {isolate == "none"}
