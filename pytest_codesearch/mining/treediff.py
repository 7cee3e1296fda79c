"""Our own tree diff: compare two trees' raw entries, descend only into subtrees whose ids differ.

Consecutive commits share almost every tree, so a commit's diff reads a handful of small objects. That is
several times cheaper than libgit2's diff, which lists both trees in full (issue 4, performance).

Two versions of a directory differ in one small region of their raw bytes (an id changed, an entry added
or removed). ``TreeDiffer`` finds that region with a few ``memcmp`` calls (``affixes.py``) and splits only
the entries inside it, using where the entries of one of the two trees end: those are known for every tree
but the first of a run, since each diff hands them on to the other tree (issue 12: real histories have wide
directories, such as git's ``t/`` with 1,200 entries, and splitting them whole cost more than reading them).
When both trees are read for the first time (after a commit dropped before its diff, or in a directory the
newer commit did not change) and differ in one id, the entries before the difference are parsed in one
regular-expression match, without splitting either tree (``_one_id_cold``): a third of git's directory
diffs start that way, and many directories are diffed once in a row. If the next commit's diff meets that
parent tree again, itself with a new partner, the parent's tree is split whole, so the diffs after it
start from its ends (issue 23: 21,000 whole splits instead of 31,000 on git's history, the tree diff 4%
faster). Splitting the new tree instead, or first trying to split it like the last tree met at the same
path, cost 7% more.
A tree that does not split cleanly, or an entry that appears twice, falls back to comparing the two trees'
entry sets. Both ways give the same changes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Set
from itertools import accumulate
from typing import NamedTuple

import pygit2

from pytest_codesearch.mining.affixes import common_prefix
from pytest_codesearch.mining.objects import ObjectReader

TYPE_MASK = 0o170000
TREE = 0o040000
REGULAR = 0o100000
SYMLINK = 0o120000
GITLINK = 0o160000

_ENTRY = re.compile(rb"\d+ [^\0]*\0.{20}", re.S)
_ENTRIES = re.compile(rb"(?:\d+ [^\0]*\0.{20})*", re.S)
"""A run of whole entries from where it starts: matched up to a position, it ends at the last entry
boundary before it (or where the content stops being entries)."""
_TREE_CACHE_SIZE = 512


class Change(NamedTuple):
    """One path a commit changed: its mode and raw object id on each side (0 and None where absent)."""

    path: bytes
    old_mode: int
    old_id: bytes | None
    new_mode: int
    new_id: bytes | None


class _Tree:
    """A tree read once: its raw content, where its entries end (when known), its entry set (when needed)."""

    __slots__ = ("raw", "ends", "entries", "scanned")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.ends: tuple[int, ...] | None = None
        """End offsets of the entries; ``()`` when the content is not a plain run of entries."""
        self.entries: frozenset[bytes] | None = None
        self.scanned = False
        """Whether a diff already parsed this tree up to a difference without splitting it (``_one_id_cold``)."""


class TreeDiffer:
    """Diffs trees by their raw entries, keeping recently read trees.

    Walking newest first, a commit's parent tree is the next commit's tree, so a small cache reads most
    trees once. Memory stays bounded by the cache size, whatever the length of the history.
    """

    def __init__(self, repo: pygit2.Repository, objects: ObjectReader | None = None) -> None:
        self._read = (objects or ObjectReader(repo)).tree
        self._cache: dict[bytes, _Tree] = {}

    def diff(self, old_tree: bytes | None, new_tree: bytes) -> list[Change]:
        """Return the paths that differ between two trees (raw ids; ``None`` is the empty tree), sorted.

        Raises ``KeyError`` when an object is missing from the repository.
        """
        changes: list[Change] = []
        if old_tree is None:
            self._expand(new_tree, b"", changes, new_side=True)
        else:
            self._diff(old_tree, new_tree, b"", changes)
        changes.sort()
        return changes

    def _tree(self, tree: bytes) -> _Tree:
        found = self._cache.get(tree)
        if found is None:
            found = _Tree(self._read(tree))
            if len(self._cache) >= _TREE_CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[tree] = found
        return found

    def _diff(self, old_tree: bytes, new_tree: bytes, prefix: bytes, changes: list[Change]) -> None:
        old, new = self._tree(old_tree), self._tree(new_tree)
        found: tuple[Set[bytes], Set[bytes]] | None = self._changed_entries(old, new)
        if found is None:
            old_entries, new_entries = _entries(old), _entries(new)
            found = (old_entries - new_entries, new_entries - old_entries)
        self._pair(found[0], found[1], prefix, changes)

    def _changed_entries(self, old: _Tree, new: _Tree) -> tuple[set[bytes], set[bytes]] | None:
        """Return (entries only in ``old``, entries only in ``new``) from the region where the raw trees differ.

        When neither tree's entry ends are known (both read for the first time), a difference in one id is
        found without splitting (``_one_id_cold``) unless the new tree was met that way before; otherwise the
        old one is split: its ends are what the next commit's diff needs, the old tree being that commit's
        new one.
        Returns None when that cannot be told without splitting both trees: neither splits cleanly, or an
        entry of the region also appears elsewhere (a crafted tree with a duplicate entry).
        """
        if old.raw == new.raw:
            return set(), set()
        if old.ends is None and new.ends is None and not new.scanned:
            found = _one_id_cold(old.raw, new.raw)
            if found is not None:
                old.scanned = True
                return _without_duplicates(old, new, found[0], found[1])
        known = _cleanly_split(new, old) if new.ends or old.ends else _cleanly_split(old, new)
        if known is None:
            return None
        other = old if known is new else new
        region = _one_id(known.raw, other.raw, known.ends or ()) or _region(known.raw, other.raw, known.ends or ())
        if region is None:
            return None
        known_part, other_part, other_ends = region
        if other.ends is None:
            other.ends = other_ends
        old_part, new_part = (other_part, known_part) if known is new else (known_part, other_part)
        return _without_duplicates(old, new, old_part, new_part)

    def _pair(self, removed: Iterable[bytes], added: Iterable[bytes], prefix: bytes, changes: list[Change]) -> None:
        """Turn the entries only in the old tree and only in the new one into changes, descending into trees."""
        gone: dict[bytes, tuple[int, bytes]] = {}
        for entry in removed:
            name, mode, oid = _split(entry)
            gone[name] = (mode, oid)
        for entry in added:
            name, mode, oid = _split(entry)
            before = gone.pop(name, None)
            if before is None:
                self._added_or_removed(prefix + name, mode, oid, changes, new_side=True)
            elif before[0] == TREE and mode == TREE:
                self._diff(before[1], oid, prefix + name + b"/", changes)
            elif before[0] == TREE or mode == TREE:  # a directory became a file or the reverse
                self._added_or_removed(prefix + name, before[0], before[1], changes, new_side=False)
                self._added_or_removed(prefix + name, mode, oid, changes, new_side=True)
            else:
                changes.append(Change(prefix + name, before[0], before[1], mode, oid))
        for name, (mode, oid) in gone.items():
            self._added_or_removed(prefix + name, mode, oid, changes, new_side=False)

    def _added_or_removed(self, path: bytes, mode: int, oid: bytes, changes: list[Change], new_side: bool) -> None:
        if mode == TREE:
            self._expand(oid, path + b"/", changes, new_side)
        elif new_side:
            changes.append(Change(path, 0, None, mode, oid))
        else:
            changes.append(Change(path, mode, oid, 0, None))

    def _expand(self, tree: bytes, prefix: bytes, changes: list[Change], new_side: bool) -> None:
        for entry in _entries(self._tree(tree)):
            name, mode, oid = _split(entry)
            self._added_or_removed(prefix + name, mode, oid, changes, new_side)


def _entries(tree: _Tree) -> frozenset[bytes]:
    """Return the set of raw entries of ``tree``, splitting it the first time it is asked for."""
    if tree.entries is None:
        tree.entries = frozenset(_split_whole(tree))
    return tree.entries


def _without_duplicates(
    old: _Tree, new: _Tree, old_part: list[bytes], new_part: list[bytes]
) -> tuple[set[bytes], set[bytes]] | None:
    """Return (entries only in ``old_part``, entries only in ``new_part``), or None when one of them also
    appears elsewhere in the other tree (a crafted tree with a duplicate entry: the caller compares sets)."""
    removed, added = set(old_part).difference(new_part), set(new_part).difference(old_part)
    if any(entry in new.raw for entry in removed) or any(entry in old.raw for entry in added):
        return None
    return removed, added


def _cleanly_split(*trees: _Tree) -> _Tree | None:
    """Return the first tree whose entry ends are known (splitting one if none is), or None if none splits."""
    for tree in trees:
        if tree.ends:
            return tree
    for tree in trees:
        if tree.ends is None:
            _split_whole(tree)
        if tree.ends:
            return tree
    return None


def _one_id(
    known: bytes, other: bytes, ends: tuple[int, ...]
) -> tuple[list[bytes], list[bytes], tuple[int, ...]] | None:
    """Return ``_region``'s answer when the trees differ inside one entry's object id alone, else None.

    The common case (a file or folder changed, nothing added or removed), settled without the general loop.
    """
    if len(known) != len(other):
        return None
    start = common_prefix(known, other)
    index = bisect_right(ends, start)
    end = ends[index]
    if start < end - 20 or not known.startswith(other[end:], end):  # the rest is equal (one copy)
        return None
    begin = ends[index - 1] if index else 0
    return [known[begin:end]], [other[begin:end]], ends


def _one_id_cold(old: bytes, new: bytes) -> tuple[list[bytes], list[bytes]] | None:
    """Return ([old entry], [new entry]) when two trees whose entry ends are unknown differ inside one
    entry's object id alone, else None.

    The entries before the first difference are parsed in one regular-expression match that makes no
    list (``_ENTRIES``), several times cheaper than splitting the whole tree. Neither tree's ends become
    known: the caller marks the old tree ``scanned``, so that the next diff meeting it splits instead.
    """
    if len(old) != len(new):
        return None
    start = common_prefix(old, new)
    begin = _ENTRIES.match(old, 0, start).end()  # type: ignore[union-attr]  # a ``*`` always matches
    entry = _ENTRY.match(old, begin)
    if entry is None:
        return None
    end = entry.end()
    if start < end - 20 or not old.startswith(new[end:], end):
        return None
    return [old[begin:end]], [new[begin:end]]


def _region(
    known: bytes, other: bytes, ends: tuple[int, ...]
) -> tuple[list[bytes], list[bytes], tuple[int, ...]] | None:
    """Return the entries of two raw trees that are not in a run of bytes both share, and ``other``'s ends.

    ``ends`` are where the entries of ``known`` end (a clean split). Both trees are read from the start:
    a run of equal bytes is skipped in one comparison up to the last entry boundary inside it; where they
    differ, the entry that sorts first (or both, for one name) is set apart and read past. The skipped
    entries are the same in both trees, so the entries set apart hold every difference. None when
    ``other`` does not split cleanly where it is read.
    """
    known_part: list[bytes] = []
    other_part: list[bytes] = []
    other_ends: list[int] = []
    here = there = index = 0  # positions in known and other, both at an entry boundary; known's entry number
    while True:
        same = common_prefix(known, other, here, there)
        if here + same == len(known) and there + same == len(other):
            _shifted(other_ends, ends[index:], there - here)
            return known_part, other_part, tuple(other_ends)
        stop = bisect_right(ends, here + same, index)
        if stop > index:  # entries index..stop-1 are the same in both trees
            _shifted(other_ends, ends[index:stop], there - here)
            there += ends[stop - 1] - here
            here, index = ends[stop - 1], stop
        mine = known[here : ends[index]] if index < len(ends) else None
        match = _ENTRY.match(other, there) if there < len(other) else None
        if match is None and there < len(other):
            return None
        theirs = None if match is None else match.group()
        order = _order(mine, theirs)
        if order <= 0 and mine is not None:
            known_part.append(mine)
            here, index = ends[index], index + 1
        if order >= 0 and match is not None:
            other_part.append(match.group())
            there = match.end()
            other_ends.append(there)


def _order(mine: bytes | None, theirs: bytes | None) -> int:
    """Return -1, 0 or 1 as entry ``mine`` sorts before, with (same name) or after ``theirs`` (None: the end)."""
    if mine is None or theirs is None:
        return 1 if mine is None else -1
    mine_name, mine_mode, _ = _split(mine)
    theirs_name, theirs_mode, _ = _split(theirs)
    if mine_name == theirs_name:
        return 0
    return -1 if _sort_name(mine_name, mine_mode) < _sort_name(theirs_name, theirs_mode) else 1


def _sort_name(name: bytes, mode: int) -> bytes:
    """Return the name git sorts a tree entry by: its name, with ``/`` after a directory's."""
    return name + b"/" if mode == TREE else name


def _shifted(out: list[int], ends: tuple[int, ...], shift: int) -> None:
    """Append ``ends``, each moved by ``shift``, to ``out``."""
    out.extend(ends if shift == 0 else (end + shift for end in ends))


def _split_whole(tree: _Tree) -> list[bytes]:
    """Return the raw entries of ``tree`` in order, setting where they end if that was not known.

    The ends are ``()`` when the content is not entries end to end (a damaged or crafted tree). The entry
    set is made only where it is needed (``_entries``): most trees are split for their ends alone.
    """
    found: list[bytes] = _ENTRY.findall(tree.raw)
    if tree.ends is None:
        ends = tuple(accumulate(map(len, found)))
        tree.ends = ends if ends and ends[-1] == len(tree.raw) else ()
    return found


def _mode(octal: bytes) -> int:
    mode = int(octal, 8)
    return TREE if mode & TYPE_MASK == TREE else mode


def _split(entry: bytes) -> tuple[bytes, int, bytes]:
    """Return (name, mode, raw object id) of one raw tree entry ``b"<octal mode> <name>\\0<20 bytes>"``."""
    space = entry.index(b" ")
    return entry[space + 1 : -21], _mode(entry[:space]), entry[-20:]
