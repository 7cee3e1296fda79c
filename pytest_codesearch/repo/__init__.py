"""Repository states to search: commits materialised by tree id, or directories as they are."""

from __future__ import annotations

from pytest_codesearch.repo.snapshot import Snapshot, SnapshotError, SnapshotStore, find_repository, suggest_path

__all__ = ["Snapshot", "SnapshotError", "SnapshotStore", "find_repository", "suggest_path"]
