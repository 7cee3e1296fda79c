"""Raw git objects read fast: the pack files first, the whole object database only for what they lack.

pygit2's ``Odb.read`` asks libgit2 for an object by prefix, which queries every backend: for each object
the loose backend makes a filesystem call (``access``) even when the object sits in a pack. Mining reads
about eight objects per commit, so ``ObjectReader`` keeps a second object database holding the
repository's packs alone and falls back to the full one (loose objects, alternates, packs written since)
when that misses. The bytes read are the same either way. ``fast_reads`` turns off what only costs time
while mining (issue 4, performance): libgit2's re-hashing of every object read, and its cache of trees.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2

from pytest_codesearch.filekinds import looks_binary
from pytest_codesearch.repo.reader import unverified_reads

_TREE = int(pygit2.enums.ObjectType.TREE)
BINARY_VERDICTS = 1 << 16
"""Blobs whose binary verdict is remembered (about 100 bytes each)."""
KNOWN_SIZES = 1 << 15
"""Blobs whose size is remembered once read or asked (about 100 bytes each): ``read_cost`` reads the object
header of the others."""
BLOB_BUDGET = 24 << 20
"""Bytes of recently read blobs ``BlobReader`` keeps. All of git's history with lines, two processes: the
largest one peaks at 596 MiB with 48 MiB, 576 with 32 and 559 with 24 (``git log -p``: 487 MiB), while
replaying its blob reads through those budgets gives 2.49, 2.62 and 2.70 GB inflated (docs/mining.md)."""
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
    """Reads blobs, keeping recent ones up to a byte budget, and remembers which blobs look binary.

    Walking newest first, the old version of a file in one commit is the new version of the same file in
    the next commit that changes it, often a few hundred commits older: kept by id (least recently used
    dropped first), it is inflated once for both (issue 12: reading blobs was the miner's largest cost).
    Memory stays bounded by ``budget``, whatever the length of the history.
    """

    def __init__(self, objects: ObjectReader, budget: int = BLOB_BUDGET, largest: int = 4 << 20) -> None:
        self._read = objects.read
        self.size = objects.size
        self._budget = budget
        self._largest = largest
        self._held = 0
        self._cache: OrderedDict[bytes, bytes] = OrderedDict()
        self._binary: dict[bytes, bool] = {}
        self._sizes: dict[bytes, int] = {}

    def read(self, oid: bytes) -> bytes:
        """Return the content of the blob ``oid`` (raw id); raises ``KeyError`` when it is missing."""
        data = self._cache.get(oid)
        if data is not None:
            self._cache.move_to_end(oid)
            return data
        data = bytes(self._read(oid)[1])
        self._known_size(oid, len(data))
        if len(data) <= self._largest:
            self._cache[oid] = data
            self._held += len(data)
            while self._held > self._budget:
                self._held -= len(self._cache.popitem(last=False)[1])
        return data

    def read_cost(self, oid: bytes) -> int:
        """Return the bytes ``read`` would inflate for the blob ``oid``: 0 when it is held, else its size.

        The size of a blob read or asked before is remembered (``KNOWN_SIZES``): walking newest first, a
        file's new version in one commit is its old version in the next commit that edits it, often read
        before and let go since (issue 23: a quarter of the object headers the whitespace rule read).
        """
        if oid in self._cache:
            return 0
        size = self._sizes.get(oid)
        if size is None:
            size = self.size(oid)
            self._known_size(oid, size)
        return size

    def _known_size(self, oid: bytes, size: int) -> None:
        if len(self._sizes) >= KNOWN_SIZES:
            self._sizes.clear()
        self._sizes[oid] = size

    def looks_binary(self, oid: bytes) -> bool:
        """Return whether the blob ``oid`` looks binary (``filekinds.looks_binary``), reading it at most once."""
        verdict = self._binary.get(oid)
        if verdict is None:
            verdict = looks_binary(self.read(oid))
            if len(self._binary) >= BINARY_VERDICTS:
                self._binary.clear()
            self._binary[oid] = verdict
        return verdict


@contextmanager
def fast_reads() -> Iterator[None]:
    """Read objects as ``git log`` does while mining, then restore libgit2's defaults (process-wide settings).

    libgit2 re-hashes every object it reads to check its id; git reads packs without that check (``git fsck``
    is what verifies a repository). libgit2 also keeps trees of up to 4 KiB in its object cache, which only
    costs time here: ``TreeDiffer`` keeps the trees it reuses, and every other tree is read once.
    """
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 0)
    try:
        with unverified_reads():
            yield
    finally:
        pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, _DEFAULT_TREE_LIMIT)
