"""Write a git tree into a shared cache directory: once per tree, atomically, never following a link.

The directory ``<cache_dir>/<tree_id>/`` holds the tree's regular files and nothing else (no ``.git``,
no symlinks, no submodules). Its manifest ``<cache_dir>/<tree_id>.json`` lists every file with its blob id
and size, and every entry that was left out with the reason. Several processes may ask for the same tree
at once: each builds in its own temporary directory beside the target and renames it into place, so a
reader sees either no directory or a complete one (PITFALLS 23).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

import pygit2

MANIFEST_VERSION = 1

_TYPE_MASK = 0o170000
_TREE = 0o040000
_REGULAR = 0o100000
_SYMLINK = 0o120000
_GITLINK = 0o160000

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_HAS_DIR_FD = {os.open, os.mkdir} <= os.supports_dir_fd

_Kind = TypeVar("_Kind", pygit2.Tree, pygit2.Blob)


class MaterializeError(Exception):
    """The object database cannot supply a tree completely (a missing or mistyped object)."""


@dataclass(frozen=True)
class ManifestFile:
    """One regular file written into a snapshot directory."""

    path: str
    blob: str
    size: int
    executable: bool


@dataclass(frozen=True)
class SkippedEntry:
    """One tree entry left out of a snapshot directory, and why ("symlink", "submodule", ...)."""

    path: str
    mode: int
    object: str
    reason: str


@dataclass(frozen=True)
class TreeListing:
    """What a materialised tree holds: its files and the entries that were skipped."""

    tree_id: str
    files: tuple[ManifestFile, ...]
    skipped: tuple[SkippedEntry, ...] = ()

    def skipped_counts(self) -> dict[str, int]:
        """Return how many entries were skipped for each reason."""
        return dict(sorted(Counter(entry.reason for entry in self.skipped).items()))


def manifest_path(cache_dir: Path, tree_id: str) -> Path:
    """Return where the manifest of ``tree_id`` lives: beside its directory, out of the agent's sight."""
    return cache_dir / f"{tree_id}.json"


def materialize_tree(repo: pygit2.Repository, tree: pygit2.Tree, cache_dir: Path) -> tuple[Path, TreeListing]:
    """Return the directory holding ``tree`` under ``cache_dir`` and its listing, writing both if needed.

    An existing directory is reused as it is. Raises ``MaterializeError`` for objects missing from the
    repository and ``OSError`` when the cache cannot be written.
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
        listing = _write_tree(repo, tree, scratch)
        os.chmod(scratch, 0o755)
        write_manifest(cache_dir, listing)  # before the rename: an existing directory implies a manifest
        _publish(scratch, target)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    return target, listing


def _publish(scratch: Path, target: Path) -> None:
    """Rename ``scratch`` to ``target``; if another process got there first, keep theirs."""
    try:
        os.rename(scratch, target)
    except OSError:
        if not target.is_dir():
            raise


def _write_tree(repo: pygit2.Repository, tree: pygit2.Tree, root: Path) -> TreeListing:
    """Write the regular files of ``tree`` into the empty directory ``root``; return what was written."""
    writer = _TreeWriter(repo)
    with _Directory.open(str(root)) as directory:
        writer.write(tree, directory, "")
    return TreeListing(str(tree.id), tuple(writer.files), tuple(writer.skipped))


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
        subtree = self._lookup(entry, pygit2.Tree, path)
        with directory.subdirectory(name) as child:
            self.write(subtree, child, path + "/")

    def _write_blob(self, entry: pygit2.Object, directory: _Directory, name: str, path: str) -> None:
        data = self._lookup(entry, pygit2.Blob, path).data
        executable = bool(entry.filemode & 0o111)
        directory.create_file(name, data, executable)
        self.files.append(ManifestFile(path, str(entry.id), len(data), executable))

    def _lookup(self, entry: pygit2.Object, kind: type[_Kind], path: str) -> _Kind:
        found = self.repo.get(entry.id)
        if not isinstance(found, kind):
            what = "missing from the repository" if found is None else f"a {found.type_str}"
            raise MaterializeError(f"object {entry.id} for {path!r} is {what}")
        return found

    def _skip(self, path: str, entry: pygit2.Object, reason: str) -> None:
        self.skipped.append(SkippedEntry(path, int(entry.filemode), str(entry.id), reason))


def _refusal(raw_name: bytes, mode: int) -> str | None:
    """Return why an entry must not be written, or None if it is a file or directory we can create."""
    if not is_safe_name(raw_name):
        return "unsafe name"
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


def write_manifest(cache_dir: Path, listing: TreeListing) -> None:
    """Write the manifest of ``listing`` beside its directory, atomically (temporary file, then replace)."""
    document = {
        "manifest_version": MANIFEST_VERSION,
        "tree_id": listing.tree_id,
        "files": [asdict(item) for item in listing.files],
        "skipped": [asdict(item) for item in listing.skipped],
        "skipped_counts": listing.skipped_counts(),
    }
    fd, scratch = tempfile.mkstemp(prefix=f".{listing.tree_id[:12]}-", suffix=".json.tmp", dir=cache_dir)
    try:
        with open(fd, "w", encoding="utf-8") as stream:
            json.dump(document, stream, separators=(",", ":"))  # ASCII: surrogate-escaped names survive
        os.replace(scratch, manifest_path(cache_dir, listing.tree_id))
    except BaseException:
        os.unlink(scratch)
        raise


def read_manifest(cache_dir: Path, tree_id: str) -> TreeListing | None:
    """Return the listing recorded for ``tree_id``, or None when its manifest is missing or unreadable."""
    try:
        document = json.loads(manifest_path(cache_dir, tree_id).read_text(encoding="utf-8"))
        if document["manifest_version"] != MANIFEST_VERSION or document["tree_id"] != tree_id:
            return None
        files = tuple(ManifestFile(**item) for item in document["files"])
        skipped = tuple(SkippedEntry(**item) for item in document["skipped"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return TreeListing(tree_id, files, skipped)
