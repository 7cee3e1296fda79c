"""A content-addressed store of read-only blob files that snapshot directories hard-link to (issue 12 item 2).

``<cache_dir>/blobs/<blob id>`` (``<blob id>.x`` for an executable file: a hard link shares its mode) is
written once, atomically (a temporary file beside it, made read-only, then linked into place), by whichever
process needs it first. A snapshot directory links each file to its blob, so snapshots of consecutive commits
cost one inode per *unique* file, not one per file per snapshot. The files are read-only (0444, 0555 for
executables): an agent that wrote into its snapshot would change every snapshot sharing the blob.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pygit2

BLOB_DIR = "blobs"
READ_ONLY = 0o444
READ_ONLY_EXECUTABLE = 0o555


@dataclass
class BlobStore:
    """The blob files under ``<cache_dir>/blobs``; ``linked`` is False once hard links are found unusable."""

    directory: Path
    linked: bool = True

    @classmethod
    def beside(cls, cache_dir: Path) -> BlobStore:
        """Return the store of ``cache_dir``, creating its directory."""
        directory = cache_dir / BLOB_DIR
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory)

    def path(self, blob_id: str, executable: bool) -> Path:
        """Return where the blob file for ``blob_id`` (with that mode) lives."""
        return self.directory / (f"{blob_id}.x" if executable else blob_id)

    def ensure(self, blob_id: str, blob: pygit2.Blob, executable: bool) -> Path:
        """Return the blob file for ``blob_id``, writing ``blob``'s content if no process has yet."""
        target = self.path(blob_id, executable)
        if os.path.lexists(target):
            return target
        fd, scratch = tempfile.mkstemp(prefix=f".{blob_id[:12]}-", suffix=".tmp", dir=self.directory)
        try:
            with open(fd, "wb") as stream:
                stream.write(blob.data)
            os.chmod(scratch, READ_ONLY_EXECUTABLE if executable else READ_ONLY)
            try:
                os.link(scratch, target)  # atomic: fails if another process got there first, keeps theirs
            except FileExistsError:
                pass
        finally:
            os.unlink(scratch)
        return target
