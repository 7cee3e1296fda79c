"""The files a built-in agent searches, each named by its git blob id.

The harness offers an agent the snapshot's view (``use_snapshot(view)``, see ``repo/reader.py``): its
files with their blob ids, and its one reader. :func:`list_snapshot` lists a view, so a built-in agent
learns which files changed since a snapshot it already indexed without reading a byte of them, and reads
a new blob through the view (from the object database for a commit, whether or not its directory was
written). A directory the agent was handed without a view is the view the snapshot store of this
process made for it (``known_view``), else it is walked and each file hashed as git would
(``git hash-object``), so it shares cached work keyed by blob id too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.reader import SnapshotFile, SnapshotView, git_blob_id, known_view

__all__ = ["SnapshotFile", "SnapshotFiles", "git_blob_id", "list_snapshot", "walk_files"]


@dataclass(frozen=True)
class SnapshotFiles:
    """The files of a snapshot sorted by path, and how to read one: ``read(file)`` gives bytes or None."""

    files: tuple[SnapshotFile, ...]
    read: Callable[[SnapshotFile], bytes | None]
    tree_id: str | None = None


def list_snapshot(root: Path, max_bytes: int, view: SnapshotView | None = None) -> SnapshotFiles:
    """Return the regular files of the snapshot at ``root`` no larger than ``max_bytes``, sorted by path.

    Uses ``view`` when given, else the view this process's snapshot store made for ``root``; otherwise
    walks ``root`` (skipping ``.git`` and symbolic links) and reads every file once to hash it. Raises
    ``NotADirectoryError`` when there is neither a view nor a directory.
    """
    view = view if view is not None else known_view(root)
    if view is not None:
        files = view.files
        if any(f.size > max_bytes for f in files):
            files = tuple(f for f in files if f.size <= max_bytes)
        return SnapshotFiles(files, _view_reader(view), view.tree_id)
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory; pass the repository checkout to search")
    return SnapshotFiles(tuple(_hashed_files(root, max_bytes)), _disk_reader(root))


def _view_reader(view: SnapshotView) -> Callable[[SnapshotFile], bytes | None]:
    def read(file: SnapshotFile) -> bytes | None:
        return view.read(file.path)

    return read


def _disk_reader(root: Path) -> Callable[[SnapshotFile], bytes | None]:
    def read(file: SnapshotFile) -> bytes | None:
        try:
            with open(os.path.join(root, file.path), "rb") as stream:
                return stream.read()
        except OSError:
            return None

    return read


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
