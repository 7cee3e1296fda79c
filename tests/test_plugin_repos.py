"""Cases that search a git repository at a commit, as users run them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from example_project import read_results
from gitrepo import checkout, commit, init_repo

PEEKING_AGENT = """
import os
import pytest_codesearch as pcs

class Peek:
    def initialize(self, repo_path):
        self.root = repo_path
        self.listing = sorted(
            os.path.relpath(os.path.join(d, f), repo_path) for d, _, fs in os.walk(repo_path) for f in fs
        )
    def read(self, path):
        with open(os.path.join(self.root, path)) as handle:
            return handle.read()
    def retrieve(self, query):
        hits = [p for p in self.listing if query in self.read(p)]
        return pcs.RetrievalResult(files=hits, metadata={"listing": self.listing})
    def reset(self):
        pass

@pcs.agent(name="peek")
def peek():
    return Peek()
"""


def _history(root: Path) -> tuple[str, str]:
    repo = init_repo(root)
    old = commit(repo, {"src/login.py": "def login(): check_token()\n", "docs/guide.md": "guide\n"}, "first")
    new = commit(repo, {"src/login.py": "def login(): pass\n", "src/token.py": "def check_token(): ...\n"}, "second")
    checkout(repo)
    return old, new


def test_base_commit_searches_that_tree_not_the_working_tree(pytester: pytest.Pytester) -> None:
    old, _ = _history(pytester.path / "repo")
    (pytester.path / "repo" / "src" / "login.py").write_text("def login(): check_token()  # edited\n")
    pytester.makeconftest(PEEKING_AGENT)
    cases = [
        {"id": "old", "query": "check_token", "ground_truth_files": ["src/login.py"], "base_commit": old[:8]},
        {"id": "head", "query": "check_token", "ground_truth_files": ["src/token.py"], "base_commit": "main"},
    ]
    (pytester.path / "cases.jsonl").write_text(
        "\n".join([json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]) + "\n"
    )
    result = pytester.runpytest("--codesearch-agent=peek", "--codesearch-runs=1")
    result.assert_outcomes(passed=2)
    records = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert records["old"]["retrieved"] == ["src/login.py"]
    assert records["head"]["retrieved"] == ["src/token.py"]
    assert records["old"]["snapshot"] != records["head"]["snapshot"]
    snapshots = pytester.path / ".codesearch" / "snapshots"
    tree_dirs = sorted(p.name for p in snapshots.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert tree_dirs == sorted([records["old"]["snapshot"], records["head"]["snapshot"], "blobs"])
    assert not list(snapshots.rglob(".git"))


def test_default_repo_is_the_git_repository_holding_the_goldset(pytester: pytest.Pytester) -> None:
    old, _ = _history(pytester.path)
    pytester.makeconftest(PEEKING_AGENT)
    case = {"id": "c", "query": "check_token", "ground_truth_files": ["src/login.py"], "base_commit": old}
    (pytester.path / "goldsets").mkdir()
    (pytester.path / "goldsets" / "g.jsonl").write_text(json.dumps(case) + "\n")
    result = pytester.runpytest("--codesearch-agent=peek", "goldsets")
    result.assert_outcomes(passed=1)
    (record,) = read_results(pytester.path)["cases"]
    # the agent saw the old tree only: no gold set, no conftest, no .git
    assert record["retrieved"] == ["src/login.py"]


def test_unknown_commit_fails_the_case_with_a_clear_message(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "repo")
    case = {"id": "c", "query": "q", "ground_truth_files": ["src/login.py"], "base_commit": "v9.9", "repo": "repo"}
    (pytester.path / "g.jsonl").write_text(json.dumps(case) + "\n")
    result = pytester.runpytest("--codesearch-agent=oracle")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*g.jsonl:1: base_commit: *repo: unknown revision 'v9.9': *"])
    assert "Traceback" not in result.stdout.str()
    assert read_results(pytester.path)["cases"][0]["status"] == "error"


@pytest.mark.slow
def test_crashed_worker_case_is_recorded_as_crashed(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "repo")
    pytester.makeconftest(
        """
        import os
        import pytest_codesearch as pcs

        @pcs.agent(name="crashy")
        def crashy():
            def search(query):
                if query == "die":
                    os._exit(3)
                return ["src/login.py"]
            return search
        """
    )
    cases = [{"id": f"c{i}", "query": "die" if i == 0 else "login", "ground_truth_files": ["src/login.py"]}
             for i in range(4)]
    (pytester.path / "g.jsonl").write_text(
        "\n".join([json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]) + "\n"
    )
    shutil.rmtree(pytester.path / "repo" / ".git")
    result = pytester.runpytest_subprocess("--codesearch-agent=crashy", "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=3, failed=1)
    records = {c["id"]: c for c in read_results(pytester.path)["cases"]}
    assert records["c0"]["status"] == "crashed"
    assert records["c0"]["error"] == "the worker process running this case crashed"
    assert all(records[f"c{i}"]["status"] == "ok" for i in (1, 2, 3))
