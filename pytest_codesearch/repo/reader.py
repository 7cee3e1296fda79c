"""One reader per snapshot: the bytes of its files, the same whoever asks and whatever is on disk.

Everything that looks inside a snapshot's files (line and function scoring, failure analysis, the
built-in agents, and later validation) reads through :meth:`SnapshotView.read`:

* a commit's snapshot reads blobs from the object database by the blob id its tree listing gives
  (``TreeReader``), so the answer does not depend on whether some agent had the tree written to disk;
* a directory searched as it is reads the file itself (``DirectoryReader``), but only files of the
  snapshot's listing: what the harness hides (its cache, reports, gold sets, ``.git``) reads as None.

Repositories are opened once per process, lazily, and never used across a fork (PITFALLS 24).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pygit2

from pytest_codesearch.repo.manifest import ManifestFile, TreeListing

SnapshotFile = ManifestFile
"""One regular file of a snapshot: posix ``path`` relative to the root, git ``blob`` id, ``size`` in bytes."""

__all__ = [
    "DirectoryReader",
    "FileReader",
    "SnapshotFile",
    "SnapshotView",
    "TreeReader",
    "adopt_repository",
    "git_blob_id",
    "known_view",
    "open_repository",
    "remember_view",
    "unverified_reads",
]


class FileReader(Protocol):
    """What reads a snapshot's files: their listing, and the bytes of one by path."""

    def read(self, path: str) -> bytes | None:
        """Return the bytes of the snapshot file ``path``, or None if it is not one or cannot be read."""

    def files(self) -> tuple[SnapshotFile, ...]:
        """Return every file of the snapshot, sorted by path."""

    def paths(self) -> tuple[str, ...]:
        """Return the path of every file of the snapshot, sorted, without reading any file."""


@dataclass(frozen=True)
class SnapshotView:
    """What an agent (or scoring) may know of a snapshot: its files, their bytes, its tree id.

    ``root`` is the directory the harness hands to ``initialize`` (for a commit it may not be written
    yet); ``tree_id`` is the full git tree id, or None for a directory searched as it is. This is what
    the optional agent hook ``use_snapshot(view)`` receives (see ``docs/writing-an-agent.md``).
    """

    root: Path
    tree_id: str | None
    reader: FileReader = field(repr=False, compare=False)

    @property
    def files(self) -> tuple[SnapshotFile, ...]:
        """Return every file of the snapshot (path, blob id, size, executable bit), sorted by path."""
        return self.reader.files()

    @property
    def paths(self) -> tuple[str, ...]:
        """Return the path of every file, sorted: cheaper than ``files`` for a directory (no hashing)."""
        return self.reader.paths()

    def read(self, path: str) -> bytes | None:
        """Return the bytes of the snapshot file ``path`` (posix, relative to the root), or None."""
        return self.reader.read(path)


class TreeReader:
    """Reads a commit's files from the object database, by the blob ids of its tree listing."""

    def __init__(self, git_dir: str, listing: TreeListing) -> None:
        self.git_dir = git_dir
        self.listing = listing
        self._blobs: dict[str, str] | None = None
        self._sorted: tuple[SnapshotFile, ...] | None = None

    def read(self, path: str) -> bytes | None:
        """Return the content of the blob the tree holds at ``path``, or None if it holds none there."""
        blob_id = self.blob_of(path)
        return None if blob_id is None else read_blob(self.git_dir, blob_id)

    def blob_of(self, path: str) -> str | None:
        """Return the id of the blob the tree holds at ``path``, or None if it holds none there."""
        if self._blobs is None:
            self._blobs = {item.path: item.blob for item in self.listing.files}
        return self._blobs.get(path)

    def files(self) -> tuple[SnapshotFile, ...]:
        """Return the tree's regular files sorted by path (a tree lists them so, mostly)."""
        if self._sorted is None:
            files = self.listing.files
            if not all(a.path < b.path for a, b in zip(files, files[1:])):
                files = tuple(sorted(files, key=lambda f: f.path))
            self._sorted = files
        return self._sorted

    def paths(self) -> tuple[str, ...]:
        """Return the tree's file paths, sorted."""
        return tuple(f.path for f in self.files())


class DirectoryReader:
    """Reads the listed files of a directory as they are; any other path reads as None.

    The listing with blob ids (:meth:`files`) hashes every file as git would, once, on first use.
    """

    def __init__(self, root: Path, paths: frozenset[str]) -> None:
        self.root = root
        self.paths_listed = paths
        self._files: tuple[SnapshotFile, ...] | None = None

    def read(self, path: str) -> bytes | None:
        """Return the bytes of ``path`` under the root if it is a listed file, else None."""
        if path not in self.paths_listed:
            return None
        try:
            with open(os.path.join(self.root, path), "rb") as stream:
                return stream.read()
        except OSError:
            return None

    def files(self) -> tuple[SnapshotFile, ...]:
        """Return the listed files that can be read, sorted by path, each with its git blob id."""
        if self._files is None:
            found: list[SnapshotFile] = []
            for path in self.paths():
                try:
                    found.append(_hash_file(path, os.path.join(self.root, path)))
                except OSError:
                    continue
            self._files = tuple(found)
        return self._files

    def paths(self) -> tuple[str, ...]:
        """Return the listed paths, sorted, reading no file."""
        return tuple(sorted(self.paths_listed))


def git_blob_id(data: bytes) -> str:
    """Return the id git gives a blob holding ``data`` (SHA-1 of ``blob <size>\\0`` and the bytes)."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def _hash_file(path: str, full: str) -> SnapshotFile:
    """Return the listing entry of a file on disk, hashed as git would, in chunks (any size fits)."""
    with open(full, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
        read = 0
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
            read += len(chunk)
    if read != size:  # changed while we read it: hash what is there now
        with open(full, "rb") as stream:
            data = stream.read()
        return SnapshotFile(path, git_blob_id(data), len(data), False)
    return SnapshotFile(path, digest.hexdigest(), size, False)


RECENT_BYTES = 1 << 24
"""Bytes of the blobs read last that a process keeps (16 MB): bm25 reads a case's best files again to
outline them, mostly soon after it read them to count their tokens."""
RECENT_LARGEST = 1 << 20
"""The largest blob kept (1 MB)."""
_RECENT: OrderedDict[tuple[str, str], bytes] = OrderedDict()
_recent_bytes = [0]


@contextmanager
def unverified_reads() -> Iterator[None]:
    """Read objects without libgit2 hashing each one again to check its id, as git reads (``git fsck`` checks a
    repository; zlib's checksum still catches a damaged pack), then turn the check back on (libgit2's default,
    process-wide: libgit2 offers no way to read the setting)."""
    pygit2.settings.enable_strict_hash_verification(False)
    try:
        yield
    finally:
        pygit2.settings.enable_strict_hash_verification(True)


def read_blob(git_dir: str, blob_id: str) -> bytes | None:
    """Return the content of the blob ``blob_id`` in the repository at ``git_dir``, or None.

    Read from the object database (``Odb.read``), not as a ``Blob`` object, and without libgit2 hashing
    the content again to check its id (``unverified_reads``, for this read alone): the same bytes for half
    the CPU a blob (a cold SWE-bench Lite run reads 640 MB of them).
    """
    key = (git_dir, blob_id)
    data = _RECENT.get(key)
    if data is not None:
        _RECENT.move_to_end(key)
        return data
    database = _object_database(git_dir)
    try:
        with unverified_reads():
            kind, data = database.read(blob_id)
    except (pygit2.GitError, KeyError, ValueError):  # missing, or not an object id
        return None
    if kind != pygit2.enums.ObjectType.BLOB:
        return None
    if len(data) <= RECENT_LARGEST:
        _RECENT[key] = data
        _recent_bytes[0] += len(data)
        while _recent_bytes[0] > RECENT_BYTES:
            _recent_bytes[0] -= len(_RECENT.popitem(last=False)[1])
    return data


_REPOSITORIES: dict[tuple[int, str], pygit2.Repository] = {}


def open_repository(git_dir: str) -> pygit2.Repository:
    """Return the repository at ``git_dir``, opened once per process (never shared across a fork)."""
    key = (os.getpid(), os.path.abspath(git_dir))
    if key not in _REPOSITORIES:
        _forget_inherited()
        _REPOSITORIES[key] = pygit2.Repository(key[1])
    return _REPOSITORIES[key]


def adopt_repository(repository: pygit2.Repository) -> pygit2.Repository:
    """Return this process's handle on ``repository``'s git directory, keeping ``repository`` if it is the first."""
    key = (os.getpid(), os.path.abspath(repository.path))
    if key not in _REPOSITORIES:
        _forget_inherited()
        _REPOSITORIES[key] = repository
    return _REPOSITORIES[key]


def _forget_inherited() -> None:
    """Drop the handles a forked parent opened: a child must open its own (PITFALLS 24)."""
    pid = os.getpid()
    for inherited in [k for k in _REPOSITORIES if k[0] != pid]:
        del _REPOSITORIES[inherited]
    for inherited in [k for k in _DATABASES if k[0] != pid]:
        del _DATABASES[inherited]


_DATABASES: dict[tuple[int, str], tuple[pygit2.Repository, pygit2.Odb]] = {}


def _object_database(git_dir: str) -> pygit2.Odb:
    """Return the object database of this process's handle on the repository at ``git_dir`` (made once)."""
    repository = open_repository(git_dir)
    key = (os.getpid(), git_dir)
    found = _DATABASES.get(key)
    if found is None or found[0] is not repository:
        found = _DATABASES[key] = (repository, repository.odb)
    return found[1]


_VIEWS: dict[Path, SnapshotView] = {}
_VIEWS_SIZE = 128
"""Entries kept: a view is kept under its root as given and as resolved, so about 64 snapshots."""


def remember_view(view: SnapshotView) -> None:
    """Record ``view`` as this process's view of the directory ``view.root`` (about the last 64 are kept)."""
    if _VIEWS.get(view.root) is view:  # once per case: keep it to a dict lookup
        return
    for key in {view.root, Path(os.path.realpath(view.root))}:  # as given, and as IndexCache resolves it
        _VIEWS.pop(key, None)
        _VIEWS[key] = view
    while len(_VIEWS) > _VIEWS_SIZE:
        del _VIEWS[next(iter(_VIEWS))]


def known_view(directory: Path) -> SnapshotView | None:
    """Return the view the snapshot store of this process made for ``directory``, or None.

    This lets an agent that was handed a snapshot directory but has no ``use_snapshot`` hook read the
    same files the hook would give (no walk of the disk, nothing the harness hides).
    """
    return _VIEWS.get(Path(directory)) or _VIEWS.get(Path(os.path.realpath(directory)))
