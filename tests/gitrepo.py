"""Build real git repositories for tests with pygit2 alone: no git binary, no mocks.

Typical use::

    from gitrepo import Entry, commit, init_repo, tag

    repo = init_repo(tmp_path / "project")
    first = commit(repo, {"src/app.py": b"print(1)\\n", "README.md": "hello\\n"}, "Add the app")
    second = commit(repo, {"src/app.py": b"print(2)\\n", "README.md": None}, "Change the app, drop the README")
    tag(repo, "v1", first)
    commit(repo, {"run.sh": Entry(b"#!/bin/sh\\n", EXECUTABLE), "sub": Entry(commit=first, mode=GITLINK)})

``commit`` applies changes on top of the branch tip (``None`` deletes a path) and returns the full commit
id. Commits get a fixed author and committer one minute after their parent, so ids are reproducible.
Nothing is written to the working tree unless you call ``checkout`` or ``write_files``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pygit2

FileMode = pygit2.enums.FileMode
REGULAR = FileMode.BLOB
EXECUTABLE = FileMode.BLOB_EXECUTABLE
SYMLINK = FileMode.LINK
GITLINK = FileMode.COMMIT
TREE = FileMode.TREE

EPOCH = 1_700_000_000
DEFAULT_AUTHOR = ("Ada Lovelace", "ada@example.com")


@dataclass(frozen=True)
class Entry:
    """A file with an explicit mode: ``EXECUTABLE``, ``SYMLINK`` (``data`` is the target) or ``GITLINK``.

    A gitlink (submodule) records ``commit``, a commit id that need not exist in the repository.
    """

    data: bytes = b""
    mode: FileMode = REGULAR
    commit: str | None = None


FileValue = bytes | str | Entry | None


def init_repo(path: Path, *, bare: bool = False, branch: str = "main") -> pygit2.Repository:
    """Create an empty repository at ``path`` whose HEAD is the unborn ``branch``."""
    return pygit2.init_repository(str(path), bare=bare, initial_head=branch)


def signature(name: str = DEFAULT_AUTHOR[0], email: str = DEFAULT_AUTHOR[1], time: int = EPOCH) -> pygit2.Signature:
    """Return a signature in UTC at ``time`` (seconds since the epoch)."""
    return pygit2.Signature(name, email, time, 0)


def commit(
    repo: pygit2.Repository,
    files: Mapping[str, FileValue],
    message: str | bytes = "Change files",
    *,
    author: pygit2.Signature | None = None,
    committer: pygit2.Signature | None = None,
    branch: str | None = None,
    parents: Sequence[str] | None = None,
) -> str:
    """Commit ``files`` (path to content, ``None`` to delete) on top of ``branch``; return the commit id.

    ``branch`` defaults to the current one (HEAD, born on the first commit). ``parents`` overrides the
    parent list (``[]`` for a new root, two ids for a merge); the tree always starts from the first
    parent's. ``author`` defaults to a fixed signature one minute after the first parent.
    """
    ref = "HEAD" if branch is None else f"refs/heads/{branch}"
    parent_ids = _tip(repo, ref) if parents is None else [pygit2.Oid(hex=p) for p in parents]
    base = repo[parent_ids[0]].peel(pygit2.Commit) if parent_ids else None
    tree_id = write_tree(repo, files, base=None if base is None else base.tree)
    if author is None:
        author = signature(time=EPOCH if base is None else base.commit_time + 60)
    return str(repo.create_commit(ref, author, committer or author, message, tree_id, parent_ids))


def write_tree(repo: pygit2.Repository, files: Mapping[str, FileValue], base: pygit2.Tree | None = None) -> pygit2.Oid:
    """Write the tree of ``base`` (or an empty one) with ``files`` applied, nested paths included."""
    index = pygit2.Index()
    if base is not None:
        index.read_tree(base)
    for path, value in files.items():
        if value is None:
            index.remove(path)
        else:
            index.add(_index_entry(repo, path, value))
    return index.write_tree(repo)


def _index_entry(repo: pygit2.Repository, path: str, value: bytes | str | Entry) -> pygit2.IndexEntry:
    """Return the index entry for one file, writing its blob."""
    if isinstance(value, Entry):
        if value.mode == GITLINK:
            if value.commit is None:
                raise ValueError(f"{path}: a GITLINK entry needs commit=<commit id>")
            return pygit2.IndexEntry(path, pygit2.Oid(hex=value.commit), GITLINK)
        return pygit2.IndexEntry(path, repo.create_blob(value.data), value.mode)
    data = value.encode() if isinstance(value, str) else value
    return pygit2.IndexEntry(path, repo.create_blob(data), REGULAR)


def _tip(repo: pygit2.Repository, ref: str) -> list[pygit2.Oid]:
    """Return ``[commit id]`` of ``ref`` (resolving symbolic refs), or ``[]`` while it is unborn."""
    try:
        return [repo.references[ref].resolve().target]  # type: ignore[list-item]
    except (KeyError, pygit2.GitError):
        return []


def raw_tree(repo: pygit2.Repository, entries: Sequence[tuple[int, bytes, str | pygit2.Oid]]) -> pygit2.Oid:
    """Write a tree object byte for byte from ``(mode, raw name, object id)`` triples, in the order given.

    This bypasses every check (``TreeBuilder`` and ``Index`` refuse names such as ``..``, ``.git`` or
    ``a/b``), so tests can reproduce crafted or corrupt trees.
    """
    body = b"".join(b"%o %s\0" % (mode, name) + bytes.fromhex(str(oid)) for mode, name, oid in entries)
    return repo.odb.write(pygit2.enums.ObjectType.TREE, body)


def commit_tree(
    repo: pygit2.Repository, tree_id: str | pygit2.Oid, message: str = "Commit a tree", ref: str | None = None
) -> str:
    """Commit an existing tree with no parent, optionally moving ``ref``; return the commit id."""
    author = signature()
    oid = tree_id if isinstance(tree_id, pygit2.Oid) else pygit2.Oid(hex=tree_id)
    return str(repo.create_commit(ref, author, author, message, oid, []))


def branch(repo: pygit2.Repository, name: str, target: str) -> None:
    """Create (or move) the branch ``name`` to the commit ``target``."""
    repo.branches.local.create(name, repo[pygit2.Oid(hex=target)].peel(pygit2.Commit), force=True)


def tag(repo: pygit2.Repository, name: str, target: str, message: str | None = None) -> None:
    """Tag the commit ``target``: a lightweight tag, or an annotated one when ``message`` is given."""
    oid = pygit2.Oid(hex=target)
    if message is None:
        repo.references.create(f"refs/tags/{name}", oid)
    else:
        repo.create_tag(name, oid, pygit2.enums.ObjectType.COMMIT, signature(), message)


def checkout(repo: pygit2.Repository) -> None:
    """Make the working tree and index match HEAD, discarding local changes."""
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)  # type: ignore[no-untyped-call]


def write_files(root: Path, files: Mapping[str, bytes | str]) -> None:
    """Write plain files under ``root`` (no git involved), creating parent directories."""
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)
