"""Write a git tree into a shared cache directory: once per tree, atomically, never following a link.

The directory ``<cache_dir>/<tree_id>/`` holds the tree's regular files and nothing else (no ``.git``,
no symlinks, no submodules). Its manifest ``<cache_dir>/<tree_id>.json`` (``manifest.py``) lists every file
with its blob id and size, every entry that was left out with the reason, and the repository the blobs can
be read from. Several processes may ask for the same tree at once: each builds in its own temporary directory beside the
target and renames it into place, so a reader sees either no directory or a complete one (PITFALLS 23).

:func:`list_tree` gives the same listing without writing any file (about 1 ms for 2,000 files, against
about 1 ms *a file* to write them): a manifest may exist before, or without, its directory.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pygit2

from pytest_codesearch.repo.blobs import BlobStore
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

_TYPE_MASK = 0o170000
_TREE = 0o040000
_REGULAR = 0o100000
_SYMLINK = 0o120000
_GITLINK = 0o160000

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_HAS_DIR_FD = {os.open, os.mkdir} <= os.supports_dir_fd

_Kind = TypeVar("_Kind", pygit2.Tree, pygit2.Blob)


MISSING_BLOB = "missing blob"
"""The reason a file whose blob the repository lacks is left out of a snapshot (a partial clone, a mirror
that keeps its largest files out): the snapshot holds the rest, and only a case that needs the file fails."""


class MaterializeError(Exception):
    """The object database cannot supply a tree completely (a missing or mistyped object)."""


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
    return TreeListing(str(tree.id), tuple(writer.files), tuple(writer.skipped), _git_dir(repo))


SubtreeMemo = MutableMapping[tuple[str, str], tuple[tuple[ManifestFile, ...], tuple[SkippedEntry, ...]]]
"""Listings of subtrees already walked, keyed by (subtree id, path prefix): see :func:`list_tree`."""


def list_tree(repo: pygit2.Repository, tree: pygit2.Tree, memo: SubtreeMemo | None = None) -> TreeListing:
    """Return the listing :func:`materialize_tree` would write for ``tree``, reading no blob content.

    Sizes come from object headers. A name taken twice is skipped as a "duplicate name"; a pair of names
    differing only in case is kept (the directory, written on a case-insensitive disk, would keep one).
    With a ``memo`` shared across calls, a subtree listed before at the same path is not walked again:
    consecutive commits share all but a few subtrees. A file whose blob the repository lacks is skipped
    as a ``MISSING_BLOB``. Raises ``MaterializeError`` for a missing or mistyped subtree.
    """
    try:
        lister = _TreeLister(repo, {} if memo is None else memo, len(tree.id.raw))
        files, skipped = lister.walk(tree.id, "")
    except MaterializeError as exc:
        raise MaterializeError(f"tree {tree.id}: {exc}") from None
    return TreeListing(str(tree.id), files, skipped, _git_dir(repo))


def _git_dir(repo: pygit2.Repository) -> str:
    """Return the absolute git directory of ``repo``, without a trailing separator."""
    return os.path.abspath(repo.path)


@dataclass
class _TreeLister:
    """Walks a tree depth first like :class:`_TreeWriter`, recording what it would write.

    It reads each tree object's raw entries (``<octal mode> <name>\\0<binary id>``) itself rather than
    through pygit2's entry objects, which cost several Python objects and an enum per entry: listing the
    274 SWE-bench Lite snapshots went from 4.2 to about 1.4 CPU-seconds.
    """

    repo: pygit2.Repository
    memo: SubtreeMemo
    width: int = 20

    def walk(self, oid: pygit2.Oid, prefix: str) -> tuple[tuple[ManifestFile, ...], tuple[SkippedEntry, ...]]:
        """Return the files and skipped entries of the tree ``oid``, whose posix path is ``prefix``."""
        key = (str(oid), prefix)
        known = self.memo.get(key)
        if known is not None:
            return known
        files: list[ManifestFile] = []
        skipped: list[SkippedEntry] = []
        seen: set[bytes] = set()
        for mode, raw_name, raw_id in _entries(self._tree_data(oid, prefix), self.width, key[0]):
            name, reason = _NAMES.get(raw_name) or _name(raw_name)
            path = prefix + name
            reason = reason or _mode_refusal(mode)
            if reason is None and raw_name in seen:
                reason = "duplicate name"
            elif reason is None:
                seen.add(raw_name)
            if reason is not None:
                skipped.append(SkippedEntry(path, mode, raw_id.hex(), reason))
            elif mode & _TYPE_MASK == _TREE:
                below = self.walk(pygit2.Oid(raw=raw_id), path + "/")
                files.extend(below[0])
                skipped.extend(below[1])
            else:
                size = self._size(raw_id, path)
                if size is None:
                    skipped.append(SkippedEntry(path, mode, raw_id.hex(), MISSING_BLOB))
                else:
                    files.append(ManifestFile(path, raw_id.hex(), size, bool(mode & 0o111)))
        self.memo[key] = found = (tuple(files), tuple(skipped))
        return found

    def _tree_data(self, oid: pygit2.Oid, prefix: str) -> bytes:
        """Return the raw entries of the tree ``oid``; raise ``MaterializeError`` if it is missing or no tree."""
        path = prefix.rstrip("/")
        try:
            kind, data = self.repo.odb.read(oid)
        except KeyError:  # a corrupt object raises GitError, which names what is wrong: it passes through
            raise MaterializeError(f"object {oid} for {path!r} is missing from the repository") from None
        if int(kind) != pygit2.enums.ObjectType.TREE:
            raise MaterializeError(f"object {oid} for {path!r} is a {_TYPE_NAMES.get(int(kind), 'object')}")
        return bytes(data)

    def _size(self, raw_id: bytes, path: str) -> int | None:
        """Return the size of the blob ``raw_id`` names, or None when the repository lacks it.

        Sizes are remembered by repository and blob id for the process (:data:`_BLOB_SIZES`): a changed
        directory of a later commit holds mostly blobs listed before, and a header read costs more.
        """
        sizes = _BLOB_SIZES.get(self.repo.path)
        if sizes is None or len(sizes) >= _BLOB_SIZES_LIMIT:
            sizes = _BLOB_SIZES[self.repo.path] = {}
        known = sizes.get(raw_id)
        if known is not None:
            return known
        oid = pygit2.Oid(raw=raw_id)
        try:
            kind, size = _read_header(self.repo, oid)
        except (KeyError, pygit2.GitError):
            return None
        if kind != pygit2.enums.ObjectType.BLOB:
            raise MaterializeError(f"object {oid} for {path!r} is not a blob")
        sizes[raw_id] = size = int(size)
        return size


_BLOB_SIZES: dict[str, dict[bytes, int]] = {}
"""Blob sizes by repository (another clone may lack a blob this one has) and binary id, read once per process."""
_BLOB_SIZES_LIMIT = 1 << 19
_NAMES: dict[bytes, tuple[str, str | None]] = {}
"""Each entry name seen: its decoded form and why it is refused (None: safe). Names repeat across trees."""
_TYPE_NAMES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}


def _entries(data: bytes, width: int, tree_id: str) -> Iterator[tuple[int, bytes, bytes]]:
    """Yield (mode, raw name, raw id) of each entry of a tree object's raw ``data``."""
    at, end = 0, len(data)
    try:
        while at < end:
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            mode = int(data[at:space], 8)
            at = nul + 1 + width
            if at > end:
                raise ValueError("an entry's id is cut short")
            yield mode, data[space + 1 : nul], data[nul + 1 : at]
    except ValueError as exc:
        raise MaterializeError(f"tree {tree_id} is malformed: {exc}") from None


def _name(raw_name: bytes) -> tuple[str, str | None]:
    """Return (and remember) the decoded ``raw_name`` and why it is refused, None when it is safe."""
    if len(_NAMES) >= _BLOB_SIZES_LIMIT:
        _NAMES.clear()
    _NAMES[raw_name] = found = (os.fsdecode(raw_name), None if is_safe_name(raw_name) else "unsafe name")
    return found


def _read_header(repo: pygit2.Repository, oid: pygit2.Oid) -> tuple[int, int]:
    """Return (object type, size) without loading the content where pygit2 allows (``Odb.read_header``,
    pygit2 >= 1.19; older releases, the newest on Python 3.10, read the object)."""
    read_header = getattr(repo.odb, "read_header", None)
    if read_header is not None:
        kind, size = read_header(oid)
        return int(kind), int(size)
    kind, data = repo.odb.read(oid)
    return int(kind), len(data)


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
            reason = _refusal(raw_name, entry.filemode)
            try:
                if reason is not None:
                    self._skip(path, entry, reason)
                elif entry.filemode & _TYPE_MASK == _TREE:
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


def _refusal(raw_name: bytes, mode: int) -> str | None:
    """Return why an entry must not be written, or None if it is a file or directory we can create."""
    if not is_safe_name(raw_name):
        return "unsafe name"
    return _mode_refusal(mode)


def _mode_refusal(mode: int) -> str | None:
    """Return why an entry of ``mode`` must not be written (a link, a submodule...), or None."""
    kind = mode & _TYPE_MASK
    if kind == _SYMLINK:
        return "symlink"
    if kind == _GITLINK:
        return "submodule"
    if kind not in (_TREE, _REGULAR):
        return "unsupported mode"
    return None


def is_safe_name(raw_name: bytes) -> bool:
    """Return whether a tree entry name is one plain path component that is not ``.git`` in any case.

    Refuses empty names, ``.`` and ``..``, names holding a separator or NUL, and ``.git`` with any casing
    or the trailing dots and spaces that Windows ignores.
    """
    if raw_name in (b"", b".", b"..") or b"/" in raw_name or b"\0" in raw_name:
        return False
    if os.altsep is not None and os.altsep.encode() in raw_name:
        return False
    return raw_name.rstrip(b". ").lower() != b".git"
