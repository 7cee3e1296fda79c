"""A bound on the snapshot cache: the least recently used directories and blobs go first, never one in use.

The cache (``<cache_dir>/snapshots``) holds the directories agents search (``<tree id>/``, and linked working
trees under ``worktrees/``) and the blob files they hard-link to (``blobs/``, see ``blobs.py``). Each directory
has a mark, ``.marks/<name>``: its modification time is the directory's last use, its content the bytes the
directory takes itself (its folders, and files that are copies rather than links to a blob).

Safe across processes (xdist workers, concurrent runs) with ``flock``:

* a process searching a directory holds a shared lock on its mark (:class:`Holds`); the pruner asks for an
  exclusive one without waiting, so a directory in use is skipped, never removed;
* builders hold ``.prune.lock`` shared while they link blobs (:func:`building`) and the pruner holds it
  exclusively, so a blob about to be linked is never taken for one that nothing links to.

:func:`prune` removes directories not in use, least recently used first, while their own bytes exceed the
blob store's (a directory is rebuilt by linking, in milliseconds; this rule needs a blob store) or the cache is over its limit; then blob
files no directory links to (link count 1), oldest first, while the cache is still over its limit. Each pass
that frees something appends a line to ``.prune.log``, which the run's summary reads (:func:`pruned_since`).
Without ``fcntl`` (Windows) nothing is pruned.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.prunelog import LOG, Pruned, log_pruned
from pytest_codesearch.repo.blobs import BLOB_DIR
from pytest_codesearch.repo.seal import remove_tree, seal_path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, no pruning
    fcntl = None  # type: ignore[assignment]

MARKS = ".marks"
LOCK = ".prune.lock"
WORKTREES = "worktrees"
"""The folder of the cache that holds linked working trees (``worktree.py``)."""
_TREE_NAME = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def mark_path(cache_dir: Path, relative: str) -> Path:
    """Return the mark of the directory ``relative`` (``<tree id>`` or ``worktrees/<signature>``)."""
    return cache_dir / MARKS / relative.replace("/", "~")


def own_bytes(directory: Path) -> int:
    """Return the disk ``directory`` takes itself: its folders, and files no other path links to."""
    total = 0
    pending = [str(directory)]
    while pending:
        current = pending.pop()
        total += os.lstat(current).st_blocks * 512
        with os.scandir(current) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    status = entry.stat(follow_symlinks=False)
                    total += status.st_blocks * 512 if status.st_nlink == 1 else 0
    return total


def record_size(cache_dir: Path, relative: str, directory: Path) -> None:
    """Write the bytes ``directory`` takes itself into the mark of ``relative`` (its last use: now)."""
    mark = mark_path(cache_dir, relative)
    mark.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(mark, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, b"%d\n" % own_bytes(directory))
    finally:
        os.close(fd)


@contextmanager
def building(cache_dir: Path) -> Iterator[None]:
    """Hold the cache's prune lock shared while linking blobs, so that no pruner removes them meanwhile."""
    if fcntl is None:
        yield
        return
    fd = os.open(cache_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


class Holds:
    """The directories this process searches, each kept from pruning by a shared lock on its mark.

    The last ``keep`` directories held stay held (an agent may keep reading a directory it indexed); older
    ones are released. :meth:`hold` also records the use (the mark's modification time).
    """

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._held: OrderedDict[tuple[Path, str], int] = OrderedDict()

    def hold(self, cache_dir: Path, relative: str) -> None:
        """Hold the directory ``relative`` of ``cache_dir`` (it may not exist yet: build it after this).

        Held directories are keyed by ``(cache_dir, relative)``: holding one again (every case of a snapshot
        does) builds no path, it only touches the mark (issue 23).
        """
        key = (cache_dir, relative)
        fd = self._held.get(key)
        if fd is None:
            fd = self._held[key] = _lock_mark(mark_path(cache_dir, relative)) if fcntl is not None else -1
        self._held.move_to_end(key)
        if fd >= 0:
            os.utime(fd)
        while len(self._held) > self.keep:
            released = self._held.popitem(last=False)[1]
            if released >= 0:
                os.close(released)

    def release(self) -> None:
        """Release every directory held."""
        while self._held:
            released = self._held.popitem()[1]
            if released >= 0:
                os.close(released)


def _lock_mark(mark: Path) -> int:
    """Return a descriptor of ``mark`` holding a shared lock, on the file that is there once locked."""
    mark.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(mark, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            if os.fstat(fd).st_ino == os.stat(mark).st_ino:
                return fd
        except FileNotFoundError:  # a pruner removed this mark while we waited: take the new one
            pass
        os.close(fd)


@dataclass(frozen=True)
class _Entry:
    relative: str
    size: int
    used: float


def prune(cache_dir: Path, limit: int | None) -> Pruned:
    """Bring the cache under ``limit`` bytes (None: directories only; see the module docstring).

    Returns what was removed; appends it to ``.prune.log`` when anything was.
    """
    if fcntl is None or not cache_dir.is_dir():
        return Pruned()
    fd = os.open(cache_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _clear_trash(cache_dir)
        result = _prune_locked(cache_dir, limit)
        if result.freed or result.directories or result.blobs:
            log_pruned(cache_dir, result)
    finally:
        os.close(fd)
    return result


def _prune_locked(cache_dir: Path, limit: int | None) -> Pruned:
    entries = _directories(cache_dir)
    blobs = _blobs(cache_dir)
    blob_bytes = sum(size for size, _, _ in blobs.values())
    dir_bytes = sum(entry.size for entry in entries)
    orphans = sum(size for size, links, _ in blobs.values() if links == 1)
    bound = float("inf") if limit is None else limit
    removed = Pruned()
    for entry in sorted(entries, key=lambda e: e.used):
        if (not blob_bytes or dir_bytes <= blob_bytes) and dir_bytes + blob_bytes - orphans <= bound:
            break
        freed_orphans = _remove_directory(cache_dir, entry.relative, blobs)
        if freed_orphans is not None:
            dir_bytes -= entry.size
            orphans += freed_orphans
            removed += Pruned(1, 0, entry.size)
    if dir_bytes + blob_bytes > bound:
        removed += _remove_blobs(blobs, dir_bytes + blob_bytes - bound)
    return removed


def _directories(cache_dir: Path) -> list[_Entry]:
    """Return the snapshot directories and linked working trees of the cache, with size and last use."""
    found: list[_Entry] = []
    for parent, prefix in ((cache_dir, ""), (cache_dir / WORKTREES, f"{WORKTREES}/")):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            if (prefix or _TREE_NAME.fullmatch(name)) and not name.startswith("."):
                entry = _entry(cache_dir, prefix + name, parent / name)
                if entry is not None:
                    found.append(entry)
    return found


def _entry(cache_dir: Path, relative: str, directory: Path) -> _Entry | None:
    """Return the directory's entry from its mark, measuring it (and writing the mark) if need be."""
    mark = mark_path(cache_dir, relative)
    try:
        if not directory.is_dir():
            return None
        try:
            return _Entry(relative, int(mark.read_bytes()), os.stat(mark).st_mtime)
        except (OSError, ValueError):  # no mark yet, or one being written: measure
            used = directory.stat().st_mtime
            record_size(cache_dir, relative, directory)
            os.utime(mark, (used, used))
            return _Entry(relative, int(mark.read_bytes()), used)
    except (OSError, ValueError):  # removed meanwhile
        return None


def _blobs(cache_dir: Path) -> dict[tuple[int, int], tuple[int, int, str]]:
    """Return the blob files by (device, inode): (bytes, link count, path)."""
    found: dict[tuple[int, int], tuple[int, int, str]] = {}
    try:
        entries = os.scandir(cache_dir / BLOB_DIR)
    except OSError:
        return found
    with entries:
        for entry in entries:
            if not entry.name.startswith("."):
                status = entry.stat(follow_symlinks=False)
                found[(status.st_dev, status.st_ino)] = (status.st_blocks * 512, status.st_nlink, entry.path)
    return found


def remove_if_unused(cache_dir: Path, relative: str, before: float) -> bool:
    """Remove the directory ``relative`` of ``cache_dir`` if it was last used before the time ``before`` and
    no process holds it; return whether it went (its mark goes with it)."""
    if fcntl is None:
        return False
    entry = _entry(cache_dir, relative, cache_dir / relative)
    return entry is not None and entry.used < before and _remove_directory(cache_dir, relative, {}) is not None


def _remove_directory(
    cache_dir: Path, relative: str, blobs: dict[tuple[int, int], tuple[int, int, str]]
) -> int | None:
    """Remove the directory unless a process holds it; return the bytes of blobs it left unlinked."""
    mark = mark_path(cache_dir, relative)
    try:
        fd = os.open(mark, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # in use
            return None
        trash = Path(tempfile.mkdtemp(prefix=".trash-", dir=cache_dir))
        try:
            seal = seal_path(cache_dir, relative, cache_dir / relative)
            os.chmod(cache_dir / relative, 0o755)  # a sealed folder: moving it rewrites its ".."
            os.rename(cache_dir / relative, trash / "d")
        except OSError:
            os.rmdir(trash)
            return None
        orphaned = _unlinked_blobs(trash, blobs)
        remove_tree(trash)
        mark.unlink(missing_ok=True)
        seal.unlink(missing_ok=True)
        return orphaned
    finally:
        os.close(fd)


def _unlinked_blobs(directory: Path, blobs: dict[tuple[int, int], tuple[int, int, str]]) -> int:
    """Return the bytes of blob files that only ``directory`` (about to go) still links to."""
    total = 0
    for folder, _, files in os.walk(directory):
        for name in files:
            status = os.lstat(os.path.join(folder, name))
            found = blobs.get((status.st_dev, status.st_ino))
            if found is not None and status.st_nlink == 2:
                total += found[0]
    return total


def _remove_blobs(blobs: dict[tuple[int, int], tuple[int, int, str]], excess: float) -> Pruned:
    """Remove blob files nothing links to, oldest first, until ``excess`` bytes are freed."""
    candidates: list[tuple[float, int, str]] = []
    for size, _, path in blobs.values():
        try:
            status = os.lstat(path)
        except OSError:
            continue
        if status.st_nlink == 1:
            candidates.append((status.st_mtime, size, path))
    count, freed = remove_oldest(candidates, excess)
    return Pruned(0, count, freed)


def prune_files(root: Path, keep: int, above: int | None = None) -> tuple[int, int]:
    """Remove the files under ``root``, least recently modified first, until they take at most ``keep``
    bytes; return how many files went and the bytes freed (the stores of ``agents/index/`` prune this
    way). With ``above``, nothing is removed unless they take more than ``above`` bytes."""
    files: list[tuple[float, int, str]] = []
    for folder, _, names in os.walk(root):
        for name in names:
            if name == LOG:  # what was pruned before, for the run summary
                continue
            path = os.path.join(folder, name)
            try:
                status = os.lstat(path)
            except OSError:
                continue
            files.append((status.st_mtime, status.st_blocks * 512, path))
    total = sum(size for _, size, _ in files)
    if above is not None and total <= above:
        return 0, 0
    return remove_oldest(files, total - keep)


def remove_oldest(files: list[tuple[float, int, str]], excess: float) -> tuple[int, int]:
    """Unlink ``(mtime, size, path)`` files, oldest first, until ``excess`` bytes are freed; return how
    many files went and the bytes freed (a file that cannot be removed is passed over)."""
    freed = count = 0
    for _, size, path in sorted(files):
        if freed >= excess:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        freed, count = freed + size, count + 1
    return count, freed


def _clear_trash(cache_dir: Path) -> None:
    """Remove what an interrupted pruner left in ``.trash-*`` folders."""
    for trash in cache_dir.glob(".trash-*"):
        remove_tree(trash)
