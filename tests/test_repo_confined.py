"""A gold set may not point agents anywhere (issue 18 item 11): a ``repo`` that is neither a git repository
nor inside the project is refused unless the run allows it; a working-tree copy has a size bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, init_repo, write_files

from example_project import read_results
from pytest_codesearch.repo import SnapshotError, SnapshotStore


def _goldset(root: Path, repos: dict[str, str]) -> None:
    lines = [
        json.dumps({"id": case_id, "query": "secret", "ground_truth_files": ["secret.txt"], "repo": repo})
        for case_id, repo in repos.items()
    ]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n")


def test_a_directory_outside_the_project_is_refused_unless_allowed(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    write_files(outside / "plain", {"secret.txt": "secret\n"})
    commit(init_repo(outside / "clone"), {"secret.txt": "secret\n"}, "first")
    write_files(outside / "clone", {"secret.txt": "secret\n"})
    write_files(pytester.path / "inside", {"secret.txt": "secret\n"})
    _goldset(pytester.path, {"plain": str(outside / "plain"), "clone": str(outside / "clone"), "inside": "inside"})
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1")
    result.assert_outcomes(passed=2, failed=1)
    records = {record["id"]: record for record in read_results(pytester.path)["cases"]}
    assert {case_id: record["status"] for case_id, record in records.items()} == {
        "plain": "error", "clone": "ok", "inside": "ok"
    }
    assert records["plain"]["error"] == (
        f"repo: {(outside / 'plain').resolve()} is neither a git repository nor inside the project "
        f"{pytester.path.resolve()}; to search it anyway, run with --codesearch-allow-any-repo"
    )
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1", "--codesearch-allow-any-repo")
    result.assert_outcomes(passed=3)


def test_the_ini_key_allows_it_too(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere")
    write_files(outside, {"secret.txt": "secret\n"})
    _goldset(pytester.path, {"plain": str(outside)})
    pytester.makeini("[pytest]\ncodesearch_allow_any_repo = true\n")
    pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1").assert_outcomes(passed=1)


def test_a_working_tree_over_the_cache_bound_is_not_copied(tmp_path: Path) -> None:
    write_files(tmp_path / "project", {"a.py": "a" * 3000, "b.py": "b" * 3000})
    store = SnapshotStore(tmp_path / "cache", size_limit=4096)
    snapshot = store.get(tmp_path / "project", None)
    with pytest.raises(SnapshotError) as refused:
        store.directory(snapshot)
    assert str(refused.value) == (
        f"{(tmp_path / 'project').resolve()}: its 2 files take 6000 bytes, more than the snapshot cache's bound"
        " of 4096 bytes (--codesearch-cache-size): agents that need a directory get a copy of a working tree;"
        " give base_commit, or raise the bound"
    )
    assert not (tmp_path / "cache" / "worktrees").exists() or not any((tmp_path / "cache" / "worktrees").iterdir())


def test_a_bare_mirror_outside_the_project_is_a_repository_even_without_its_config(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import pygit2

    outside = tmp_path_factory.mktemp("mirrors")
    head = commit(init_repo(outside / "clone"), {"secret.txt": "secret\n"}, "first")
    mirror = pygit2.clone_repository(str(outside / "clone"), str(outside / "mirror"), bare=True)
    (Path(mirror.path) / "config").unlink()  # as some mirror copies come: HEAD, objects, refs and no config
    line = {"id": "m", "query": "secret", "ground_truth_files": ["secret.txt"], "repo": str(outside / "mirror"),
            "base_commit": str(head)}  # fmt: skip
    (pytester.path / "cases.jsonl").write_text(json.dumps(line) + "\n")
    pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1").assert_outcomes(passed=1)
