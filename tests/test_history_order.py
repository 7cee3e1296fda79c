"""Cases run in history order: each repository's snapshots oldest commit first, so indexes follow the history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import commit, init_repo


def test_snapshots_run_oldest_first_whatever_the_seed(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "repo")
    # each commit is a minute after its parent
    commits = [commit(repo, {f"src/mod{i}.py": f"def f{i}():\n    return {i}\n"}, f"commit {i}") for i in range(6)]
    cases = [{"id": f"c{i}", "query": f"f{i}", "ground_truth_files": [f"src/mod{i}.py"], "base_commit": commits[i]}
             for i in (3, 0, 5, 1, 4)]  # fmt: skip
    (pytester.path / "cases.jsonl").write_text(
        "\n".join([json.dumps({"metadata": {"repo": "repo"}}), *map(json.dumps, cases)]) + "\n"
    )
    for seed in (1, 2, 3):
        result = pytester.runpytest("--codesearch-agent=oracle", f"--codesearch-seed={seed}", "-v", "-p", "no:cacheprovider")
        ran = [line.split("::")[1].split("[")[0] for line in result.outlines if "PASSED" in line]
        assert ran == ["c0", "c1", "c3", "c4", "c5"], seed
    limited = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-seed=1", "--codesearch-limit=3", "-v")
    picked = [line.split("::")[1].split("[")[0] for line in limited.outlines if "PASSED" in line]
    assert picked == sorted(picked) and len(picked) == 3  # the limit picks from the shuffle, then runs in history order
