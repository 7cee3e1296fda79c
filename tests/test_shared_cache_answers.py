"""One cache folder shared by runs and xdist workers never changes an answer: bm25's files, scores,
functions and modules over a history of edits, adds, deletes and renames are those of a lone fresh run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

from example_project import read_results

QUERIES = ["login token expired", "render template cache", "parse config value"]


def _history(root: Path) -> list[str]:
    """Five commits: an edit, an add, a rename with an edit, a delete, and a file moved unchanged."""
    repo = init_repo(root)
    fillers = {f"src/util{n}.py": f"def util{n}(value):\n    return value + {n}\n" for n in range(5)}
    first = commit(repo, {
        **fillers,
        "src/auth.py": "def login(user, token):\n    return check(token)\n\n\ndef logout(user):\n    user.token = None\n",
        "src/render.py": "class Renderer:\n    def render(self, template):\n        return template.fill()\n",
        "src/config.py": "def parse(text):\n    return dict(line.split('=') for line in text)\n",
        "tests/test_auth.py": "def test_login():\n    assert login('u', 'token')\n",
    }, "1")  # fmt: skip
    second = commit(repo, {"src/auth.py": "def login(user, token):\n    if token.expired:\n        raise Expired(token)\n"
                                          "    return check(token)\n"}, "2")  # fmt: skip
    third = commit(repo, {"src/cache.py": "def cached(template):\n    return CACHE.get(template)\n"}, "3")
    fourth = commit(repo, {"src/render.py": None, "src/views/render.py": "class Renderer:\n    def render(self, template,"
                           " cache):\n        return cache.get(template) or template.fill()\n"}, "4")  # fmt: skip
    fifth = commit(repo, {"src/config.py": None, "src/settings/config.py": "def parse(text):\n    return dict(line.split('=')"
                          " for line in text)\n", "src/util0.py": None}, "5")  # fmt: skip
    return [first, second, third, fourth, fifth]


def _answers(pytester: pytest.Pytester, cache: str, *dist: str) -> list[tuple[object, ...]]:
    result = pytester.runpytest_subprocess("--codesearch-agent=bm25", "--codesearch-runs=1", "cases.jsonl",
                                           f"--codesearch-cache-dir={cache}", *dist)  # fmt: skip
    result.assert_outcomes(passed=15)
    records = sorted(read_results(pytester.path)["cases"], key=lambda c: c["id"])
    return [(c["id"], c["retrieved"], c["scores"], c["retrieved_functions"], c["retrieved_modules"]) for c in records]


@pytest.mark.slow
def test_workers_sharing_a_cold_then_warm_cache_answer_as_one_fresh_process(pytester: pytest.Pytester) -> None:
    revs = _history(pytester.path / "repo")
    cases = [{"id": f"c{n}-{q}", "query": query, "ground_truth_files": ["src/auth.py"], "base_commit": rev}
             for n, rev in enumerate(revs) for q, query in enumerate(QUERIES)]  # fmt: skip
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    alone = _answers(pytester, "alone")
    assert _answers(pytester, "shared", "-n", "2") == alone  # cold: both workers fill one cache
    assert _answers(pytester, "shared", "-n", "2") == alone  # warm: indexes, tokens and functions from disk
    by_id = {answer[0]: answer[1:] for answer in alone}
    files, _, functions, modules = by_id["c1-0"]
    assert files[0] == "src/auth.py" and functions[0] == "src/auth.py:login" and modules[0] == "src/auth.py:login"
    files, _, functions, _ = by_id["c4-1"]  # the renamed file, edited: found at its new path
    assert files[0] == "src/views/render.py" and functions[0] == "src/views/render.py:Renderer.render"
    assert "src/render.py" not in files and all(not f.startswith("src/util0.py") for f in by_id["c4-2"][0])
