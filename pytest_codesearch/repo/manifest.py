"""The manifest of a snapshot: what a tree holds, recorded beside the directory it is written to.

``<cache_dir>/<tree_id>.json`` lists every regular file of the tree (path, blob id, size, executable bit,
by column), every entry left out with the reason, and the repository the blobs can be read from. It is
written atomically, may exist before or without its directory, and is read back by the snapshot store and
by the built-in agents. The last few manifests a process wrote or read are kept in memory.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

MANIFEST_VERSION = 2
"""Version 2 records the repository and lists files by column; other versions are read as absent."""


class ManifestFile(NamedTuple):
    """One regular file written into a snapshot directory (a named tuple: a large tree has a million)."""

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
    """What a materialised tree holds: its files and the entries that were skipped.

    ``repository`` is the git directory the listing was read from (where its blobs can be read), or None.
    """

    tree_id: str
    files: tuple[ManifestFile, ...]
    skipped: tuple[SkippedEntry, ...] = ()
    repository: str | None = None

    def skipped_counts(self) -> dict[str, int]:
        """Return how many entries were skipped for each reason."""
        return dict(sorted(Counter(entry.reason for entry in self.skipped).items()))


def manifest_path(cache_dir: Path, tree_id: str) -> Path:
    """Return where the manifest of ``tree_id`` lives: beside its directory, out of the agent's sight."""
    return cache_dir / f"{tree_id}.json"


def ensure_manifest(cache_dir: Path, listing: TreeListing) -> None:
    """Write the manifest of ``listing`` unless a current one is there; either way, remember it in memory.

    Checking costs one small read; a manifest's content is fixed by its tree id, so an existing one of
    this version is kept as it is.
    """
    location = manifest_path(cache_dir, listing.tree_id)
    try:
        with open(location, "rb") as stream:
            current = stream.read(len(_MANIFEST_PREFIX)) == _MANIFEST_PREFIX
    except OSError:
        current = False
    if current:
        _remember(location, listing)
    else:
        write_manifest(cache_dir, listing)


_MANIFEST_PREFIX = b'{"manifest_version":%d,' % MANIFEST_VERSION


def write_manifest(cache_dir: Path, listing: TreeListing) -> None:
    """Write the manifest of ``listing`` beside its directory, atomically (temporary file, then replace)."""
    document = {
        "manifest_version": MANIFEST_VERSION,
        "tree_id": listing.tree_id,
        "repository": listing.repository,
        # By column: a third of the time of one object per file to write and read (dataclasses.asdict,
        # which deep-copies, took 14 ms for 2,000 files).
        "files": {
            "path": [f.path for f in listing.files],
            "blob": [f.blob for f in listing.files],
            "size": [f.size for f in listing.files],
            "executable": [f.executable for f in listing.files],
        },
        "skipped": [asdict(item) for item in listing.skipped],
        "skipped_counts": listing.skipped_counts(),
    }
    # json.dumps, not json.dump: only the former uses the C encoder. ASCII: surrogate-escaped names survive.
    text = json.dumps(document, separators=(",", ":"))
    fd, scratch = tempfile.mkstemp(prefix=f".{listing.tree_id[:12]}-", suffix=".json.tmp", dir=cache_dir)
    try:
        with open(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(scratch, manifest_path(cache_dir, listing.tree_id))
    except BaseException:
        os.unlink(scratch)
        raise
    _remember(manifest_path(cache_dir, listing.tree_id), listing)


def read_manifest(cache_dir: Path, tree_id: str) -> TreeListing | None:
    """Return the listing recorded for ``tree_id``, or None when its manifest is missing or unreadable.

    The last few manifests this process wrote or read are kept in memory: the snapshot store writes one
    and an agent reads it a moment later. A manifest's content is fixed by its tree id.
    """
    location = manifest_path(cache_dir, tree_id)
    known = _RECENT.get(location)
    if known is not None and known[0] == _signature(location):
        _RECENT.move_to_end(location)
        return known[1]
    listing = _parse_manifest(location, tree_id)
    if listing is not None:
        _remember(location, listing)
    return listing


_RECENT: OrderedDict[Path, tuple[tuple[int, int, int] | None, TreeListing]] = OrderedDict()
_RECENT_SIZE = 8


def _signature(location: Path) -> tuple[int, int, int] | None:
    """Return what tells a manifest file from another one at the same place: inode, size, mtime."""
    try:
        found = os.stat(location)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def _remember(location: Path, listing: TreeListing) -> None:
    signature = _signature(location)
    if signature is None:
        return
    _RECENT[location] = (signature, listing)
    _RECENT.move_to_end(location)
    while len(_RECENT) > _RECENT_SIZE:
        _RECENT.popitem(last=False)


_MAKE_FILE = functools.partial(tuple.__new__, ManifestFile)
"""Makes a ``ManifestFile`` of a row in C: a third faster than calling the class, for a million files."""


def _parse_manifest(location: Path, tree_id: str) -> TreeListing | None:
    try:
        document = json.loads(location.read_text(encoding="utf-8"))
        if document["manifest_version"] != MANIFEST_VERSION or document["tree_id"] != tree_id:
            return None
        columns = document["files"]
        names = ("path", "blob", "size", "executable")
        if not all(isinstance(columns[name], list) for name in names) or len({len(columns[n]) for n in names}) > 1:
            return None
        files = tuple(map(_MAKE_FILE, zip(*(columns[name] for name in names))))
        skipped = tuple(SkippedEntry(**item) for item in document["skipped"])
        repository = document["repository"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return TreeListing(tree_id, files, skipped, repository if isinstance(repository, str) else None)
