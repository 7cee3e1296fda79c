"""A directory searched as it is, minus what the harness itself owns.

A case without ``base_commit`` searches its repository's working tree. That tree may hold the snapshot
cache, the last run's reports, pytest's cache and the gold sets themselves: an agent searching them finds
the answers (issue 8, defect 2). :func:`list_worktree` lists the regular files an agent may see, leaving
out ``.git``, Python's ``__pycache__`` folders and every excluded path; :func:`copy_worktree` gives agents that need a directory on disk one
that holds exactly those files: a read-only copy under the cache (never the user's own files, nor hard links
to them, which a write would go through: issue 18 item 2), sealed (``seal.py``), published by rename and
named by a digest of the files' paths, sizes, times and inodes, so an unchanged tree is copied once and
shared by runs and xdist workers.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.prune import WORKTREES, record_size, remove_if_unused
from pytest_codesearch.repo.seal import remove_tree, seal_directory, seal_path

GIT_DIR = ".git"
BYTECODE_DIR = "__pycache__"
"""Python's compiled modules beside the sources: never what a search should find, and rewritten whenever
the interpreter runs the tree (an unchanged tree would look changed)."""
STALE_SECONDS = 24 * 3600
"""A linked copy of a working tree unused this long is removed when another copy of that tree is made."""


@dataclass(frozen=True)
class WorktreeListing:
    """The files of a working tree an agent may see.

    ``files`` are posix paths relative to ``root``; ``hidden`` says whether anything under ``root`` was
    left out (``.git`` or an excluded path); ``signature`` names the copy agents that need a directory get: a digest of ``root`` (its first 12 characters, shared by every
    copy of that tree) and of every listed file's path, size, modification time and inode.
    """

    root: Path
    files: frozenset[str]
    hidden: bool
    signature: str
    size: int = 0
    """The listed files' bytes: what a copy takes."""


def list_worktree(root: Path, exclude: AbstractSet[str]) -> WorktreeListing:
    """Return the regular files under ``root`` (resolved), skipping symlinks, ``.git``, ``__pycache__`` and
    ``exclude``.

    ``exclude`` holds resolved absolute paths of files or directories to leave out with all they hold.
    Directories that cannot be read are skipped.
    """
    files: list[str] = []
    digest = hashlib.sha1(usedforsecurity=False)
    hidden = False
    size = 0
    pending = [(str(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:  # unreadable: the agent cannot search it either
            continue
        for entry in entries:
            if entry.name == GIT_DIR or entry.path in exclude:
                hidden = True
            elif entry.name == BYTECODE_DIR:
                continue
            elif entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, f"{prefix}{entry.name}/"))
            elif entry.is_file(follow_symlinks=False):
                found = entry.stat(follow_symlinks=False)
                files.append(prefix + entry.name)
                size += found.st_size
                digest.update(b"%s\0%d\0%d\0%d\n" % (os.fsencode(files[-1]), found.st_size, found.st_mtime_ns,
                                                    found.st_ino))
    place = hashlib.sha1(os.fsencode(root), usedforsecurity=False).hexdigest()[:12]
    return WorktreeListing(root, frozenset(files), hidden, f"{place}-{digest.hexdigest()}", size)


def worktree_directory(cache_dir: Path, listing: WorktreeListing) -> Path:
    """Return where the agents that need a directory search ``listing``: its read-only copy in the cache."""
    return cache_dir / WORKTREES / listing.signature


def copy_worktree(cache_dir: Path, listing: WorktreeListing) -> Path:
    """Return :func:`worktree_directory`, first building the sealed copy if it is missing.

    Raises ``OSError`` when the cache cannot be written.
    """
    target = worktree_directory(cache_dir, listing)
    if target.is_dir():
        return target
    relative = f"{WORKTREES}/{listing.signature}"
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{listing.signature[:12]}-", suffix=".tmp", dir=target.parent))
    try:
        _copy_files(listing, scratch)
        record_size(cache_dir, relative, scratch)
        seal_directory(cache_dir, relative, scratch)
        try:
            os.rename(scratch, target)
        except OSError:  # another process published it first: keep theirs
            if not target.is_dir():
                raise
    finally:
        if scratch.exists():
            seal_path(cache_dir, relative, scratch).unlink(missing_ok=True)
            remove_tree(scratch)
    _prune(cache_dir, target)
    return target


def _prune(cache_dir: Path, kept: Path) -> None:
    """Remove the other linked copies of ``kept``'s tree not used for :data:`STALE_SECONDS` and held by no
    process (their last use is their mark's, ``prune.py``)."""
    place = kept.name.partition("-")[0]
    cutoff = time.time() - STALE_SECONDS
    for other in kept.parent.glob(f"{place}-*"):
        if other != kept:
            remove_if_unused(cache_dir, f"{WORKTREES}/{other.name}", cutoff)


def _copy_files(listing: WorktreeListing, scratch: Path) -> None:
    """Copy every listed file into the empty directory ``scratch``, leaving out a file removed since it was
    listed or that we cannot read (agents could not read it either)."""
    made: set[str] = set()
    for path in sorted(listing.files):
        parent = path.rpartition("/")[0]
        if parent and parent not in made:
            os.makedirs(scratch / parent, exist_ok=True)
            made.add(parent)
        try:
            shutil.copyfile(os.path.join(listing.root, path), scratch / path, follow_symlinks=False)
        except OSError:
            (scratch / path).unlink(missing_ok=True)
