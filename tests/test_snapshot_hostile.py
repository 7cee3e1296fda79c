"""Crafted trees cannot make snapshot materialisation write outside its cache (issue 9 item 7, PITFALLS 21-23).

Each tree is written byte for byte (``raw_tree``: ``TreeBuilder`` refuses ``..``, ``.git`` and ``a/b``) into a
real repository, listed, then materialised with ``SnapshotStore.directory``. A sentinel directory beside the
cache must stay empty, nothing outside the cache may change, the cache holds no symlink, and every entry
left out is recorded in the tree's manifest with its path and the reason.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pygit2
import pytest
from gitrepo import EXECUTABLE, GITLINK, REGULAR, SYMLINK, TREE, commit_tree, init_repo, raw_tree

from pytest_codesearch.repo import SnapshotError, SnapshotStore
from pytest_codesearch.repo.materialize import SkippedEntry, read_manifest

Entries = Sequence[tuple[int, bytes, str | pygit2.Oid]]
PAYLOAD = b"payload\n"


def outside(tmp_path: Path, cache: Path) -> list[tuple[str, int, int]]:
    """Every path under ``tmp_path`` but outside ``cache``, with its size and modification time."""
    found = []
    for path in tmp_path.rglob("*"):
        if cache not in {path, *path.parents}:
            status = path.lstat()
            found.append((str(path), status.st_size, status.st_mtime_ns))
    return sorted(found)


def on_disk(root: Path) -> dict[str, bytes]:
    """Every regular file below ``root`` with its content; fails on a symlink or other special file."""
    found = {}
    for path in root.rglob("*"):
        assert not path.is_symlink(), path
        if not path.is_dir():
            assert path.is_file(), path
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


class Crafted:
    """A repository, a cache and an empty sentinel directory beside the cache, all under ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.cache = tmp_path / "cache"
        self.sentinel = tmp_path / "sentinel"
        self.sentinel.mkdir()
        self.repo = init_repo(tmp_path / "project")
        self.blob = self.repo.create_blob(PAYLOAD)

    def tree(self, entries: Entries) -> pygit2.Oid:
        return raw_tree(self.repo, entries)

    def link(self, target: str | Path) -> pygit2.Oid:
        return self.repo.create_blob(os.fsencode(str(target)))

    def materialise(self, entries: Entries) -> tuple[dict[str, bytes], tuple[SkippedEntry, ...], str]:
        """Materialise a commit of ``entries``; return the files written, the entries skipped, the tree id."""
        tree_id = self.tree(entries)
        head = commit_tree(self.repo, tree_id, ref="HEAD")
        before = outside(self.tmp_path, self.cache)
        store = SnapshotStore(self.cache, materialize=False)
        snapshot = store.get(self.tmp_path / "project", head)
        root = store.directory(snapshot)
        assert list(self.sentinel.iterdir()) == []
        assert outside(self.tmp_path, self.cache) == before
        expected = [str(tree_id), f"{tree_id}.json", "blobs", ".marks", ".prune.lock", ".seals"]  # no scratch
        assert sorted(os.listdir(self.cache)) == sorted(expected)
        for blob in (self.cache / "blobs").iterdir():
            assert blob.is_file() and not blob.is_symlink() and blob.stat().st_mode & 0o777 in {0o444, 0o555}
        written = on_disk(root)
        assert set(written) == set(snapshot.files)
        listing = read_manifest(self.cache, str(tree_id))
        assert listing is not None and {f.path for f in listing.files} == set(written)
        return written, listing.skipped, str(tree_id)


@pytest.fixture
def crafted(tmp_path: Path) -> Crafted:
    return Crafted(tmp_path)


def test_dot_dot_entries_are_skipped_and_named(crafted: Crafted) -> None:
    escape = crafted.tree([(REGULAR, b"escaped.py", crafted.blob)])
    deeper = crafted.tree([(TREE, b"..", escape)])
    entries = [(REGULAR, b"..", crafted.blob), (TREE, b"..", escape), (TREE, b"pkg", deeper)]
    entries += [(REGULAR, b".", crafted.blob), (TREE, b".", escape), (REGULAR, b"ok.py", crafted.blob)]
    written, skipped, _ = crafted.materialise(entries)
    assert written == {"ok.py": PAYLOAD}
    assert skipped == (
        SkippedEntry("..", REGULAR, str(crafted.blob), "unsafe name"),
        SkippedEntry("..", TREE, str(escape), "unsafe name"),
        SkippedEntry("pkg/..", TREE, str(escape), "unsafe name"),
        SkippedEntry(".", REGULAR, str(crafted.blob), "unsafe name"),
        SkippedEntry(".", TREE, str(escape), "unsafe name"),
    )


def test_names_holding_a_path_are_skipped_and_named(crafted: Crafted) -> None:
    names = [b"a/../../escape", b"../sentinel/planted", b"a/b", b"./a", b"a/"]
    escape = crafted.tree([(REGULAR, b"escaped.py", crafted.blob)])
    entries = [(REGULAR, name, crafted.blob) for name in names] + [(TREE, b"../sentinel", escape)]
    written, skipped, _ = crafted.materialise(entries + [(REGULAR, b"a", crafted.blob)])
    assert written == {"a": PAYLOAD}
    assert [(s.path, s.reason) for s in skipped] == [(os.fsdecode(n), "unsafe name") for n in names] + [
        ("../sentinel", "unsafe name")
    ]


def test_absolute_names_are_skipped_and_named(crafted: Crafted) -> None:
    absolute = os.fsencode(str(crafted.sentinel / "planted.py"))
    escape = crafted.tree([(REGULAR, b"escaped.py", crafted.blob)])
    entries = [(REGULAR, absolute, crafted.blob), (TREE, os.fsencode(str(crafted.sentinel)), escape)]
    entries += [(REGULAR, b"/etc/passwd", crafted.blob), (REGULAR, b"kept.py", crafted.blob)]
    written, skipped, _ = crafted.materialise(entries)
    assert written == {"kept.py": PAYLOAD}
    assert [(s.path, s.reason) for s in skipped] == [
        (str(crafted.sentinel / "planted.py"), "unsafe name"),
        (str(crafted.sentinel), "unsafe name"),
        ("/etc/passwd", "unsafe name"),
    ]


def test_git_directories_in_any_spelling_are_skipped(crafted: Crafted) -> None:
    hooks = crafted.tree([(EXECUTABLE, b"post-checkout", crafted.blob)])
    git = crafted.tree([(TREE, b"hooks", hooks), (REGULAR, b"config", crafted.blob)])
    names = [b".git", b".GIT", b".Git", b".git.", b".git ", b".git. . "]
    entries = [(TREE, name, git) for name in names] + [(REGULAR, b".git", crafted.blob)]
    nested = crafted.tree(entries + [(REGULAR, b".gitignore", crafted.blob)])
    written, skipped, _ = crafted.materialise(entries + [(TREE, b"sub", nested)])
    assert written == {"sub/.gitignore": PAYLOAD}
    expected = [os.fsdecode(n) for n in names] + [".git"]
    assert [s.path for s in skipped] == expected + [f"sub/{name}" for name in expected]
    assert {s.reason for s in skipped} == {"unsafe name"}


@pytest.mark.parametrize("order", ["link first", "directory first"])
@pytest.mark.parametrize("target", ["absolute", "relative"])
def test_a_symlink_and_a_directory_of_the_same_name_write_inside_the_cache(
    crafted: Crafted, order: str, target: str
) -> None:
    # PITFALLS 22: with os.makedirs(exist_ok=True) the directory "x" followed the link "x" already written.
    aim = crafted.sentinel if target == "absolute" else Path("../../sentinel")
    link = crafted.link(aim)
    inner = crafted.tree([(REGULAR, b"planted.py", crafted.blob)])
    pair = [(SYMLINK, b"x", link), (TREE, b"x", inner)]
    entries = pair if order == "link first" else pair[::-1]
    entries += [(SYMLINK, b"y", link), (REGULAR, b"y", crafted.blob), (SYMLINK, b"y", link)]
    written, skipped, _ = crafted.materialise(entries)
    assert written == {"x/planted.py": PAYLOAD, "y": PAYLOAD}
    assert sorted((s.path, s.mode, s.reason) for s in skipped) == [
        ("x", SYMLINK, "symlink"),
        ("y", SYMLINK, "symlink"),
        ("y", SYMLINK, "symlink"),
    ]


def test_duplicate_names_keep_the_first_entry(crafted: Crafted) -> None:
    other = crafted.repo.create_blob(b"other\n")
    inner = crafted.tree([(REGULAR, b"inner.py", other)])
    entries: list[tuple[int, bytes, str | pygit2.Oid]] = [(REGULAR, b"d", crafted.blob), (TREE, b"d", inner)]
    entries += [(REGULAR, b"d", other)]
    entries += [(TREE, b"t", inner), (REGULAR, b"t", crafted.blob), (GITLINK, b"t", "1" * 40)]
    written, skipped, _ = crafted.materialise(entries)
    assert written == {"d": PAYLOAD, "t/inner.py": b"other\n"}
    assert [(s.path, s.mode, s.reason) for s in skipped] == [
        ("d", TREE, "duplicate name"),
        ("d", REGULAR, "duplicate name"),
        ("t", REGULAR, "duplicate name"),
        ("t", GITLINK, "submodule"),
    ]


def test_case_colliding_names_are_written_as_listed(crafted: Crafted) -> None:
    upper = crafted.repo.create_blob(b"upper\n")
    inner = crafted.tree([(REGULAR, b"m.py", upper)])
    entries = [(REGULAR, b"README", upper), (REGULAR, b"readme", crafted.blob)]
    entries += [(TREE, b"Src", inner), (TREE, b"src", crafted.tree([(REGULAR, b"M.py", crafted.blob)]))]
    written, skipped, _ = crafted.materialise(entries)
    # On a case-sensitive disk (Linux) both spellings are distinct files; the listing says so too.
    assert written == {"README": b"upper\n", "readme": PAYLOAD, "Src/m.py": b"upper\n", "src/M.py": PAYLOAD}
    assert skipped == ()


def test_a_missing_object_names_the_entry_and_the_tree(crafted: Crafted) -> None:
    inner = crafted.tree([(REGULAR, b"a.py", crafted.blob), (TREE, b"gone", "3" * 40)])
    tree_id = crafted.tree([(REGULAR, b"a.py", crafted.blob), (TREE, b"pkg", inner)])
    head = commit_tree(crafted.repo, tree_id, ref="HEAD")
    store = SnapshotStore(crafted.cache)
    with pytest.raises(SnapshotError, match=rf"tree {tree_id}: object 3{{40}} for 'pkg/gone' is missing"):
        store.get(crafted.tmp_path / "project", head)
    assert sorted(os.listdir(crafted.cache)) == [".marks", ".prune.lock", "blobs"] and not list(crafted.sentinel.iterdir())
    assert os.listdir(crafted.cache / "blobs") == [str(crafted.blob)]  # a complete blob file, no scratch
