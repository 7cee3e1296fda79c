"""The files of the directory an agent was handed, each named by its git blob id.

The harness hands agents ``<cache>/<tree_id>``, whose manifest ``<cache>/<tree_id>.json`` lists every
file with its blob id (``repo/materialize.py``). :func:`list_snapshot` reads that listing, so a built-in
agent learns which files changed since a snapshot it already indexed without reading a byte of them,
and reads a new blob from the directory when it exists, else from the object database the manifest
names (the directory may be written later, or never). Any other directory is walked and each file
hashed as git would (``git hash-object``), so it shares cached work keyed by blob id too.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pygit2

from pytest_codesearch.repo.materialize import ManifestFile, TreeListing, read_manifest

_TREE_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

SnapshotFile = ManifestFile
"""One regular file of a snapshot: posix path relative to the root, blob id, size in bytes."""


@dataclass(frozen=True)
class SnapshotFiles:
    """The files of a snapshot sorted by path, and how to read one: ``read(file)`` gives bytes or None."""

    files: tuple[SnapshotFile, ...]
    read: Callable[[SnapshotFile], bytes | None]
    tree_id: str | None = None


def list_snapshot(root: Path, max_bytes: int) -> SnapshotFiles:
    """Return the regular files of ``root`` no larger than ``max_bytes``, sorted by path.

    Uses the manifest beside ``root`` when there is one; otherwise walks ``root`` (skipping ``.git``
    and symbolic links) and reads every file once to hash it. Raises ``NotADirectoryError`` when there
    is neither a manifest nor a directory.
    """
    listing = _manifest_for(root)
    if listing is not None:
        return SnapshotFiles(_sorted_files(listing.files, max_bytes), _reader(root, listing), listing.tree_id)
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory; pass the repository checkout to search")
    return SnapshotFiles(tuple(_hashed_files(root, max_bytes)), _disk_reader(root))


def _sorted_files(files: tuple[ManifestFile, ...], max_bytes: int) -> tuple[ManifestFile, ...]:
    """Return ``files`` no larger than ``max_bytes``, sorted by path (a tree lists them so, mostly)."""
    if any(f.size > max_bytes for f in files):
        files = tuple(f for f in files if f.size <= max_bytes)
    if all(a.path < b.path for a, b in zip(files, files[1:])):
        return files
    return tuple(sorted(files, key=lambda f: f.path))


def _manifest_for(root: Path) -> TreeListing | None:
    """Return the listing of ``root`` if it is a snapshot directory with a manifest beside it."""
    if not _TREE_ID.fullmatch(root.name):
        return None
    return read_manifest(root.parent, root.name)


def _reader(root: Path, listing: TreeListing) -> Callable[[SnapshotFile], bytes | None]:
    """Return how to read a file: from the directory once it exists, else from the repository."""
    if root.is_dir() or listing.repository is None:
        return _disk_reader(root)
    return _object_reader(listing.repository)


def _disk_reader(root: Path) -> Callable[[SnapshotFile], bytes | None]:
    def read(file: SnapshotFile) -> bytes | None:
        try:
            with open(os.path.join(root, file.path), "rb") as stream:
                return stream.read()
        except OSError:
            return None

    return read


def _object_reader(git_dir: str) -> Callable[[SnapshotFile], bytes | None]:
    def read(file: SnapshotFile) -> bytes | None:
        try:
            blob = _repository(git_dir).get(file.blob)
        except (pygit2.GitError, ValueError):
            return None
        return blob.data if isinstance(blob, pygit2.Blob) else None

    return read


_REPOSITORIES: dict[tuple[int, str], pygit2.Repository] = {}


def _repository(git_dir: str) -> pygit2.Repository:
    """Return the repository at ``git_dir``, opened once per process (never shared across a fork)."""
    pid = os.getpid()
    key = (pid, git_dir)
    if key not in _REPOSITORIES:
        for inherited in [k for k in _REPOSITORIES if k[0] != pid]:  # a forked parent's handles
            del _REPOSITORIES[inherited]
        _REPOSITORIES[key] = pygit2.Repository(git_dir)
    return _REPOSITORIES[key]


def _hashed_files(root: Path, max_bytes: int) -> list[SnapshotFile]:
    """Return the regular files under ``root`` sorted by path, each with its git blob id."""
    found: list[SnapshotFile] = []
    for relative, full in sorted(walk_files(root)):
        try:
            if os.stat(full, follow_symlinks=False).st_size > max_bytes:
                continue
            with open(full, "rb") as stream:
                data = stream.read()
        except OSError:
            continue
        found.append(SnapshotFile(relative, git_blob_id(data), len(data), False))
    return found


def git_blob_id(data: bytes) -> str:
    """Return the id git gives a blob holding ``data`` (SHA-1 of ``blob <size>\\0`` and the bytes)."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def walk_files(root: Path) -> list[tuple[str, str]]:
    """Return ``(relative posix path, full path)`` for the regular files under ``root``, unsorted.

    Anything named ``.git`` (the directory, or the file a worktree or submodule has) and symbolic
    links are skipped, as are directories that cannot be read.
    """
    found: list[tuple[str, str]] = []
    pending = [(os.fspath(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, f"{prefix}{entry.name}/"))
            elif entry.is_file(follow_symlinks=False):
                found.append((prefix + entry.name, entry.path))
    return found
