"""The last outline found for each path of a history, from which the miner derives the next one's."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

from pytest_codesearch.mining.affixes import common_prefix, common_suffix
from pytest_codesearch.mining.outline import Hunk, Outline, derive_outline, parse_outline, sliceable


def affix_hunks(source: bytes, base: bytes) -> list[Hunk]:
    """Return one hunk from ``source`` to ``base``: the lines between those both start and end with."""
    start = source.rfind(b"\n", 0, common_prefix(source, base)) + 1  # the first line that differs, in both
    shared = common_suffix(source, base, min(len(source), len(base)) - start)
    tail = 0 if shared == len(source) else source.find(b"\n", len(source) - shared - 1) + 1 or len(source)
    same_end = _count_lines(source[tail:])
    same_start = source.count(b"\n", 0, start)
    old = _count_lines(source) - same_start - same_end
    new = _count_lines(base) - same_start - same_end
    if min(old, new) < 0:
        return [(1, _count_lines(source), 1, _count_lines(base))]
    return [(same_start + bool(old), old, same_start + bool(new), new)]


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


class Outlines:
    """Keeps the last outline found for each path, within a budget of definitions, to derive the next one.

    ``read`` returns a blob's content by id; ``diff`` the hunks from one blob to another, by id.
    """

    def __init__(
        self, read: Callable[[bytes], bytes], diff: Callable[[bytes, bytes], Sequence[Hunk]], budget: int = 200_000
    ) -> None:
        self._read = read
        self._diff = diff
        self._budget = budget
        self._held = 0
        self._by_path: OrderedDict[str, tuple[bytes, Outline]] = OrderedDict()

    def outline(self, path: str, source_id: bytes, new_id: bytes | None, hunks: Sequence[Hunk]) -> Outline | None:
        """Return the outline of blob ``source_id`` (the file at ``path``), ``hunks`` away from its child ``new_id``.

        Derived from the outline kept for ``path`` when there is one (through ``hunks`` when that is the
        child's, else through ``diff(source_id, kept version's id)``), else parsed whole; kept for the next call.
        """
        source = self._read(source_id)
        kept = self._by_path.pop(path, None)
        self._held -= 0 if kept is None else len(kept[1].definitions)
        if kept is None or not sliceable(source):
            found = parse_outline(source)
        else:
            base = self._read(kept[0])
            found = derive_outline(source, base, kept[1], hunks if kept[0] == new_id else self._diff(source_id, kept[0]))
        if found is not None and sliceable(source):
            self._keep(path, source_id, found)
        return found

    def _keep(self, path: str, blob: bytes, outline: Outline) -> None:
        self._by_path[path] = (blob, outline)
        self._held += len(outline.definitions)
        while self._held > self._budget:
            self._held -= len(self._by_path.popitem(last=False)[1][1].definitions)
