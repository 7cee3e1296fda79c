"""Write files so that a reader never sees a half-written one (PITFALLS 14), with the user's umask.

Used for report files and gold sets alike: a temporary file in the same directory, flushed and fsynced,
then renamed over the target with ``os.replace``. A run killed midway leaves the previous file intact
and at worst a stray temporary file, never a truncated one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

_STATUS = Path("/proc/self/status")


def current_umask() -> int:
    """Return the process's umask, read without changing it where the platform allows."""
    try:
        for line in _STATUS.read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere the only way to read it is to set it (briefly)
    os.umask(mask)
    return mask


def creation_mode() -> int:
    """Return the mode a new file gets from ``open()``: ``0o666`` less the umask."""
    return 0o666 & ~current_umask()


@contextmanager
def atomic_file(path: Path) -> Iterator[TextIO]:
    """Yield a UTF-8 text stream (newlines written as given) that replaces ``path`` when the block ends.

    If the block raises, the temporary file is removed and ``path`` is left as it was. The new file gets
    the mode ``open()`` would give it (``mkstemp`` alone makes it 0600 whatever the umask). Missing parent
    directories are created.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp_name, creation_mode())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (str as UTF-8, newlines as given; bytes as given) at once; see ``atomic_file``."""
    with atomic_file(path) as stream:
        if isinstance(text, bytes):
            stream.buffer.write(text)  # nothing went through the text layer: no flush needed before
        else:
            stream.write(text)


def splice_atomic(path: Path, start: int, end: int, replacement: bytes) -> None:
    """Replace bytes ``start`` to ``end`` of the file ``path`` with ``replacement``, at once (``atomic_file``).

    The bytes around them are copied from the old file to the new one by the kernel where it can
    (``os.copy_file_range``), not read into Python: marking a 20 MB report took 60 ms of CPU read and
    written whole, against about 17 ms so.
    """
    with open(path, "rb") as source, atomic_file(path) as stream:
        size = os.fstat(source.fileno()).st_size
        if not 0 <= start <= end <= size:
            raise ValueError(f"bytes {start} to {end} are not in {path} ({size} bytes)")
        stream.flush()
        target = stream.fileno()
        _copy_range(source.fileno(), target, 0, start)
        _write_all(target, replacement)
        _copy_range(source.fileno(), target, end, size - end)


def _copy_range(source: int, target: int, offset: int, count: int) -> None:
    """Append ``count`` bytes of ``source`` from ``offset`` to ``target`` at its position."""
    while count > 0:
        try:
            copied = os.copy_file_range(source, target, count, offset)
        except (AttributeError, OSError):  # not Linux, or a file system that cannot: read and write
            copied = os.write(target, os.pread(source, min(count, 1 << 20), offset))
        if copied == 0:
            raise OSError(f"the file ended {count} bytes early")
        offset, count = offset + copied, count - copied


def _write_all(target: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(target, view):]


def _fsync_directory(directory: Path) -> None:
    """Persist the rename itself where the platform allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # Windows cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_cache_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` at once, not synced to disk: for cache files that can be made again.

    A reader sees the old file or the new one, never half of one; a crash of the machine may lose the file
    or leave it empty, which a cache's reader takes for a missing one. Syncing each of the thousands of
    small files a cold run writes cost more system time than the work they save (``atomic_file`` syncs:
    reports and gold sets). Missing parent directories are made.
    """
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        try:
            _replace_with(path, scratch, data)
        except FileNotFoundError:  # its folder was never made, or pruning removed it
            path.parent.mkdir(parents=True, exist_ok=True)
            _replace_with(path, scratch, data)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def _replace_with(path: Path, scratch: Path, data: bytes) -> None:
    with open(scratch, "wb") as stream:
        stream.write(data)
    os.replace(scratch, path)

