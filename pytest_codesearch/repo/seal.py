"""Snapshot directories handed to agents are read-only, and checked for changes each time they are reused.

A directory an agent searches (``<tree id>/``, ``worktrees/<signature>/``) is shared by every agent, case,
run and xdist worker, and a commit's files are hard links into the blob store (``blobs.py``): one write
would change what every later agent sees. So, before it is published, :func:`seal_directory` makes every
file 0444 (0555 if executable) and every folder 0555, and records each file's inode, size and
modification time in a seal, ``<cache_dir>/.seals/<name>-<inode of the directory>``, out of the agents'
sight. Permissions stop an agent that is not root; root ignores them, so :func:`changes` compares the
directory with its seal (one ``lstat`` per file, about 5 ms for 1,000 files): a file written, replaced,
removed or added is a change. On Linux, ``watch.py`` spares that walk after a case while inotify saw
nothing touch the directory; the walk stays the truth whenever it saw anything. The store rebuilds a changed directory and the agent that changed it is
told so (``evaluate.py``).

A write within the file system's clock tick of the file's creation that keeps its size is not seen
(modification times are coarse); nor is one that puts the old time back on purpose.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.blobs import BLOB_DIR, BlobStore
from pytest_codesearch.repo.manifest import TreeListing

SEALS = ".seals"
READ_ONLY_FILE = 0o444
READ_ONLY_EXECUTABLE = 0o555
READ_ONLY_FOLDER = 0o555

Stamp = tuple[int, int, int]
"""What a sealed file must still show: inode, size, modification time (ns)."""


@dataclass(frozen=True)
class Change:
    """One difference between a directory and its seal: ``kind`` is "wrote", "removed" or "added"."""

    kind: str
    path: str
    inode: int | None = None
    """For "wrote" in place (the inode kept), the inode whose content changed: a shared blob may be corrupt."""

    def describe(self) -> str:
        """Return e.g. ``wrote 'src/app.py'``."""
        return f"{self.kind} {self.path!r}"


def seal_path(cache_dir: Path, relative: str, directory: Path) -> Path:
    """Return the seal of the directory ``relative`` as it is now (named by the directory's inode, which a
    rename keeps: a builder that loses the race to publish leaves the winner's seal alone)."""
    return cache_dir / SEALS / f"{relative.replace('/', '~')}-{os.lstat(directory).st_ino}"


def seal_directory(cache_dir: Path, relative: str, directory: Path) -> None:
    """Make ``directory`` read-only (files 0444 or 0555, folders 0555) and write its seal."""
    stamps: dict[str, Stamp] = {}
    folders: list[str] = []
    for path, entry in _walk(str(directory)):
        if entry.is_dir(follow_symlinks=False):
            folders.append(entry.path)
            continue
        found = entry.stat(follow_symlinks=False)
        if found.st_mode & 0o222:  # a copy; a blob file is read-only already (and shared: leave its time)
            os.chmod(entry.path, READ_ONLY_EXECUTABLE if found.st_mode & 0o111 else READ_ONLY_FILE)
            found = os.lstat(entry.path)
        stamps[path] = (found.st_ino, found.st_size, found.st_mtime_ns)
    for folder in [*reversed(folders), str(directory)]:
        os.chmod(folder, READ_ONLY_FOLDER)
    target = seal_path(cache_dir, relative, directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_name(f".{target.name}.tmp{os.getpid()}")
    scratch.write_text(json.dumps(stamps, separators=(",", ":")), encoding="utf-8", errors="surrogateescape")
    os.replace(scratch, target)


_READ: dict[Path, tuple[Stamp, dict[str, Stamp]]] = {}
"""Seals read by this process, by path, with the seal file's own stamp when it was read (issue 23)."""
_READ_KEPT = 8


def read_seal(cache_dir: Path, relative: str, directory: Path) -> dict[str, Stamp] | None:
    """Return the stamps sealed for ``directory`` as it is now, or None when it has no seal (an older cache,
    a directory being removed). Do not modify them: a seal file unchanged since this process read it is not
    read again."""
    try:
        path = seal_path(cache_dir, relative, directory)
        found = os.stat(path)
        own = (found.st_ino, found.st_size, found.st_mtime_ns)
        known = _READ.get(path)
        if known is not None and known[0] == own:
            return known[1]
        document = json.loads(path.read_text(encoding="utf-8", errors="surrogateescape"))
        stamps = {name: (int(s[0]), int(s[1]), int(s[2])) for name, s in document.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return None
    _READ.pop(path, None)
    _READ[path] = (own, stamps)  # most recently read last
    while len(_READ) > _READ_KEPT:
        del _READ[next(iter(_READ))]
    return stamps


def changes(directory: Path, stamps: dict[str, Stamp]) -> list[Change]:
    """Return how ``directory`` differs from its ``stamps``, sorted by path (empty: unchanged)."""
    found: list[Change] = []
    seen: set[str] = set()
    for path, entry in _walk(str(directory)):
        if entry.is_dir(follow_symlinks=False):
            continue
        stamp = stamps.get(path)
        if stamp is None:
            found.append(Change("added", path))
            continue
        seen.add(path)
        now = entry.stat(follow_symlinks=False)
        if not stat.S_ISREG(now.st_mode):
            found.append(Change("wrote", path))
        elif (now.st_ino, now.st_size, now.st_mtime_ns) != stamp:
            found.append(Change("wrote", path, now.st_ino if now.st_ino == stamp[0] else None))
    found.extend(Change("removed", path) for path in stamps if path not in seen)
    return sorted(found, key=lambda change: change.path)


def verify(cache_dir: Path, relative: str, directory: Path, listing: TreeListing | None = None) -> list[Change]:
    """Return how ``directory`` (the cache's ``relative``) differs from its seal; if it does, remove it.

    An unsealed directory (an older cache) counts as changed, a missing one as removed. A file written in
    place through a hard link corrupts its blob: that blob file (found through ``listing``) goes too, so
    the rebuild writes it afresh. Another process may have replaced the directory meanwhile: only the
    directory that was checked is removed.
    """
    try:
        inode = os.lstat(directory).st_ino
        stamps = read_seal(cache_dir, relative, directory)
        found = [Change("changed", ".")] if stamps is None else changes(directory, stamps)
    except OSError:
        return [Change("removed", ".")]
    if found:
        _drop_corrupt_blobs(cache_dir, found, listing)
        _remove_checked(cache_dir, relative, directory, inode)
    return found


def _drop_corrupt_blobs(cache_dir: Path, found: list[Change], listing: TreeListing | None) -> None:
    """Unlink the blob files whose content an agent wrote through a hard link."""
    written = {change.path: change.inode for change in found if change.inode is not None}
    if not written or listing is None:
        return
    blobs = BlobStore(cache_dir / BLOB_DIR)
    for item in listing.files:
        if item.path in written:
            blob = blobs.path(item.blob, item.executable)
            with contextlib.suppress(OSError):
                if os.lstat(blob).st_ino == written[item.path]:
                    os.unlink(blob)


def _remove_checked(cache_dir: Path, relative: str, directory: Path, inode: int) -> None:
    """Remove ``directory`` and its seal if it is still the directory of inode ``inode``."""
    trash = Path(tempfile.mkdtemp(prefix=".trash-", dir=cache_dir))
    try:
        os.chmod(directory, 0o755)  # moving a folder to another parent rewrites its "..": it must be writable
        os.rename(directory, trash / "d")
    except OSError:
        remove_tree(trash)
        return
    if os.lstat(trash / "d").st_ino != inode:  # another process rebuilt it meanwhile: give it back
        with contextlib.suppress(OSError):
            os.rename(trash / "d", directory)
    else:
        (cache_dir / SEALS / f"{relative.replace('/', '~')}-{inode}").unlink(missing_ok=True)
    remove_tree(trash)


def remove_tree(directory: Path) -> None:
    """Remove ``directory`` and all it holds, read-only folders too; what cannot be removed stays."""
    try:
        os.chmod(directory, 0o755)
    except OSError:
        return
    for folder, names, _ in os.walk(directory):
        for name in names:
            try:
                os.chmod(os.path.join(folder, name), 0o755, follow_symlinks=False)
            except (OSError, NotImplementedError):
                continue
    shutil.rmtree(directory, ignore_errors=True)


def _walk(root: str) -> list[tuple[str, os.DirEntry[str]]]:
    """Return every entry below ``root`` with its posix path relative to ``root``, folders included."""
    found: list[tuple[str, os.DirEntry[str]]] = []
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                found.append((prefix + entry.name, entry))
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, f"{prefix}{entry.name}/"))
    return found
