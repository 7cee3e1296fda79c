"""Raw git objects read fast: the pack files first, the whole object database only for what they lack.

pygit2's ``Odb.read`` asks libgit2 for an object by prefix, which queries every backend: for each object
the loose backend makes a filesystem call (``access``) even when the object sits in a pack. Mining reads
about eight objects per commit, so ``ObjectReader`` keeps a second object database holding the
repository's packs alone and falls back to the full one (loose objects, alternates, packs written since)
when that misses. The bytes read are the same either way. ``fast_reads`` turns off what only costs time
while mining (issue 4, performance): libgit2's re-hashing of every object read, and its cache of trees.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2

_TREE = int(pygit2.enums.ObjectType.TREE)
_DEFAULT_TREE_LIMIT = 4096
"""libgit2's default size limit for caching a tree (``GIT_OPT_SET_CACHE_OBJECT_LIMIT``)."""


class ObjectReader:
    """Reads raw objects of one repository, from its packs when they hold them (see the module docstring)."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self._full = repo.odb
        self._packed = _pack_database(repo)

    def read(self, oid: bytes) -> tuple[int, bytes]:
        """Return (object type as an int, content) of the object ``oid`` (raw id); ``KeyError`` when missing."""
        key = pygit2.Oid(raw=oid)
        if self._packed is not None:
            try:
                kind, data = self._packed.read(key)
                return int(kind), data
            except KeyError:  # loose, in an alternate, or in a pack written after we opened ours
                pass
        kind, data = self._full.read(key)
        return int(kind), data

    def size(self, oid: bytes) -> int:
        """Return the size of the object ``oid`` from its header, without inflating it; ``KeyError`` when missing."""
        key = pygit2.Oid(raw=oid)
        if self._packed is not None:
            try:
                return int(self._packed.read_header(key)[1])
            except KeyError:
                pass
        return int(self._full.read_header(key)[1])

    def tree(self, oid: bytes) -> bytes:
        """Return the raw content of the tree ``oid``; ``KeyError`` when it is missing or not a tree."""
        kind, data = self.read(oid)
        if kind != _TREE:
            raise KeyError(f"object {oid.hex()} is not a tree")
        return data


def _pack_database(repo: pygit2.Repository) -> pygit2.Odb | None:
    """Return an object database of the repository's own packs, or None when it has none."""
    objects = _objects_directory(Path(repo.path))
    pack = objects / "pack"
    if not pack.is_dir() or not any(pack.glob("*.idx")):
        return None
    try:
        database = pygit2.Odb()
        database.add_backend(pygit2.OdbBackendPack(str(objects)), 1)
    except (pygit2.GitError, OSError, ValueError):  # unreadable packs: the full database reports them
        return None
    return database


def _objects_directory(gitdir: Path) -> Path:
    """Return the objects directory of a git directory (a linked work tree's lives in the common directory)."""
    common = gitdir / "commondir"
    if common.is_file():
        return (gitdir / common.read_text().strip()).resolve() / "objects"
    return gitdir / "objects"


class BlobReader:
    """Reads blobs, keeping the last few: a commit's old file is often the next commit's new one."""

    def __init__(self, objects: ObjectReader, keep: int = 8, largest: int = 1 << 20) -> None:
        self._read = objects.read
        self.size = objects.size
        self._keep = keep
        self._largest = largest
        self._cache: dict[bytes, bytes] = {}

    def read(self, oid: bytes) -> bytes:
        """Return the content of the blob ``oid`` (raw id); raises ``KeyError`` when it is missing."""
        data = self._cache.get(oid)
        if data is None:
            data = bytes(self._read(oid)[1])
            if len(data) <= self._largest:
                if len(self._cache) >= self._keep:
                    del self._cache[next(iter(self._cache))]
                self._cache[oid] = data
        return data


@contextmanager
def fast_reads() -> Iterator[None]:
    """Read objects as ``git log`` does while mining, then restore libgit2's defaults (process-wide settings).

    libgit2 re-hashes every object it reads to check its id; git reads packs without that check (``git fsck``
    is what verifies a repository). libgit2 also keeps trees of up to 4 KiB in its object cache, which only
    costs time here: ``TreeDiffer`` keeps the trees it reuses, and every other tree is read once.
    """
    pygit2.settings.enable_strict_hash_verification(False)
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 0)
    try:
        yield
    finally:
        pygit2.settings.enable_strict_hash_verification(True)
        pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, _DEFAULT_TREE_LIMIT)
