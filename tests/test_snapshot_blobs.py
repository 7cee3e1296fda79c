"""Snapshot directories hard-link their files to one read-only blob file per blob id (issue 12 item 2)."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
from gitrepo import EXECUTABLE, Entry, commit, init_repo

from pytest_codesearch.repo import SnapshotStore


def test_snapshots_sharing_a_file_share_its_inode_and_it_is_read_only(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    first = commit(repo, {"same.py": "same\n", "run.sh": Entry(b"same\n", EXECUTABLE), "v.py": "1\n"}, "One")
    second = commit(repo, {"v.py": "2\n", "copy.py": "same\n"}, "Two")
    cache = tmp_path / "cache"
    store = SnapshotStore(cache)
    one, two = store.get(tmp_path / "project", first), store.get(tmp_path / "project", second)
    same = str(repo.create_blob(b"same\n"))
    blobs = cache / "blobs"
    assert sorted(os.listdir(blobs)) == sorted(
        [same, f"{same}.x", str(repo.create_blob(b"1\n")), str(repo.create_blob(b"2\n"))]
    )
    shared = os.stat(blobs / same)
    for path in (one.root / "same.py", two.root / "same.py", two.root / "copy.py"):
        status = os.lstat(path)
        assert (status.st_ino, status.st_dev, status.st_mode & 0o777) == (shared.st_ino, shared.st_dev, 0o444)
    assert shared.st_nlink == 4  # the blob file and its three links
    executable = os.lstat(one.root / "run.sh")
    assert executable.st_ino == os.stat(blobs / f"{same}.x").st_ino != shared.st_ino
    assert executable.st_mode & 0o777 == 0o555 and os.lstat(two.root / "run.sh").st_ino == executable.st_ino
    assert (two.root / "v.py").read_bytes() == b"2\n" and (one.root / "v.py").read_bytes() == b"1\n"
    assert os.stat(one.root / "v.py").st_ino != os.stat(two.root / "v.py").st_ino


def test_a_blob_file_already_stored_is_reused_not_rewritten(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    first = commit(repo, {"a.py": "a\n"}, "One")
    second = commit(repo, {"b.py": "b\n"}, "Two")
    cache = tmp_path / "cache"
    SnapshotStore(cache).get(tmp_path / "project", first)
    blob = cache / "blobs" / str(pygit2.Repository(str(tmp_path / "project")).create_blob(b"a\n"))
    before = os.stat(blob)
    snapshot = SnapshotStore(cache).get(tmp_path / "project", second)
    after = os.stat(blob)
    assert (after.st_ino, after.st_mtime_ns, after.st_nlink) == (before.st_ino, before.st_mtime_ns, 3)
    assert os.stat(snapshot.root / "a.py").st_ino == before.st_ino
