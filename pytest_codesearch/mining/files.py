"""Sort one commit's changed paths into ground truth, added files and files left out, with the reason.

The ground truth is what an agent searching the parent's tree can find: paths that exist there as regular
files and that the commit modified, deleted or renamed away. Files the commit added do not exist at the
parent, so they are kept apart (``added_files``) and never scored.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pygit2

from pytest_codesearch.filekinds import is_known_text_path
from pytest_codesearch.mining.classify import same_ignoring_whitespace
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.objects import BlobReader, ObjectReader
from pytest_codesearch.mining.treediff import GITLINK, SYMLINK, TYPE_MASK, Change, TreeDiffer
from pytest_codesearch.mining.walk import decode_path, find_renames, is_regular
from pytest_codesearch.pathglob import PathFilter

PATH_CACHE_SIZE = 4096
"""Changed paths whose verdict (decoded, excluded, to sniff) is remembered."""


@dataclass(frozen=True)
class ScoredFile:
    """One ground-truth file: its path, its blob at the parent, and its blob after the commit (None if gone).

    A file renamed away has the renamed file's blob as its new side, as ``git diff -M`` pairs them.
    """

    path: str
    old_id: bytes
    new_id: bytes | None


@dataclass(frozen=True)
class CommitFiles:
    """The files of a commit that makes a case: its ground truth and the files it added, sorted."""

    ground_truth: tuple[str, ...]
    added: tuple[str, ...]
    scored: tuple[ScoredFile, ...] = ()
    """The ground truth with blob ids, in the same order."""
    edits_only: bool = False
    """True when the commit adds no file: only then can it be whitespace-only (``formatting_only``)."""


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
        """Return the commit's files, or why it makes no case. Raises ``KeyError`` for a missing object.

        The whitespace-only rule is left to ``formatting_only``: it reads file contents, so the miner
        applies it after the cheaper query rules.
        """
        changes = self.differ.diff(parent_tree, tree)
        if not changes:
            return "no changes"
        ground_truth: list[str] = []
        scored: list[Change] = []
        added: list[str] = []
        for change in changes:
            if change.old_id is None:
                path = self._added_path(change)
                if path is not None:
                    added.append(path)
                continue
            found = self._ground_truth_file(change, change.old_id)
            if found is not None:
                ground_truth.append(found)
                scored.append(change)
        reason = self._size_reason(changes, ground_truth)
        if reason is not None:
            return reason
        edits_only = not added
        renamed: dict[bytes, bytes] = {}
        if added:
            added = self._without_renames(parent_tree, tree, changes, added, renamed)
        files = tuple(_scored(path, change, renamed) for path, change in zip(ground_truth, scored))
        return CommitFiles(tuple(ground_truth), tuple(added), files, edits_only)

    def _size_reason(self, changes: list[Change], ground_truth: list[str]) -> str | None:
        if not ground_truth:
            return "only excluded files" if any(change.old_id is not None for change in changes) else "only added files"
        if len(ground_truth) < self.config.min_files:
            return "too few files"
        if self.config.max_files is not None and len(ground_truth) > self.config.max_files:
            return "too many files"
        return None

    def _ground_truth_file(self, change: Change, old_id: bytes) -> str | None:
        """Return the path when the changed path counts as ground truth, else count why not."""
        reason = _mode_reason(change.old_mode)
        path, sniff = "", False
        if reason is None:
            path, reason, sniff = self._path_verdict(change.path)
        if reason is None and sniff and self.blobs.looks_binary(old_id):
            reason = "binary"
        if reason is not None:
            self.excluded[reason] += 1
            return None
        return path

    def _added_path(self, change: Change) -> str | None:
        if not is_regular(change.new_mode):
            return None
        path, reason, _ = self._path_verdict(change.path)
        return path if reason is None else None

    def _path_verdict(self, raw: bytes) -> tuple[str, str | None, bool]:
        """Return (path, why it is left out or None, whether its content must be sniffed for binary data).

        ``filekinds.is_binary`` in two steps: the name here (text by name is never binary), the content
        by blob id (``BlobReader.looks_binary``), so a blob is read once however many paths hold it.

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
                verdict = (path, None, self.config.exclude_binary and not is_known_text_path(path))
            if len(self._paths) >= PATH_CACHE_SIZE:
                self._paths.clear()
            self._paths[raw] = verdict
        return verdict

    def formatting_only(self, files: CommitFiles) -> bool:
        """Return whether every ground-truth change vanishes once whitespace is ignored (mode changes too).

        Only a commit that adds no file can be whitespace-only. Deletions and type changes are looked at
        first: they need no blob read. Then the files are checked cheapest first: the bytes still to read,
        by the sizes in their object headers, a blob already held costing nothing. Any real edit ends the
        check, and reading a blob costs in proportion to its size (issues 12 and 23).
        """
        if not files.edits_only or any(file.new_id is None for file in files.scored):
            return False
        edited = [file for file in files.scored if file.old_id != file.new_id]
        if len(edited) > 1:
            edited.sort(key=self._read_cost)
        for file in edited:
            if not same_ignoring_whitespace(self.blobs.read(file.old_id), self.blobs.read(file.new_id or b"")):
                return False
        return True

    def _read_cost(self, file: ScoredFile) -> int:
        """Return how many bytes checking one edited file reads (none for a blob already held)."""
        return self.blobs.read_cost(file.old_id) + self.blobs.read_cost(file.new_id or b"")

    def _without_renames(
        self, parent_tree: bytes, tree: bytes, changes: list[Change], added: list[str], renamed: dict[bytes, bytes]
    ) -> list[str]:
        """Return ``added`` without the paths that are renames of deleted files (exact first, then libgit2's).

        Fills ``renamed``: the old path of each file renamed away -> the blob its new path holds.
        """
        deleted = {change.old_id for change in changes if change.new_id is None}
        if not deleted:
            return added
        moved = [change for change in changes if change.old_id is None and change.new_id in deleted]
        same = {change.new_id for change in moved}
        for change in changes:
            if change.new_id is None and change.old_id in same:
                renamed[change.path] = change.old_id or b""  # moved as it was: the same blob
        exact = {change.path.decode("utf-8", "replace") for change in moved}
        remaining = [path for path in added if path not in exact]
        if not remaining or not deleted - same:
            return remaining
        unmatched = [change.path for change in changes if change.new_id is None or change.old_id is None]
        renames, limited = find_renames(self.repo, parent_tree, tree, self.config.rename_limit, unmatched)
        self.rename_limit_hits += limited
        new_ids = {change.path: change.new_id for change in changes if change.old_id is None and change.new_id}
        renamed.update((old, new_ids[new]) for new, old in renames.items() if new in new_ids and old not in renamed)
        targets = {path.decode("utf-8", "replace") for path in renames}
        return [path for path in remaining if path not in targets]


def _scored(path: str, change: Change, renamed: dict[bytes, bytes]) -> ScoredFile:
    """Return a ground-truth change with its new side: the file's blob, the renamed file's, or None.

    A file that stopped being a regular file (now a symlink or a directory) is gone, as ``git diff`` shows it.
    """
    old_id = change.old_id or b""
    if change.new_id is not None and is_regular(change.new_mode):
        return ScoredFile(path, old_id, change.new_id)
    return ScoredFile(path, old_id, renamed.get(change.path))


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
