"""Repository states to search: commits materialised by tree id, or directories as they are.

Read a snapshot's files through its one reader: ``Snapshot.read(path)``, or the ``SnapshotView`` that
``Snapshot.view()`` returns (and the agent hook ``use_snapshot`` receives).
"""

from __future__ import annotations

from pytest_codesearch.repo.reader import SnapshotFile, SnapshotView
from pytest_codesearch.repo.snapshot import Snapshot, SnapshotError, SnapshotStore, find_repository
from pytest_codesearch.repo.suggest import suggest_path

__all__ = [
    "Snapshot",
    "SnapshotError",
    "SnapshotFile",
    "SnapshotStore",
    "SnapshotView",
    "find_repository",
    "suggest_path",
]
