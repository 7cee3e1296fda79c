"""The pruning log: what each pruning pass removed, appended to ``.prune.log`` in the folder it pruned, and the
run summary's lines read from it (the snapshot cache's, ``prune.py``; the agents' stores',
``agents/index/filestore.py``)."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.atomic import write_atomic

LOG = ".prune.log"
LOG_BYTES = 64 << 10
"""Past this size the pruning log keeps only its newer half (a run's summary reads the passes since it began)."""


@dataclass(frozen=True)
class Pruned:
    """What pruning removed: directories, blob files, and the bytes freed."""

    directories: int = 0
    blobs: int = 0
    freed: int = 0

    def __add__(self, other: Pruned) -> Pruned:
        return Pruned(self.directories + other.directories, self.blobs + other.blobs, self.freed + other.freed)

    def describe(self) -> str:
        """Return e.g. ``removed 12 snapshot directories and 40 blob files, freed 3.1 MiB``."""
        return (
            f"removed {self.directories} snapshot director{'y' if self.directories == 1 else 'ies'} and "
            f"{self.blobs} blob file{'' if self.blobs == 1 else 's'}, freed {self.freed / (1 << 20):.1f} MiB"
        )



def log_pruned(cache_dir: Path, pruned: Pruned) -> None:
    """Append one pruning pass to the log (under the pruning lock)."""
    log_pruning(cache_dir, {"directories": pruned.directories, "blobs": pruned.blobs, "freed": pruned.freed})


def log_pruning(folder: Path, counts: dict[str, int]) -> None:
    """Append one pruning pass of ``folder`` (what it removed, by kind) to its ``LOG``, first halving a log
    past ``LOG_BYTES``; errors are ignored (a read-only cache)."""
    path = folder / LOG
    line = {"time": time.time(), **counts}
    try:
        if path.stat().st_size > LOG_BYTES:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            write_atomic(path, "".join(lines[len(lines) // 2 :]))
    except OSError:
        pass
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(line) + "\n")


def pruned_since(cache_dir: Path, since: float) -> Pruned:
    """Return the sum of the pruning passes logged in ``cache_dir`` at or after the time ``since``."""
    counts = logged_since(cache_dir, since, ("directories", "blobs", "freed"))
    return Pruned(counts["directories"], counts["blobs"], counts["freed"])


def logged_since(folder: Path, since: float, kinds: tuple[str, ...]) -> dict[str, int]:
    """Return the sums of ``kinds`` over the pruning passes logged in ``folder`` at or after the time ``since``."""
    total = dict.fromkeys(kinds, 0)
    try:
        lines = (folder / LOG).read_text(encoding="utf-8").splitlines()
    except OSError:
        return total
    for line in lines:
        try:
            entry = json.loads(line)
            if entry["time"] < since:
                continue
            found = {kind: int(entry[kind]) for kind in kinds}
        except (ValueError, KeyError, TypeError):
            continue
        for kind, value in found.items():
            total[kind] += value
    return total


def pruning_note(cache_dir: Path, since: float, limit: int | None) -> str | None:
    """Return the run summary's line on pruning done in ``cache_dir`` since ``since``, or None if none was."""
    pruned = pruned_since(cache_dir, since)
    if not (pruned.directories or pruned.blobs):
        return None
    bound = "unlimited" if limit is None else f"{limit / (1 << 20):.0f} MiB"
    return f"codesearch: snapshot cache {cache_dir} (bound {bound}): {pruned.describe()}"
