"""Snapshot directories seen untouched without a walk: inotify watches on every sealed file (Linux; issue 23).

:func:`seal.verify` compares a directory with its seal, one ``lstat`` a file, after every case an agent
searched it. A :class:`SealWatch` spares that walk while nothing happened: before a directory is handed
out in this process (and before it is first walked here), every file and folder of it is watched
through one inotify instance of the process. A watch is on the inode, so a write through any of a
file's hard links (another snapshot's, the blob store's) is seen, from any process.

After a case, one non-blocking read takes the events. The directory counts as untouched only if, since
it was armed or last found unchanged, none of its files or folders was written, truncated, chmod-ed,
linked, renamed, removed or added to (``IN_MODIFY``, ``IN_ATTRIB``, ``IN_CLOSE_WRITE``, ``IN_CREATE``, ...),
and none of its files is open now. Opening a file is seen (``IN_OPEN``) but not its mode: a write through
a shared memory mapping sends no event, and only the close of the last descriptor (``IN_CLOSE_WRITE``)
shows that it was open for writing. So each file's opens are counted against its closes; while one is
open (an agent reading it, or holding a mapping across cases), a close is seen that this process never
saw opened, or anything else happens, the directory is walked as before (:func:`seal.verify`, which
stays the truth). If an entry was added, moved or removed, its watches may no longer cover it (a new
folder, which the walk does not count as a change; a directory another process rebuilt, even under the
old folder's inode number): it is forgotten, and watched anew, then walked, before it is handed out again.

The watch stops, and every check walks, on a queue overflow, a refused watch or instance (limits such
as ``max_user_watches``), a platform without inotify, or in a forked child. Once a directory was handed
out without its watch (past :data:`WATCH_BUDGET` files, on a file system not in
:data:`LOCAL_FILE_SYSTEMS` such as NFS, or after a stop), no further directory is armed: an agent
could have opened its files before they were watched. What the watch cannot see is a write through a
descriptor opened before this process began to watch the file: an agent can hold one only by opening
the cache's files from outside the directories handed to it (the blob store, a snapshot another
process handed out); nor does it see a file system mounted over a folder (which sends no event).
``docs/cache.md`` says so.
"""

from __future__ import annotations

import os
import struct
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

WATCH_BUDGET = 30_000
"""Files and folders one process watches at most: each pins its inode in kernel memory (about 1 KB), and
``max_user_watches`` (often 8,192 to a few hundred thousand) is shared by all of a user's processes."""

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x2, 0x4, 0x8, 0x10, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
IN_DONT_FOLLOW = 0x02000000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
_CHANGED = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF
FILE_MASK = _CHANGED | IN_OPEN | IN_CLOSE_NOWRITE | IN_DONT_FOLLOW
FOLDER_MASK = _CHANGED | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DONT_FOLLOW
"""A folder cannot be opened for writing: its opens and closes (every listing) are not asked for."""
_RESHAPED = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT
_RESHAPED |= IN_IGNORED
"""An entry added, moved or removed: a new folder, which the walk does not count as a change, is not watched."""
_EVENT = struct.Struct("iIII")
LOCAL_FILE_SYSTEMS = frozenset({
    0xEF53,  # ext2, ext3, ext4
    0x58465342,  # xfs
    0x9123683E,  # btrfs
    0x01021994,  # tmpfs
    0x794C7630,  # overlayfs (containers)
    0x2FC12FC1,  # zfs
    0xF2F52010,  # f2fs
    0xCA451A4E,  # bcachefs
})  # fmt: skip
"""File systems (``statfs`` types) whose every change inotify reports. On NFS, SMB, FUSE or 9p a change made
from another machine or by the server sends no event: there every check walks."""


@dataclass
class _Armed:
    """A directory watched: its inode when armed, its watch descriptors, whether an event touched it."""

    inode: int
    watches: set[int] = field(default_factory=set)
    touched: bool = False
    broken: bool = False
    """An entry was added, moved or removed: the watches may no longer cover the directory (an empty folder
    added is no change to the walk; a folder rebuilt by another process can get the old one's inode number)."""


class SealWatch:
    """Tells which sealed directories nothing touched since they were armed or last found unchanged."""

    def __init__(self, budget: int = WATCH_BUDGET) -> None:
        self.budget = budget
        self.trusted = 0
        """Checks answered by the watch alone (no walk)."""
        self._fd: int | None = None
        self._closer: Callable[[], object] = lambda: None
        self._pid = os.getpid()
        self._stopped = not sys.platform.startswith("linux") or budget <= 0
        self._frozen = False
        self._armed: dict[str, _Armed] = {}
        self._owners: dict[int, set[str]] = {}
        self._opens: dict[int, int] = {}

    def arm(self, relative: str, directory: Path) -> None:
        """Watch every file and folder of ``directory`` (the cache's ``relative``) from now on, unless it is
        watched already; after one directory could not be, none is (see the module's docstring)."""
        try:
            inode = os.lstat(directory).st_ino
        except OSError:
            inode = -1
        if self._fd is not None and not self._halted():
            self._drain()  # events so far are the old directory's (a folder removed can lend the new its inode)
        armed = self._armed.get(relative)
        if armed is not None and armed.inode == inode and not armed.broken and not self._halted():
            return
        self.forget(relative)
        if self._halted() or self._frozen or inode < 0 or not self._watch_all(relative, directory, inode):
            self._frozen = True

    def untouched(self, relative: str) -> bool:
        """Return True if ``relative`` is armed and, by its events, untouched since it was armed or last
        :meth:`verified`, with none of its files open; False when it must be walked."""
        armed = self._armed.get(relative)
        if armed is None or self._halted() or not self._drain() or armed.touched:
            return False
        if any(relative in self._owners.get(wd, ()) for wd in self._opens):
            return False
        self.trusted += 1
        return True

    def verified(self, relative: str, directory: Path) -> bool:
        """Note that a walk found ``relative`` unchanged: events taken before it no longer count. Return False
        if its watches may no longer cover ``directory`` (an entry added, moved or removed): it is forgotten,
        and must be armed, then walked, before it is handed out again."""
        armed = self._armed.get(relative)
        if armed is None:
            return True
        try:
            inode = os.lstat(directory).st_ino
        except OSError:
            inode = -1
        if armed.broken or inode != armed.inode:
            self.forget(relative)
            return False
        armed.touched = False
        return True

    def forget(self, relative: str) -> None:
        """Stop answering for ``relative`` (found changed, or replaced); its files' counts stay exact."""
        armed = self._armed.pop(relative, None)
        for wd in armed.watches if armed is not None else ():
            self._owners.get(wd, set()).discard(relative)

    def _halted(self) -> bool:
        """Return True once the watch stopped for good (or in a forked child, which must not read it)."""
        if not self._stopped and os.getpid() != self._pid:
            self._fd, self._stopped = None, True  # the parent's descriptor: left open for it
        return self._stopped

    def _stop(self) -> None:
        if self._fd is not None:
            self._closer()
        self._fd, self._stopped = None, True
        self._armed.clear()

    def _watch_all(self, relative: str, directory: Path, inode: int) -> bool:
        """Add a watch on every file and folder below ``directory``; return False (stopping the watch if
        the kernel refused one) when the directory cannot be fully watched."""
        paths = _tree(directory)
        if paths is None or len(self._owners) + len(paths) > self.budget:
            return False
        libc = _libc()
        if libc is None:
            self._stop()
            return False
        if _file_system(libc, directory) not in LOCAL_FILE_SYSTEMS:
            return False
        if self._fd is None:
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:  # max_user_instances reached
                self._stop()
                return False
            self._fd, self._closer = fd, weakref.finalize(self, os.close, fd)
        armed = _Armed(inode)
        for path, is_folder in paths:
            wd = libc.inotify_add_watch(self._fd, os.fsencode(path), FOLDER_MASK if is_folder else FILE_MASK)
            if wd < 0:
                self._stop()  # the limit reached, or the tree changing under us: walk from now on
                return False
            armed.watches.add(wd)
            self._owners.setdefault(wd, set()).add(relative)
        self._armed[relative] = armed
        return True

    def _drain(self) -> bool:
        """Take every pending event; return False if the watch had to stop (a queue overflow)."""
        assert self._fd is not None
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                self._stop()
                return False
            if not self._take(data):
                self._stop()
                return False

    def _take(self, data: bytes) -> bool:
        """Apply the events in ``data``; return False on a queue overflow."""
        offset = 0
        while offset < len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size + length
            if mask & IN_Q_OVERFLOW:
                return False
            if mask & IN_OPEN:
                self._opens[wd] = self._opens.get(wd, 0) + 1
                continue
            if mask & (IN_CLOSE_NOWRITE | IN_CLOSE_WRITE):
                opened = self._opens.pop(wd, 0)
                if opened > 1:
                    self._opens[wd] = opened - 1
                if mask & IN_CLOSE_NOWRITE and opened > 0:
                    continue  # a read, ended: nothing could be written through it
            for relative in self._owners.get(wd, ()):
                armed = self._armed[relative]
                armed.touched = True
                armed.broken = armed.broken or bool(mask & _RESHAPED)
            if mask & IN_IGNORED:  # the inode is gone (or unwatched): its number may come back for another
                self._opens.pop(wd, None)
                self._owners.pop(wd, None)
        return True


def _tree(directory: Path) -> list[tuple[str, bool]] | None:
    """Return every path below ``directory`` and the directory itself, each with True for a folder, or None
    when it cannot be listed."""
    found = [(str(directory), True)]
    pending = [str(directory)]
    try:
        while pending:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    folder = entry.is_dir(follow_symlinks=False)
                    found.append((entry.path, folder))
                    if folder:
                        pending.append(entry.path)
    except OSError:
        return None
    return found


def _file_system(libc: ctypes.CDLL, directory: Path) -> int | None:
    """Return the ``statfs`` type of the file system holding ``directory`` (None if it cannot be read)."""
    import ctypes

    buffer = ctypes.create_string_buffer(256)  # struct statfs: f_type (a C long) comes first
    if libc.statfs(os.fsencode(directory), buffer) != 0:
        return None
    return int(ctypes.c_long.from_buffer(buffer).value) & 0xFFFFFFFF


_LIBC: list[ctypes.CDLL | None] = []


def _libc() -> ctypes.CDLL | None:
    """Return the C library with inotify_init1, inotify_add_watch and statfs typed, or None where it has none."""
    if not _LIBC:
        import ctypes  # only once a directory is armed

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.inotify_init1.argtypes, libc.inotify_init1.restype = [ctypes.c_int], ctypes.c_int
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            libc.inotify_add_watch.restype = ctypes.c_int
            libc.statfs.argtypes, libc.statfs.restype = [ctypes.c_char_p, ctypes.c_void_p], ctypes.c_int
            _LIBC.append(libc)
        except (OSError, AttributeError):
            _LIBC.append(None)
    return _LIBC[0]
