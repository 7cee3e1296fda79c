"""Write a git tree into a shared cache directory: once per tree, atomically, never following a link.

The directory ``<cache_dir>/<tree_id>/`` holds the tree's regular files and nothing else (no ``.git``,
no symlinks, no submodules). Its manifest ``<cache_dir>/<tree_id>.json`` (``manifest.py``) lists every file
with its blob id and size, every entry that was left out with the reason, and the repository the blobs can
be read from. Several processes may ask for the same tree at once: each builds in its own temporary directory beside the
target and renames it into place, so a reader sees either no directory or a complete one (PITFALLS 23).

:func:`list_tree` (``listing.py``) gives the same listing without writing any file (about 1 ms for 2,000
files, against about 1 ms *a file* to write them): a manifest may exist before, or without, its directory.
Which entries are left out, and why, is ``entries.py``'s, for both.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pygit2

from pytest_codesearch.repo.blobs import BlobStore
from pytest_codesearch.repo.entries import (
    MISSING_BLOB,
    TREE,
    TYPE_MASK,
    MaterializeError,
    git_dir,
    is_safe_name,
    refusal,
)
from pytest_codesearch.repo.listing import SubtreeMemo, list_tree
from pytest_codesearch.repo.manifest import (
    MANIFEST_VERSION,
    ManifestFile,
    SkippedEntry,
    TreeListing,
    ensure_manifest,
    manifest_path,
    read_manifest,
    write_manifest,
)
from pytest_codesearch.repo.prune import building, record_size
from pytest_codesearch.repo.seal import remove_tree, seal_directory, seal_path

__all__ = [
    "MANIFEST_VERSION",
    "MISSING_BLOB",
    "ManifestFile",
    "MaterializeError",
    "SkippedEntry",
    "SubtreeMemo",
    "TreeListing",
    "ensure_manifest",
    "is_safe_name",
    "list_tree",
    "manifest_path",
    "materialize_tree",
    "read_manifest",
    "write_manifest",
]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_HAS_DIR_FD = {os.open, os.mkdir} <= os.supports_dir_fd

_Kind = TypeVar("_Kind", pygit2.Tree, pygit2.Blob)


def materialize_tree(
    repo: pygit2.Repository, tree: pygit2.Tree, cache_dir: Path, *, link_blobs: bool = True
) -> tuple[Path, TreeListing]:
    """Return the directory holding ``tree`` under ``cache_dir`` and its listing, writing both if needed.

    Files are hard links to read-only blob files under ``<cache_dir>/blobs`` (``blobs.py``), or, with
    ``link_blobs`` False, copies of their own; the directory is sealed read-only (``seal.py``).

    An existing directory is reused as it is. A file whose blob the repository lacks is skipped as a
    ``MISSING_BLOB``. Raises ``MaterializeError`` for a missing or mistyped subtree and ``OSError`` when
    the cache cannot be written.
    """
    tree_id = str(tree.id)
    target = cache_dir / tree_id
    if target.is_dir():
        listing = read_manifest(cache_dir, tree_id)
        if listing is not None:
            return target, listing
    cache_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{tree_id[:12]}-", suffix=".tmp", dir=cache_dir))
    try:
        with building(cache_dir):  # no pruner may take a blob between its writing and its linking
            try:
                listing = _write_tree(repo, tree, scratch, BlobStore.beside(cache_dir) if link_blobs else None)
            except MaterializeError as exc:  # name the tree beside the entry
                raise MaterializeError(f"tree {tree_id}: {exc}") from None
            write_manifest(cache_dir, listing)  # before the rename: an existing directory implies a manifest
            record_size(cache_dir, tree_id, scratch)
            seal_directory(cache_dir, tree_id, scratch)  # read-only, its seal written before it is seen
            _publish(scratch, target)
    finally:
        if scratch.exists():
            seal_path(cache_dir, tree_id, scratch).unlink(missing_ok=True)
            remove_tree(scratch)
    return target, listing


def _publish(scratch: Path, target: Path) -> None:
    """Rename ``scratch`` to ``target``; if another process got there first, keep theirs."""
    try:
        os.rename(scratch, target)
    except OSError:
        if not target.is_dir():
            raise


def _write_tree(repo: pygit2.Repository, tree: pygit2.Tree, root: Path, blobs: BlobStore | None) -> TreeListing:
    """Write the regular files of ``tree`` into the empty directory ``root``; return what was written.

    With ``blobs``, each file is a hard link to its read-only blob file (``blobs.py``); where links fail
    (a file system without them, a link count at its limit) the file is written as a copy.
    """
    writer = _TreeWriter(repo, blobs)
    with _Directory.open(str(root)) as directory:
        writer.write(tree, directory, "")
    return TreeListing(str(tree.id), tuple(writer.files), tuple(writer.skipped), git_dir(repo))


@dataclass
class _Directory:
    """A directory we created, addressed by file descriptor where the platform allows (``*at`` calls)."""

    path: str
    fd: int | None

    @classmethod
    def open(cls, path: str) -> _Directory:
        """Open ``path`` without following a symlink in its last component."""
        return cls(path, os.open(path, _DIR_FLAGS) if _HAS_DIR_FD else None)

    def __enter__(self) -> _Directory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def _at(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def subdirectory(self, name: str) -> _Directory:
        """Create the child directory ``name`` (``FileExistsError`` if taken) and open it."""
        os.mkdir(self._at(name), 0o755, dir_fd=self.fd)
        child = os.path.join(self.path, name)
        if self.fd is None:
            return _Directory(child, None)
        return _Directory(child, os.open(name, _DIR_FLAGS, dir_fd=self.fd))

    def link_file(self, name: str, source: Path) -> None:
        """Create ``name`` as a hard link to ``source`` (``FileExistsError`` if taken), never following a link."""
        os.link(source, self._at(name), dst_dir_fd=self.fd, follow_symlinks=False)

    def create_file(self, name: str, data: bytes, executable: bool) -> None:
        """Create the new file ``name`` holding ``data`` (``FileExistsError`` if taken)."""
        mode = 0o755 if executable else 0o644
        fd = os.open(self._at(name), _FILE_FLAGS, mode, dir_fd=self.fd)
        with open(fd, "wb") as stream:
            stream.write(data)


@dataclass
class _TreeWriter:
    """Walks a tree depth first, writing blobs straight from the object database."""

    repo: pygit2.Repository
    blobs: BlobStore | None = None
    files: list[ManifestFile] = field(default_factory=list)
    skipped: list[SkippedEntry] = field(default_factory=list)

    def write(self, tree: pygit2.Tree, directory: _Directory, prefix: str) -> None:
        """Write every acceptable entry of ``tree`` into ``directory``; ``prefix`` is its posix path."""
        for entry in tree:
            raw_name = entry.raw_name or b""
            name = os.fsdecode(raw_name)
            path = prefix + name
            reason = refusal(raw_name, entry.filemode)
            try:
                if reason is not None:
                    self._skip(path, entry, reason)
                elif entry.filemode & TYPE_MASK == TREE:
                    self._write_subtree(entry, directory, name, path)
                else:
                    self._write_blob(entry, directory, name, path)
            except FileExistsError:  # a duplicate or, on a case-insensitive disk, case-colliding name
                self._skip(path, entry, "duplicate name")

    def _write_subtree(self, entry: pygit2.Object, directory: _Directory, name: str, path: str) -> None:
        subtree = _lookup(self.repo, entry, pygit2.Tree, path)
        with directory.subdirectory(name) as child:
            self.write(subtree, child, path + "/")

    def _write_blob(self, entry: pygit2.Object, directory: _Directory, name: str, path: str) -> None:
        found = self.repo.get(entry.id)
        if found is None:  # a partial clone or a mirror that keeps large files out
            self._skip(path, entry, MISSING_BLOB)
            return
        blob = _checked(found, pygit2.Blob, entry, path)
        executable = bool(entry.filemode & 0o111)
        if self.blobs is not None and self.blobs.linked:
            try:
                directory.link_file(name, self.blobs.ensure(str(blob.id), blob, executable))
            except FileExistsError:
                raise
            except OSError:
                self.blobs.linked = False
            else:
                self.files.append(ManifestFile(path, str(entry.id), blob.size, executable))
                return
        directory.create_file(name, blob.data, executable)
        self.files.append(ManifestFile(path, str(entry.id), blob.size, executable))

    def _skip(self, path: str, entry: pygit2.Object, reason: str) -> None:
        self.skipped.append(SkippedEntry(path, int(entry.filemode), str(entry.id), reason))


def _lookup(repo: pygit2.Repository, entry: pygit2.Object, kind: type[_Kind], path: str) -> _Kind:
    """Return the object ``entry`` names, or raise ``MaterializeError`` if it is missing or not a ``kind``."""
    return _checked(repo.get(entry.id), kind, entry, path)


def _checked(found: pygit2.Object | None, kind: type[_Kind], entry: pygit2.Object, path: str) -> _Kind:
    """Return ``found``, the object ``entry`` names, or raise ``MaterializeError`` if it is None or not a ``kind``."""
    if not isinstance(found, kind):
        what = "missing from the repository" if found is None else f"a {found.type_str}"
        raise MaterializeError(f"object {entry.id} for {path!r} is {what}")
    return found
