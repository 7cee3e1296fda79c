"""A snapshot directory nothing touched is not walked after a case, and every change is still caught (issue 23).

``SnapshotStore.check`` trusts the inotify watch (``repo/watch.py``) only while no event touched the
directory and none of its files is open; ``store.watch.trusted`` counts the checks it answered without
the walk. As root, permissions stop nothing, so each change below reaches the file system and must be
reported exactly as the walk (``seal.verify``) reports it.
"""

from __future__ import annotations

import mmap
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from shared_blob import two_snapshots_sharing_a_blob
from gitrepo import commit, init_repo

from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.snapshot import Snapshot
from pytest_codesearch.repo.watch import SealWatch

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's"),
    pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="as root, 0444 stops no write"),
]


def _store(tmp_path: Path) -> tuple[SnapshotStore, Snapshot, Path]:
    repo = init_repo(tmp_path / "project")
    head = commit(repo, {"src/a.py": "alpha\n", "src/b.py": "beta\n", "README.md": "docs\n"}, "first")
    store = SnapshotStore(tmp_path / "cache", materialize=False)
    snapshot = store.get(tmp_path / "project", head)
    return store, snapshot, store.directory(snapshot)


def _append(path: Path) -> None:
    with open(path, "a") as stream:
        stream.write("# vandalised\n")


CHANGES: dict[str, tuple[Callable[[Path], object], list[str]]] = {
    "modified": (lambda root: _append(root / "src" / "a.py"), ["wrote 'src/a.py'"]),
    "truncated": (lambda root: os.truncate(root / "src" / "a.py", 2), ["wrote 'src/a.py'"]),
    "created": (lambda root: (root / "src" / "new.py").write_text("x\n"), ["added 'src/new.py'"]),
    "deleted": (lambda root: os.remove(root / "README.md"), ["removed 'README.md'"]),
    "renamed": (lambda root: os.rename(root / "src" / "b.py", root / "c.py"), ["added 'c.py'", "removed 'src/b.py'"]),
    "time set": (lambda root: os.utime(root / "README.md", ns=(0, 0)), ["wrote 'README.md'"]),
}


@pytest.mark.parametrize("change", CHANGES)
def test_each_change_after_an_untouched_check_is_caught_and_rebuilt(tmp_path: Path, change: str) -> None:
    store, snapshot, root = _store(tmp_path)
    (root / "src" / "a.py").read_text()  # an agent reading its files touches nothing
    assert store.check(snapshot) == [] and store.watch.trusted == 1
    store.directory(snapshot)
    act, expected = CHANGES[change]
    act(root)
    assert [found.describe() for found in store.check(snapshot)] == expected
    assert store.watch.trusted == 1
    assert (store.directory(snapshot) / "src" / "a.py").read_text() == "alpha\n"  # rebuilt, and watched again
    assert store.check(snapshot) == [] and store.watch.trusted == 2


def test_a_chmod_is_walked_and_what_the_walk_finds_is_the_answer(tmp_path: Path) -> None:
    store, snapshot, root = _store(tmp_path)
    os.chmod(root / "src" / "a.py", 0o644)  # not a change of content: the walk finds none
    assert store.check(snapshot) == [] and store.watch.trusted == 0
    store.directory(snapshot)
    _append(root / "src" / "a.py")
    assert [found.describe() for found in store.check(snapshot)] == ["wrote 'src/a.py'"]


def test_a_write_through_a_link_outside_the_directory_is_caught(tmp_path: Path) -> None:
    store, one, _, roots = two_snapshots_sharing_a_blob(tmp_path)
    assert store.check(one) == [] and store.watch.trusted == 0  # two's link to a.py changed its link count
    store.directory(one)
    assert store.check(one) == [] and store.watch.trusted == 1
    store.directory(one)
    _append(roots[1] / "a.py")  # the same inode as one's a.py: a watch on one's folders alone would miss it
    assert [found.describe() for found in store.check(one)] == ["wrote 'a.py'"]


def test_a_file_held_open_is_walked_until_closed_so_a_mapped_write_is_caught(tmp_path: Path) -> None:
    store, snapshot, root = _store(tmp_path)
    stream = open(root / "src" / "a.py", "r+b")  # noqa: SIM115 - held across two checks, as an agent might
    mapped = mmap.mmap(stream.fileno(), 0)
    stream.close()  # the mapping keeps it open; writes through it send no event
    assert store.check(snapshot) == [] and store.watch.trusted == 0
    store.directory(snapshot)
    mapped[0:1] = b"A"
    mapped.flush()
    assert [found.describe() for found in store.check(snapshot)] == ["wrote 'src/a.py'"]
    mapped.close()


def test_without_the_watch_every_check_walks(tmp_path: Path) -> None:
    store, snapshot, root = _store(tmp_path)
    store.watch = SealWatch(budget=0)  # as on a platform without inotify, or past the watch budget
    store.directory(snapshot)
    assert store.check(snapshot) == []
    store.directory(snapshot)
    _append(root / "src" / "b.py")
    assert [found.describe() for found in store.check(snapshot)] == ["wrote 'src/b.py'"]
    assert store.watch.trusted == 0


def test_a_directory_another_process_rebuilt_is_watched_anew(tmp_path: Path) -> None:
    store, snapshot, root = _store(tmp_path)
    other = SnapshotStore(tmp_path / "cache", materialize=False)  # another worker of the same run
    theirs = other.get(tmp_path / "project", snapshot.commit)
    other.directory(theirs)
    _append(root / "src" / "a.py")  # their agent writes: they catch it, remove the directory and rebuild it
    assert [found.describe() for found in other.check(theirs)] == ["wrote 'src/a.py'"]
    rebuilt = other.directory(theirs)
    assert store.check(snapshot) == []  # ours walks it (its watch saw the old one go): it is as sealed
    store.directory(snapshot)
    (rebuilt / "src" / "new.py").write_text("x\n")  # its folders are new inodes: they must be the ones watched
    assert [found.describe() for found in store.check(snapshot)] == ["added 'src/new.py'"]


def test_a_file_made_in_a_folder_an_earlier_case_added_is_caught(tmp_path: Path) -> None:
    store, snapshot, root = _store(tmp_path)
    (root / "cache").mkdir()  # an empty folder is no change to the seal: the case passes
    assert store.check(snapshot) == []
    store.directory(snapshot)
    (root / "cache" / "index.bin").write_text("x\n")  # a later case writes into it
    assert [found.describe() for found in store.check(snapshot)] == ["added 'cache/index.bin'"]


def test_a_directory_found_changed_when_handed_out_is_watched_once_rebuilt(tmp_path: Path) -> None:
    _, first, root = _store(tmp_path)
    (root / "planted.py").write_text("x\n")  # by a run killed mid-case
    store = SnapshotStore(tmp_path / "cache", materialize=False)  # the next run
    snapshot = store.get(tmp_path / "project", first.commit)
    rebuilt = store.directory(snapshot)  # watched, walked: found changed, rebuilt, watched again
    assert not (rebuilt / "planted.py").exists()
    assert store.check(snapshot) == [] and store.watch.trusted == 1
    store.directory(snapshot)
    (rebuilt / "src" / "new.py").write_text("x\n")
    assert [found.describe() for found in store.check(snapshot)] == ["added 'src/new.py'"]
