"""Snapshots of real repositories built with pygit2: materialised trees, directories, errors."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import queue
import re
from multiprocessing.context import ForkServerContext, SpawnContext
from pathlib import Path

import pygit2
import pytest
from gitrepo import (
    EXECUTABLE,
    GITLINK,
    REGULAR,
    SYMLINK,
    TREE,
    Entry,
    FileValue,
    branch,
    checkout,
    commit,
    commit_tree,
    init_repo,
    raw_tree,
    tag,
    write_files,
)

from pytest_codesearch.repo import Snapshot, SnapshotError, SnapshotStore, find_repository, suggest_path
from pytest_codesearch.repo.snapshot import IncompleteSnapshotWarning
from pytest_codesearch.repo.materialize import SubtreeMemo, list_tree, materialize_tree, read_manifest


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def store(cache: Path) -> SnapshotStore:
    return SnapshotStore(cache)


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with two commits and a dirty working tree; returns (path, first, second)."""
    path = tmp_path / "project"
    repo = init_repo(path)
    first = commit(repo, {"src/app.py": "version = 1\n", "src/old.py": "old\n", "README.md": "one\n"}, "First")
    second = commit(repo, {"src/app.py": "version = 2\n", "src/old.py": None, "src/new.py": "new\n"}, "Second")
    checkout(repo)
    write_files(path, {"src/app.py": "version = 'dirty'\n", "untracked.py": "x\n"})
    return path, first, second


def read_tree_files(snapshot: Snapshot) -> dict[str, bytes]:
    return {path: (snapshot.root / path).read_bytes() for path in snapshot.files}


def cache_entries(cache: Path) -> list[str]:
    """The snapshot directories and manifests in ``cache`` (the shared blob files are tested apart)."""
    return sorted(e.name for e in cache.iterdir() if e.name != "blobs" and not e.name.startswith("."))


def test_commit_that_is_not_head_is_materialised_without_git(
    store: SnapshotStore, cache: Path, history: tuple[Path, str, str]
) -> None:
    path, first, _ = history
    snapshot = store.get(path, first)
    tree_id = str(pygit2.Repository(str(path))[first].peel(pygit2.Commit).tree_id)
    assert (snapshot.commit, snapshot.tree_id, snapshot.repo) == (first, tree_id, path.resolve())
    assert snapshot.root == cache.absolute() / tree_id
    assert read_tree_files(snapshot) == {"src/app.py": b"version = 1\n", "src/old.py": b"old\n", "README.md": b"one\n"}
    assert snapshot.directories == {"src"}
    assert not (snapshot.root / ".git").exists()
    assert sorted(str(p.relative_to(snapshot.root)) for p in snapshot.root.rglob("*")) == [
        "README.md",
        "src",
        "src/app.py",
        "src/old.py",
    ]
    assert cache_entries(cache) == [tree_id, f"{tree_id}.json"]
    assert snapshot.label == tree_id[:10]


def test_snapshot_directory_is_reused_by_later_gets_and_stores(
    store: SnapshotStore, cache: Path, history: tuple[Path, str, str]
) -> None:
    path, _, second = history
    snapshot = store.get(path, second)
    before = os.stat(snapshot.root / "src/app.py")
    manifest_before = os.stat(cache / f"{snapshot.tree_id}.json")
    assert store.get(path, second) is snapshot
    again = SnapshotStore(cache).get(path, second[:8])
    after = os.stat(again.root / "src/app.py")
    assert again == Snapshot(
        snapshot.root, snapshot.repo, second, snapshot.tree_id, snapshot.files, snapshot.directories
    )
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert os.stat(cache / f"{snapshot.tree_id}.json").st_mtime_ns == manifest_before.st_mtime_ns
    assert cache_entries(cache) == [str(snapshot.tree_id), f"{snapshot.tree_id}.json"]


def test_executables_nest_and_links_and_submodules_are_skipped(
    store: SnapshotStore, cache: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "project")
    files: dict[str, FileValue] = {
        "a/b/c/deep.py": b"deep\n",
        "bin/run.sh": Entry(b"#!/bin/sh\n", EXECUTABLE),
        "link.py": Entry(b"a/b/c/deep.py", SYMLINK),
        "vendor/lib": Entry(mode=GITLINK, commit="1" * 40),
    }
    head = commit(repo, files, "Mixed entries")
    snapshot = store.get(tmp_path / "project", head)
    assert snapshot.files == {"a/b/c/deep.py", "bin/run.sh"}
    assert snapshot.directories == {"a", "a/b", "a/b/c", "bin"}
    assert os.stat(snapshot.root / "bin/run.sh").st_mode & 0o111
    assert not os.stat(snapshot.root / "a/b/c/deep.py").st_mode & 0o111
    assert not os.path.lexists(snapshot.root / "link.py")
    assert not os.path.lexists(snapshot.root / "vendor/lib")
    manifest = json.loads((cache / f"{snapshot.tree_id}.json").read_text())
    assert manifest["skipped_counts"] == {"submodule": 1, "symlink": 1}
    assert {(s["path"], s["reason"]) for s in manifest["skipped"]} == {
        ("link.py", "symlink"),
        ("vendor/lib", "submodule"),
    }
    blob = str(pygit2.Repository(str(tmp_path / "project")).create_blob(b"#!/bin/sh\n"))
    columns = manifest["files"]
    rows = list(zip(columns["path"], columns["blob"], columns["size"], columns["executable"]))
    assert ("bin/run.sh", blob, 10, True) in rows


def test_tree_built_with_treebuilder_skips_link_and_gitlink(store: SnapshotStore, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    builder = repo.TreeBuilder()
    builder.insert("kept.py", repo.create_blob(b"kept\n"), pygit2.GIT_FILEMODE_BLOB)
    builder.insert("link", repo.create_blob(b"/etc/passwd"), pygit2.GIT_FILEMODE_LINK)
    builder.insert("module", pygit2.Oid(hex="2" * 40), pygit2.GIT_FILEMODE_COMMIT)
    head = commit_tree(repo, builder.write(), ref="HEAD")
    assert store.get(tmp_path / "project", head).files == {"kept.py"}


def test_crafted_unsafe_names_are_refused_and_nothing_escapes(
    store: SnapshotStore, cache: Path, tmp_path: Path
) -> None:
    # TreeBuilder and Index reject "..", ".git", "a/b" ("invalid name for a tree entry"), so the crafted
    # trees are written byte for byte into the object database, as a hostile repository could hold them.
    repo = init_repo(tmp_path / "project")
    blob = repo.create_blob(b"payload\n")
    escape = raw_tree(repo, [(REGULAR, b"escaped.py", blob)])
    hooks = raw_tree(repo, [(REGULAR, b"planted-hook", blob)])
    names = [b"..", b".", b".git", b".GiT", b".git.", b"a/b", b"/abs", b"caf\xe9.py"]
    entries = [(REGULAR, name, blob) for name in names] + [(TREE, b"..", escape), (TREE, b".Git", hooks)]
    entries += [(REGULAR, b"dup.py", blob), (TREE, b"dup.py", escape), (REGULAR, b"ok.py", blob)]
    head = commit_tree(repo, raw_tree(repo, entries), ref="HEAD")
    before = sorted(p for p in tmp_path.rglob("*") if cache not in {p, *p.parents})

    snapshot = store.get(tmp_path / "project", head)

    assert snapshot.files == {"caf\udce9.py", "dup.py", "ok.py"}
    assert (snapshot.root / os.fsdecode(b"caf\xe9.py")).read_bytes() == b"payload\n"
    assert sorted(p for p in tmp_path.rglob("*") if cache not in {p, *p.parents}) == before
    assert not list(tmp_path.rglob("escaped.py")) and not list(tmp_path.rglob("planted-hook"))
    assert cache_entries(cache) == [str(snapshot.tree_id), f"{snapshot.tree_id}.json"]
    manifest = json.loads((cache / f"{snapshot.tree_id}.json").read_text())
    assert manifest["skipped_counts"] == {"duplicate name": 1, "unsafe name": 9}


@pytest.mark.parametrize("materialize", [True, False], ids=["directory", "listing"])
def test_a_missing_blob_is_left_out_with_a_warning_and_the_rest_is_searched(
    cache: Path, tmp_path: Path, materialize: bool
) -> None:
    repo = init_repo(tmp_path / "project")
    tree = raw_tree(repo, [(REGULAR, b"a.py", repo.create_blob(b"a")), (REGULAR, b"gone.py", "3" * 40)])
    head = commit_tree(repo, tree, ref="HEAD")
    store = SnapshotStore(cache, materialize=materialize)
    with pytest.warns(IncompleteSnapshotWarning, match=r"lacks the blobs of 'gone.py' \(a partial clone\?\)"):
        snapshot = store.get(tmp_path / "project", head)
    assert snapshot.files == {"a.py"}
    assert snapshot.view().read("gone.py") is None and snapshot.view().read("a.py") == b"a"
    listing = read_manifest(cache, str(snapshot.tree_id))
    assert listing is not None and listing.skipped_counts() == {"missing blob": 1}
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []
    if materialize:
        assert sorted(os.listdir(snapshot.root)) == ["a.py"]


def test_a_missing_subtree_is_an_error_and_leaves_no_temporary_directory(
    store: SnapshotStore, cache: Path, tmp_path: Path
) -> None:
    repo = init_repo(tmp_path / "project")
    tree = raw_tree(repo, [(REGULAR, b"a.py", repo.create_blob(b"a")), (TREE, b"gone", "3" * 40)])
    head = commit_tree(repo, tree, ref="HEAD")
    with pytest.raises(SnapshotError, match=r"'gone' is missing from the repository"):
        store.get(tmp_path / "project", head)
    assert cache_entries(cache) == []


def _crafted_tree(repo: pygit2.Repository) -> pygit2.Oid:
    """A tree holding every kind of entry a listing must refuse, nested, beside plain files."""
    blob = repo.create_blob(b"payload\n")
    escape = raw_tree(repo, [(REGULAR, b"escaped.py", blob)])
    link = repo.create_blob(b"../../etc/passwd")
    inner = raw_tree(repo, [(REGULAR, b"a.py", blob), (SYMLINK, b"l", link), (REGULAR, b"a.py", blob)])
    entries = [(REGULAR, name, blob) for name in (b"..", b".git", b"a/b", b"caf\xe9.py")]
    entries += [(TREE, b"..", escape), (TREE, b"pkg", inner), (GITLINK, b"sub", "1" * 40)]
    entries += [(SYMLINK, b"dup.py", link), (REGULAR, b"dup.py", blob), (TREE, b"dup.py", escape)]
    entries += [(EXECUTABLE, b"run.sh", blob)]
    return raw_tree(repo, entries)


def test_listing_a_tree_equals_what_materialising_it_writes(tmp_path: Path, cache: Path) -> None:
    repo = init_repo(tmp_path / "project")
    tree = repo[_crafted_tree(repo)].peel(pygit2.Tree)
    _, written = materialize_tree(repo, tree, cache)
    memo: SubtreeMemo = {}
    listed = list_tree(repo, tree, memo)
    assert listed == written
    assert [f.path for f in listed.files] == ["caf\udce9.py", "pkg/a.py", "dup.py", "run.sh"]  # tree order
    assert listed.skipped_counts() == {"duplicate name": 2, "submodule": 1, "symlink": 2, "unsafe name": 4}
    assert listed.repository == os.path.abspath(repo.path)
    assert list_tree(repo, tree, memo) == listed and (str(tree.id), "") in memo


def test_a_listing_store_writes_the_manifest_and_the_directory_only_when_asked(
    cache: Path, history: tuple[Path, str, str]
) -> None:
    path, first, second = history
    lazy = SnapshotStore(cache, materialize=False)
    snapshot = lazy.get(path, second)
    assert cache_entries(cache) == [f"{snapshot.tree_id}.json"] and not snapshot.root.exists()
    assert snapshot.files == {"src/app.py", "src/new.py", "README.md"} and snapshot.directories == {"src"}
    listing = read_manifest(cache, str(snapshot.tree_id))
    assert listing is not None and {f.path for f in listing.files} == snapshot.files
    manifest = os.stat(cache / f"{snapshot.tree_id}.json")
    assert SnapshotStore(cache, materialize=False).get(path, second) == snapshot
    assert os.stat(cache / f"{snapshot.tree_id}.json").st_mtime_ns == manifest.st_mtime_ns  # kept, not rewritten
    assert lazy.directory(snapshot) == snapshot.root
    assert read_tree_files(snapshot) == {"src/app.py": b"version = 2\n", "src/new.py": b"new\n", "README.md": b"one\n"}
    assert lazy.directory(snapshot) == snapshot.root
    assert cache_entries(cache) == [str(snapshot.tree_id), f"{snapshot.tree_id}.json"]
    plain = lazy.get(path, None)
    assert lazy.directory(plain) == plain.root == cache / "worktrees" / plain.root.name  # linked: .git hidden


def test_a_listing_store_reports_missing_subtrees(cache: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    tree = raw_tree(repo, [(REGULAR, b"a.py", repo.create_blob(b"a")), (TREE, b"gone", "3" * 40)])
    head = commit_tree(repo, tree, ref="HEAD")
    with pytest.raises(SnapshotError, match=r"cannot list .*'gone' is missing from the repository"):
        SnapshotStore(cache, materialize=False).get(tmp_path / "project", head)
    assert not cache.exists() or cache_entries(cache) == []


def test_an_old_or_replaced_manifest_is_read_again(cache: Path, history: tuple[Path, str, str]) -> None:
    path, first, _ = history
    snapshot = SnapshotStore(cache, materialize=False).get(path, first)
    location = cache / f"{snapshot.tree_id}.json"
    document = json.loads(location.read_text())
    assert read_manifest(cache, str(snapshot.tree_id)) is not None
    location.write_text(json.dumps({**document, "manifest_version": 1}))
    assert read_manifest(cache, str(snapshot.tree_id)) is None
    again = SnapshotStore(cache, materialize=False).get(path, first)  # rewrites the outdated manifest
    assert again == snapshot and json.loads(location.read_text()) == document


def _materialise_in_child(repo: str, rev: str, cache: str, barrier: object, results: object) -> None:
    """Child process: wait for all, build the snapshot, report its root and a digest of every file."""
    barrier.wait()  # type: ignore[attr-defined]
    snapshot = SnapshotStore(Path(cache)).get(Path(repo), rev)
    digest = hashlib.sha256()
    for path in sorted(snapshot.files):
        digest.update(path.encode() + b"\0" + (snapshot.root / path).read_bytes())
    results.put((str(snapshot.root), sorted(snapshot.files), digest.hexdigest()))  # type: ignore[attr-defined]


def _child_context() -> SpawnContext | ForkServerContext:
    """Return a quick and safe start method: a fork server with the heavy imports done once, else spawn.

    Children fork from one clean server process, not from this (possibly threaded) one. Only installed
    modules can be preloaded: before Python 3.12 the server ignores the parent's sys.path, so it cannot
    import this test module.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["pytest", "pytest_codesearch.repo.snapshot"])
    return context


def test_sixteen_processes_racing_for_one_tree_all_see_it_complete(cache: Path, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    files = {f"pkg{i % 5}/sub/module_{i}.py": f"value = {i}\n" * 50 for i in range(50)}
    head = commit(repo, files, "Many files")
    context = _child_context()
    barrier, results = context.Barrier(16), context.Queue()
    workers = [
        context.Process(
            target=_materialise_in_child, args=(str(tmp_path / "project"), head, str(cache), barrier, results)
        )
        for _ in range(16)
    ]
    for worker in workers:
        worker.start()
    try:
        seen = [results.get(timeout=60) for _ in workers]
    except queue.Empty:
        pytest.fail("a child process did not report")
    finally:
        for worker in workers:
            worker.join(timeout=30)
    expected = hashlib.sha256()
    for path in sorted(files):
        expected.update(path.encode() + b"\0" + files[path].encode())
    assert {(root, tuple(paths), digest) for root, paths, digest in seen} == {
        (seen[0][0], tuple(sorted(files)), expected.hexdigest())
    }
    assert [worker.exitcode for worker in workers] == [0] * 16
    tree_id = Path(seen[0][0]).name
    assert cache_entries(cache) == [tree_id, f"{tree_id}.json"]


@pytest.mark.parametrize("rev", ["short", "branch", "tag", "annotated", "HEAD~1"])
def test_base_commit_may_be_any_rev(store: SnapshotStore, history: tuple[Path, str, str], rev: str) -> None:
    path, first, _ = history
    repo = pygit2.Repository(str(path))
    branch(repo, "release", first)
    tag(repo, "v1", first)
    tag(repo, "v1-notes", first, "Release one")
    spelled = {"short": first[:7], "branch": "release", "tag": "v1", "annotated": "v1-notes", "HEAD~1": "HEAD~1"}[rev]
    snapshot = store.get(path, spelled)
    assert snapshot.commit == first
    assert "src/old.py" in snapshot.files


@pytest.mark.parametrize("rev", ["no-such-branch", "deadbeef", "HEAD~9", "a..b", "HEAD^{tree}"])
def test_unknown_rev_names_the_rev_and_the_repository(
    store: SnapshotStore, history: tuple[Path, str, str], rev: str
) -> None:
    path = history[0]
    with pytest.raises(SnapshotError) as caught:
        store.get(path, rev)
    assert f"{path.resolve()}: unknown revision {rev!r}" in str(caught.value)
    assert "fetch" in str(caught.value)


def test_unknown_rev_in_a_shallow_clone_suggests_unshallowing(
    store: SnapshotStore, history: tuple[Path, str, str]
) -> None:
    path, _, second = history
    (path / ".git" / "shallow").write_text(second + "\n")  # what git clone --depth 1 leaves behind
    with pytest.raises(SnapshotError, match=r"shallow clone.*fetch --unshallow"):
        store.get(path, "0123abc")


def test_working_tree_without_base_commit_is_searched_in_place(
    store: SnapshotStore, cache: Path, history: tuple[Path, str, str]
) -> None:
    path = history[0]
    snapshot = store.get(path, None)
    assert (snapshot.repo, snapshot.commit, snapshot.tree_id) == (path.resolve(), None, None)
    assert snapshot.files == {"README.md", "src/app.py", "src/new.py", "untracked.py"}
    assert snapshot.read("src/app.py") == b"version = 'dirty'\n"
    assert snapshot.label == str(path.resolve())
    assert not cache.exists()  # nothing is linked until an agent needs the directory
    assert store.directory(snapshot) == snapshot.root
    assert sorted(p.relative_to(snapshot.root).as_posix() for p in snapshot.root.rglob("*") if p.is_file()) == [
        "README.md", "src/app.py", "src/new.py", "untracked.py"
    ]
    assert (snapshot.root / "src/app.py").read_text() == "version = 'dirty'\n"


def test_plain_directory_lists_files_skipping_git_and_symlinks(store: SnapshotStore, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write_files(
        root,
        {"a.py": "a", "pkg/sub/b.py": "b", ".git/config": "not a repo", "pkg/.git": "gitdir: x", ".hidden/c.py": "c"},
    )
    (root / "pkg" / "link.py").symlink_to(root / "a.py")
    (root / "pkg" / "outside").symlink_to(tmp_path, target_is_directory=True)
    snapshot = store.get(root, None)
    assert snapshot.files == {"a.py", "pkg/sub/b.py", ".hidden/c.py"}
    assert snapshot.directories == {"pkg", "pkg/sub", ".hidden"}


def test_plain_directory_with_base_commit_is_a_clear_error(store: SnapshotStore, tmp_path: Path) -> None:
    write_files(tmp_path / "plain", {"a.py": "a"})
    with pytest.raises(SnapshotError, match=r"plain: not a git repository, but the case gives base_commit 'main'"):
        store.get(tmp_path / "plain", "main")


def test_subdirectory_of_a_repository_with_base_commit_points_at_the_repository(
    store: SnapshotStore, history: tuple[Path, str, str]
) -> None:
    path, first, _ = history
    with pytest.raises(SnapshotError, match=re.escape(f"inside the repository {path.resolve()}")):
        store.get(path / "src", first)


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_repo_that_is_not_a_directory_is_an_error(store: SnapshotStore, tmp_path: Path, kind: str) -> None:
    target = tmp_path / "repo"
    if kind == "file":
        target.write_text("not a directory")
    with pytest.raises(
        SnapshotError, match=re.escape(f"{target}: {'no such directory' if kind == 'missing' else 'not a directory'}")
    ):
        store.get(target, "main")


def test_bare_repository_is_materialised_from_the_object_database(store: SnapshotStore, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "bare.git", bare=True)
    head = commit(repo, {"lib/core.py": "core\n"}, "Add core")
    snapshot = store.get(tmp_path / "bare.git", "main")
    assert snapshot.commit == head
    assert read_tree_files(snapshot) == {"lib/core.py": b"core\n"}
    with pytest.raises(SnapshotError, match="no working tree to search; give base_commit"):
        store.get(tmp_path / "bare.git", None)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to hand the repository to another user"
)
def test_repository_owned_by_another_user_explains_safe_directory(
    store: SnapshotStore, history: tuple[Path, str, str]
) -> None:
    path, first, _ = history
    for directory, subdirectories, names in os.walk(path):
        for name in [directory, *(os.path.join(directory, n) for n in subdirectories + names)]:
            os.lchown(name, 65534, 65534)
    try:
        pygit2.Repository(str(path))
    except pygit2.GitError:
        pass
    else:
        pytest.skip("this git configuration trusts every directory (safe.directory)")
    with pytest.raises(SnapshotError, match=re.escape(f"git config --global --add safe.directory {path.resolve()}")):
        store.get(path, first)
    assert find_repository(path / "src") == path.resolve()  # found all the same; opening it explains


def test_find_repository_from_a_nested_subdirectory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    commit(repo, {"a/b/c.py": "c"})
    nested = tmp_path / "project" / "a" / "b" / "deeper"
    nested.mkdir(parents=True)
    assert find_repository(nested) == (tmp_path / "project").resolve()
    assert find_repository(tmp_path / "project") == (tmp_path / "project").resolve()
    init_repo(tmp_path / "bare.git", bare=True)
    assert find_repository(tmp_path / "bare.git" / "refs") == (tmp_path / "bare.git").resolve()
    assert find_repository(tmp_path / "elsewhere") is None


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("src/flask/apps.py", "src/flask/app.py"),
        ("SRC/Flask/App.py", "src/flask/app.py"),
        ("flask/app.py", "src/flask/app.py"),
        ("repo/src/flask/app.py", "src/flask/app.py"),
        ("docs/index.rst", None),
        ("app.py", "src/flask/app.py"),  # two paths end with it: the more similar
        ("cli.py", "src/flask/cli.py"),
    ],
)
def test_suggest_path(typed: str, expected: str | None) -> None:
    files = ["src/flask/app.py", "src/flask/cli.py", "tests/test_app.py", "README.md", "examples/tutorial/app.py"]
    assert suggest_path(typed, files) == expected


def test_a_listing_is_read_back_from_its_manifest_unless_a_blob_was_missing_or_the_repository_differs(
    tmp_path: Path, cache: Path
) -> None:
    repo = init_repo(tmp_path / "project")
    present = repo.create_blob(b"here\n")
    later = pygit2.hash(b"fetched later\n")  # the id of a blob this repository does not hold yet
    head = commit_tree(repo, raw_tree(repo, [(REGULAR, b"a.py", present), (REGULAR, b"b.py", later)]), ref="HEAD")
    with pytest.warns(IncompleteSnapshotWarning):
        first = SnapshotStore(cache, materialize=False).get(tmp_path / "project", head)
    assert first.files == {"a.py"}
    repo.create_blob(b"fetched later\n")  # a fetch brings it: the manifest that lacks it is not trusted
    assert SnapshotStore(cache, materialize=False).get(tmp_path / "project", head).files == {"a.py", "b.py"}
    written = json.loads((cache / f"{first.tree_id}.json").read_text())  # on disk too, for the next process
    assert written["files"]["path"] == ["a.py", "b.py"] and written["skipped"] == []
    # the same tree in another clone: its own listing, naming the clone its blobs are read from
    clone = init_repo(tmp_path / "clone")
    for oid in (present, repo.create_blob(b"fetched later\n"), repo[head].peel(pygit2.Tree).id):
        clone.odb.write(repo[oid].type, repo[oid].read_raw())
    copied = commit_tree(clone, repo[head].peel(pygit2.Tree).id, ref="HEAD")
    again = SnapshotStore(cache, materialize=False).get(tmp_path / "clone", copied)
    assert again.files == {"a.py", "b.py"} and again.tree_id == first.tree_id
    assert json.loads((cache / f"{first.tree_id}.json").read_text())["repository"] == os.path.abspath(clone.path)


def test_a_blob_one_clone_holds_is_still_missing_from_another_that_lacks_it(tmp_path: Path) -> None:
    full, partial = init_repo(tmp_path / "full"), init_repo(tmp_path / "partial")
    blob = full.create_blob(b"only the full clone has me\n")
    entries = [(REGULAR, b"big.bin", blob), (REGULAR, b"a.py", partial.create_blob(b"a\n"))]
    full.create_blob(b"a\n")
    listed = list_tree(full, full[raw_tree(full, entries)].peel(pygit2.Tree))  # remembers big.bin's size
    assert [f.path for f in listed.files] == ["big.bin", "a.py"]
    lacking = list_tree(partial, partial[raw_tree(partial, entries)].peel(pygit2.Tree))
    assert [f.path for f in lacking.files] == ["a.py"] and lacking.skipped_counts() == {"missing blob": 1}
