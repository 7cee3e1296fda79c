"""A repository given as a git directory without a config file (as some mirrors are) is searched as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pygit2
from shop_repo import build_shop

from pytest_codesearch.goldset.formats import ReadOptions, load
from pytest_codesearch.repo.resolve import resolve_repo
from pytest_codesearch.repo.snapshot import SnapshotStore


def test_a_git_directory_that_libgit2_takes_for_non_bare_is_the_repository(tmp_path: Path) -> None:
    _, base, patch = build_shop(tmp_path / "work")
    mirror = tmp_path / "mirrors" / "shop" / "repo"
    shutil.copytree(tmp_path / "work" / ".git", mirror)
    (mirror / "config").unlink()  # libgit2 then reads it as non-bare, with the parent as its work tree
    assert pygit2.Repository(str(mirror)).workdir == str(mirror.parent) + "/"
    instance = {"instance_id": "acme__shop-1", "repo": "acme/shop", "base_commit": base,
                "problem_statement": "Adding the same item twice counts it twice.", "patch": patch}  # fmt: skip
    (tmp_path / "lite.jsonl").write_text(json.dumps(instance) + "\n")

    repos = {"acme/shop": mirror}
    (case,) = load(tmp_path / "lite.jsonl", ReadOptions(repos=repos)).cases

    assert case.repo == "acme/shop"  # the map finds it again: a run resolves it as the reader did
    found, _ = resolve_repo(case.repo, tmp_path / "lite.jsonl", repos)
    assert found == mirror.resolve()
    snapshot = SnapshotStore(tmp_path / "cache", materialize=False).get(found, base)
    assert snapshot.files == {"pkg/shop.py", "pkg/util.py", "docs/legacy.txt"}
