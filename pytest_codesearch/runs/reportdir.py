"""The report directory while a run owns it: one run at a time (a lock), and no stale report looking current.

- ``ReportLock.acquire(directory, started_at)``: an exclusive ``fcntl.flock`` on ``.codesearch.lock`` in
  the report directory, held until the run ends (or its process dies: the kernel drops the lock). The
  file names the holder (pid and start time), so a second run on the same directory is refused with one
  line naming it instead of interleaving the journal.
- ``supersede(directory, started_at)``: before a run journals its first case, the report it will replace
  (``results.json`` in the directory it writes to) is marked ``"incomplete": true`` and
  ``"superseded_by": "<the new run's start>"``, so a run killed before its end never leaves the
  previous report looking like its own. The new run's end rewrites the file without the marker.
"""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import re
from pathlib import Path
from typing import IO

from pydantic_core import to_json

from pytest_codesearch.atomic import splice_atomic, write_atomic

LOCK_NAME = ".codesearch.lock"
"""The lock file's name in the report directory."""
RESULTS_NAME = "results.json"


class ReportDirBusy(Exception):
    """Another live run holds the report directory; str() is the one line to show."""


class ReportLock:
    """The exclusive hold of a run on its report directory (see the module docstring)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream: IO[str] | None = stream

    @classmethod
    def acquire(cls, directory: Path, started_at: str) -> ReportLock:
        """Return the lock on ``directory`` (created if needed); raise ``ReportDirBusy`` naming the holder."""
        directory.mkdir(parents=True, exist_ok=True)
        stream = open(directory / LOCK_NAME, "a+", encoding="utf-8")
        try:
            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            stream.seek(0)
            holder = stream.read().strip() or "another process"
            stream.close()
            raise ReportDirBusy(
                f"codesearch: the report directory {directory} is in use by the run of {holder}; wait for it to "
                "end or give another --codesearch-report-dir"
            ) from None
        stream.seek(0)
        stream.truncate()
        stream.write(f"pid {os.getpid()}, started {started_at}\n")
        stream.flush()
        return cls(stream)

    def release(self) -> None:
        """Let the next run have the directory (closing the file drops the lock)."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None


_MARKERS = re.compile(rb'\n  "incomplete": (?:true|false),\n  "superseded_by": (?:null|"[^"\\\n]*"),\n')
"""The two top-level keys of a report as ``RunReport.model_dump_json(indent=2)`` writes them (a string in JSON
holds no raw newline, so only a top-level key starts a line with two spaces)."""


def supersede(directory: Path, started_at: str) -> bool:
    """Mark the report in ``directory`` as superseded by the run started at ``started_at``; return True when
    there was one to mark. A report that cannot be read or rewritten is left as it is (False).

    A report as the plugin writes it has its two keys replaced in its text, every other byte kept, and
    copied by the kernel (``atomic.splice_atomic``): parsing and writing again a 10,000-case report took
    about 0.5 s of each run's start, reading and writing its 20 MB whole 0.1 s (issue 23). Any other
    report is parsed and written again.
    """
    path = directory / RESULTS_NAME
    try:
        found = _markers(path)
    except (OSError, ValueError):
        return False
    if found is not None:
        start, end = found
        marked = b'\n  "incomplete": true,\n  "superseded_by": ' + to_json(started_at) + b",\n"
        try:
            splice_atomic(path, start, end, marked)
        except (OSError, ValueError):
            return False
        return True
    try:
        report = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    if not isinstance(report, dict):
        return False
    report["incomplete"], report["superseded_by"] = True, started_at
    # written as the report was (pydantic): json.dump's indent is pure Python
    return _rewrite(path, to_json(report, indent=2) + b"\n")


_KEY = b'\n  "incomplete": '


def _markers(path: Path) -> tuple[int, int] | None:
    """Return where the two keys of a report as the plugin writes it are in the file ``path`` (first byte,
    past the last); None for any other file. The file is mapped, not read: the keys come after the cases."""
    with open(path, "rb") as stream:
        if os.fstat(stream.fileno()).st_size < 4:
            return None
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as text:
            first = text.rfind(_KEY)  # the keys follow the cases: near the end
            whole = text[:2] == b"{\n" and text[-2:] == b"}\n" and first >= 0 and text.find(_KEY, 0, first) < 0
            found = _MARKERS.match(text, first) if whole else None
            return None if found is None else found.span()


def _rewrite(path: Path, content: bytes) -> bool:
    """Replace the file ``path`` with ``content`` atomically; return False when it cannot be written."""
    try:
        write_atomic(path, content)
    except OSError:
        return False
    return True
