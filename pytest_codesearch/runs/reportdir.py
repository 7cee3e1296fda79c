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
import os
import re
from pathlib import Path
from typing import IO

from pydantic_core import to_json

from pytest_codesearch.atomic import write_atomic

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

    A report as the plugin writes it has its two keys replaced in its text, every other byte kept: parsing
    and writing again a 10,000-case report took about 0.5 s of each run's start (issue 23). Any other
    report is parsed and written again.
    """
    path = directory / RESULTS_NAME
    try:
        text = path.read_bytes()
    except OSError:
        return False
    key = b'\n  "incomplete": '
    whole = text.startswith(b"{\n") and text.endswith(b"}\n") and text.count(key) == 1
    found = _MARKERS.match(text, text.find(key)) if whole else None
    if found is not None:
        start, end = found.span()
        marked = b'\n  "incomplete": true,\n  "superseded_by": ' + to_json(started_at) + b",\n"
        return _rewrite(path, text[:start] + marked + text[end:])
    try:
        report = json.loads(text.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    if not isinstance(report, dict):
        return False
    report["incomplete"], report["superseded_by"] = True, started_at
    # written as the report was (pydantic): json.dump's indent is pure Python
    return _rewrite(path, to_json(report, indent=2) + b"\n")


def _rewrite(path: Path, content: bytes) -> bool:
    """Replace the file ``path`` with ``content`` atomically; return False when it cannot be written."""
    try:
        write_atomic(path, content)
    except OSError:
        return False
    return True
