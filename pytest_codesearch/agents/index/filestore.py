"""Files written once and shared by runs and xdist workers: what the token and index stores have in common.

A file is written to a temporary name beside it and renamed into place, so readers in other processes
see it whole or not at all, and never changed afterwards, so no lock is needed. Reading a file sets its
modification time, which makes it the file's last use: :meth:`FileStore.prune` removes the least
recently used once the store outgrows its bound (``repo/prune.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from pytest_codesearch.atomic import write_cache_file
from pytest_codesearch.repo.prune import prune_files
from pytest_codesearch.repo.prunelog import LOG, log_pruning, logged_since


STORE_SHARE = 4
"""Each store (tokens, indexes, embeddings) may hold ``1 / STORE_SHARE`` of ``--codesearch-cache-size``."""


def store_bound(cache_size: int | None) -> int | None:
    """Return the bytes one store may hold under the run's cache size (None: unbounded)."""
    return None if cache_size is None else cache_size // STORE_SHARE


def source_digest(*modules: ModuleType) -> str:
    """Return a hash of the source files of ``modules``: a store keyed by it never reads what older code wrote."""
    digest = hashlib.sha1(usedforsecurity=False)
    for module in modules:
        digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


@dataclass
class FileStore:
    """Files under ``root``, bounded to ``limit`` bytes (None: unbounded)."""

    root: Path
    limit: int | None = None
    loaded: int = 0
    saved: int = 0
    _written: int = field(default=0, repr=False)

    def read(self, path: Path) -> bytes | None:
        """Return the bytes of ``path`` and mark it used now, or None when it cannot be read."""
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError:
            return None
        with contextlib.suppress(OSError):  # a read-only cache still serves its files
            os.utime(path)
        return data

    def write(self, path: Path, body: bytes) -> None:
        """Store ``body`` at ``path`` atomically, pruning once enough was written; errors are ignored
        (a read-only or full disk: the caller still holds what it computed)."""
        try:
            write_cache_file(path, body)
        except OSError:
            return
        self.saved += 1
        self._written += len(body) + 4096
        if self.limit is not None and self._written * 8 > self.limit:
            self._written = 0
            self.prune()

    def prune(self) -> int:
        """If the store holds more than its bound, remove the least recently used files until it holds
        3/4 of it; return the bytes freed.

        A store that fits is left whole: trimming one that holds between 3/4 and all of its bound (the
        274 SWE-bench Lite indexes take 490 of the default 512 MB) removed what the run had just written,
        and the next run built it again. Checked after each eighth of the bound written, a store passes
        its bound by at most that much before it is trimmed.
        """
        if self.limit is None:
            return 0
        files, freed = prune_files(self.root, self.limit * 3 // 4, above=self.limit)
        if files:  # said at the end of the run (``store_pruning_notes``): what a later run computes again
            log_pruning(self.root, {"files": files, "freed": freed})
        return freed


def store_pruning_notes(cache_dir: Path, since: float, cache_size: int | None) -> list[str]:
    """Return the run summary's lines on the stores under ``cache_dir`` (tokens, indexes, embeddings) that
    removed files since the time ``since`` to stay within their share of ``cache_size``: what they removed
    a later run computes again, so the line says to raise ``--codesearch-cache-size``."""
    notes = []
    for log in sorted(cache_dir.glob(f"*/{LOG}")):
        store = log.parent  # the snapshot cache's passes count directories and blobs, not files: its own line
        counts = logged_since(store, since, ("files", "freed"))
        if counts["files"]:
            bound = store_bound(cache_size)
            share = "" if bound is None else f" (its share: {_size(bound)} of --codesearch-cache-size)"
            notes.append(
                f"codesearch: the {store.name} store {store}{share} removed {counts['files']} "
                f"file{'' if counts['files'] == 1 else 's'}, "
                f"{_size(counts['freed'])}, that later runs compute again: raise --codesearch-cache-size"
            )
    return notes


def _size(size: int) -> str:
    """Return ``size`` bytes in MiB (KiB below one MiB), one decimal."""
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size / (1 << 10):.1f} KiB"
