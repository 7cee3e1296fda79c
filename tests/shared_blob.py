"""Two snapshots of one project that share a blob: its file in both is one inode (hard links into the
blob store), the case where a write through one snapshot's link reaches the other."""

from __future__ import annotations

from pathlib import Path

from gitrepo import commit, init_repo

from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.snapshot import Snapshot


def two_snapshots_sharing_a_blob(tmp_path: Path) -> tuple[SnapshotStore, Snapshot, Snapshot, list[Path]]:
    """Return a store, two snapshots whose ``a.py`` is the same blob (``b.py`` differs), and their
    directories, both handed out."""
    repo = init_repo(tmp_path / "project")
    first = commit(repo, {"a.py": "shared\n", "b.py": "one\n"}, "first")
    second = commit(repo, {"b.py": "two\n"}, "second")
    store = SnapshotStore(tmp_path / "cache", materialize=False)
    one, two = (store.get(tmp_path / "project", rev) for rev in (first, second))
    return store, one, two, [store.directory(one), store.directory(two)]
