"""Sort one commit's changed paths into ground truth, added files and files left out, with the reason.

The ground truth is what an agent searching the parent's tree can find: paths that exist there as regular
files and that the commit modified, deleted or renamed away. Files the commit added do not exist at the
parent, so they are kept apart (``added_files``) and never scored.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pygit2

from pytest_codesearch.mining.classify import PathFilter, is_source_path, looks_binary, same_ignoring_whitespace
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.objects import BlobReader, ObjectReader
from pytest_codesearch.mining.treediff import GITLINK, SYMLINK, TYPE_MASK, Change, TreeDiffer
from pytest_codesearch.mining.walk import decode_path, find_renames, is_regular

PATH_CACHE_SIZE = 4096
"""Changed paths whose verdict (decoded, excluded, to sniff) is remembered."""


@dataclass(frozen=True)
class CommitFiles:
    """The files of a commit that makes a case: its ground truth and the files it added, sorted."""

    ground_truth: tuple[str, ...]
    added: tuple[str, ...]


class FileSorter:
    """Applies the path rules of a ``FilterConfig`` to each commit's changes, counting what it leaves out."""

    def __init__(
        self,
        repo: pygit2.Repository,
        config: FilterConfig,
        differ: TreeDiffer,
        excluded: Counter[str] | None = None,
        objects: ObjectReader | None = None,
    ) -> None:
        self.repo = repo
        self.config = config
        self.differ = differ
        self.filter = PathFilter(config.exclude_patterns)
        self.blobs = BlobReader(objects or ObjectReader(repo))
        self.excluded: Counter[str] = Counter() if excluded is None else excluded
        """Files left out of the ground truth, by reason."""
        self.rename_limit_hits = 0
        self._paths: dict[bytes, tuple[str, str | None, bool]] = {}

    def sort(self, parent_tree: bytes, tree: bytes) -> CommitFiles | str:
        """Return the commit's files, or why it makes no case. Raises ``KeyError`` for a missing object."""
        changes = self.differ.diff(parent_tree, tree)
        if not changes:
            return "no changes"
        ground_truth: list[str] = []
        scored: list[tuple[Change, bytes]] = []
        added: list[str] = []
        for change in changes:
            if change.old_id is None:
                path = self._added_path(change)
                if path is not None:
                    added.append(path)
                continue
            found = self._ground_truth_file(change, change.old_id)
            if found is not None:
                ground_truth.append(found[0])
                scored.append((change, found[1]))
        reason = self._size_reason(changes, ground_truth)
        if reason is not None:
            return reason
        if not added and self._formatting_only(scored):
            return "whitespace-only"
        if added:
            added = self._without_renames(parent_tree, tree, changes, added)
        return CommitFiles(tuple(ground_truth), tuple(added))

    def _size_reason(self, changes: list[Change], ground_truth: list[str]) -> str | None:
        if not ground_truth:
            return "only excluded files" if any(change.old_id is not None for change in changes) else "only added files"
        if len(ground_truth) < self.config.min_files:
            return "too few files"
        if self.config.max_files is not None and len(ground_truth) > self.config.max_files:
            return "too many files"
        return None

    def _ground_truth_file(self, change: Change, old_id: bytes) -> tuple[str, bytes] | None:
        """Return (path, content at the parent) when the changed path counts as ground truth, else count why not."""
        reason = _mode_reason(change.old_mode)
        path, sniff = "", False
        if reason is None:
            path, reason, sniff = self._path_verdict(change.path)
        data = b""
        if reason is None and sniff:
            data = self.blobs.read(old_id)
            if looks_binary(data):
                reason = "binary"
        if reason is not None:
            self.excluded[reason] += 1
            return None
        return path, data

    def _added_path(self, change: Change) -> str | None:
        if not is_regular(change.new_mode):
            return None
        path, reason, _ = self._path_verdict(change.path)
        return path if reason is None else None

    def _path_verdict(self, raw: bytes) -> tuple[str, str | None, bool]:
        """Return (path, why it is left out or None, whether its content must be sniffed for binary data).

        Cached by raw path (a history changes the same paths again and again), up to ``PATH_CACHE_SIZE``.
        """
        verdict = self._paths.get(raw)
        if verdict is None:
            path = decode_path(raw)
            if path is None:
                verdict = ("", "unsafe or non-UTF-8 path", False)
            elif self.filter.excluded(path):
                verdict = (path, "excluded pattern", False)
            else:
                verdict = (path, None, self.config.exclude_binary and not is_source_path(path))
            if len(self._paths) >= PATH_CACHE_SIZE:
                self._paths.clear()
            self._paths[raw] = verdict
        return verdict

    def _formatting_only(self, scored: list[tuple[Change, bytes]]) -> bool:
        """Return whether every ground-truth change vanishes once whitespace is ignored (mode changes too).

        Deletions and type changes are looked at first: they need no blob read. Then the files are checked
        smallest first, by the sizes in their object headers: any real edit ends the check, and reading a
        blob costs in proportion to its size (issue 12).
        """
        if any(change.new_id is None or not is_regular(change.new_mode) for change, _ in scored):
            return False
        edited = [(change, old_data) for change, old_data in scored if change.old_id != change.new_id]
        if len(edited) > 1:
            edited.sort(key=self._read_cost)
        for change, old_data in edited:
            old = old_data or self.blobs.read(change.old_id or b"")
            if not same_ignoring_whitespace(old, self.blobs.read(change.new_id or b"")):
                return False
        return True

    def _read_cost(self, edit: tuple[Change, bytes]) -> int:
        """Return how many bytes checking one edited file would read (the old content may be read already)."""
        change, old_data = edit
        return (0 if old_data else self.blobs.size(change.old_id or b"")) + self.blobs.size(change.new_id or b"")

    def _without_renames(self, parent_tree: bytes, tree: bytes, changes: list[Change], added: list[str]) -> list[str]:
        """Return ``added`` without the paths that are renames of deleted files (exact first, then libgit2's)."""
        deleted = {change.old_id for change in changes if change.new_id is None}
        if not deleted:
            return added
        moved = [change for change in changes if change.old_id is None and change.new_id in deleted]
        exact = {change.path.decode("utf-8", "replace") for change in moved}
        remaining = [path for path in added if path not in exact]
        if not remaining or not deleted - {change.new_id for change in moved}:
            return remaining
        unmatched = [change.path for change in changes if change.new_id is None or change.old_id is None]
        renames, limited = find_renames(self.repo, parent_tree, tree, self.config.rename_limit, unmatched)
        self.rename_limit_hits += limited
        targets = {path.decode("utf-8", "replace") for path in renames}
        return [path for path in remaining if path not in targets]


def _mode_reason(mode: int) -> str | None:
    """Return why a file of this mode is not ground truth (symlink, submodule...), or None for a regular file."""
    kind = mode & TYPE_MASK
    if kind == SYMLINK:
        return "symlink"
    if kind == GITLINK:
        return "submodule"
    if not is_regular(mode):
        return "other mode"
    return None
