"""Our own tree diff: compare two trees' raw entries, descend only into subtrees whose ids differ.

Consecutive commits share almost every tree, so a commit's diff reads a handful of small objects. That is
several times cheaper than libgit2's diff, which lists both trees in full (issue 4, performance).

Most directories on a changed path differ in one entry's object id alone: the two raw trees then have the
same length and differ only inside that entry's last 20 bytes. ``TreeDiffer`` finds the differing bytes
with one integer XOR and reads the entry at that place, without splitting the whole tree into entries;
every other case compares the two trees' entry sets. Both ways give the same changes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import NamedTuple

import pygit2

from pytest_codesearch.mining.objects import ObjectReader

TYPE_MASK = 0o170000
TREE = 0o040000
REGULAR = 0o100000
SYMLINK = 0o120000
GITLINK = 0o160000

_ENTRY = re.compile(rb"\d+ [^\0]*\0.{20}", re.S)
_ID_SIZE = 20
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

    __slots__ = ("raw", "ends", "entries")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.ends: tuple[int, ...] | None = None
        """End offsets of the entries; ``()`` when the content is not a plain run of entries."""
        self.entries: frozenset[bytes] | None = None


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
        if not self._one_id_changed(old, new, prefix, changes):
            self._diff_entries(_entries(old), _entries(new), prefix, changes)

    def _one_id_changed(self, old: _Tree, new: _Tree, prefix: bytes, changes: list[Change]) -> bool:
        """Diff two trees that differ in one entry's id only and return True; else return False, doing nothing.

        Equal lengths, and every differing byte inside the last 20 bytes of one entry whose name no other
        entry has: then the two entry sets differ in that entry alone, as ``_diff_entries`` would find.
        """
        a, b = old.raw, new.raw
        size = len(a)
        if size != len(b):
            return False
        ends = new.ends if new.ends is not None else _parse(new)[1]
        if not ends:
            return False
        differ = int.from_bytes(a, "big") ^ int.from_bytes(b, "big")
        if not differ:
            return True
        first = size - (differ.bit_length() + 7) // 8
        last = size - 1 - ((differ & -differ).bit_length() - 1) // 8
        index = bisect_right(ends, first)
        end = ends[index]
        if first < end - _ID_SIZE or last >= end:
            return False
        entry = b[ends[index - 1] if index else 0 : end]
        space = entry.index(b" ")
        name = entry[space + 1 : -_ID_SIZE - 1]
        if b.count(b" " + name + b"\0") != 1:  # another entry may share the name (a crafted tree)
            return False
        old.ends = ends
        mode = _mode(entry[:space])
        if mode == TREE:
            self._diff(a[end - _ID_SIZE : end], b[end - _ID_SIZE : end], prefix + name + b"/", changes)
        else:
            changes.append(Change(prefix + name, mode, a[end - _ID_SIZE : end], mode, b[end - _ID_SIZE : end]))
        return True

    def _diff_entries(self, old: frozenset[bytes], new: frozenset[bytes], prefix: bytes, changes: list[Change]) -> None:
        gone: dict[bytes, tuple[int, bytes]] = {}
        for entry in old - new:
            name, mode, oid = _split(entry)
            gone[name] = (mode, oid)
        for entry in new - old:
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
    return tree.entries if tree.entries is not None else _parse(tree)[0]


def _parse(tree: _Tree) -> tuple[frozenset[bytes], tuple[int, ...]]:
    """Split ``tree`` into entries; set and return its entry set and where its entries end.

    The ends are ``()`` when the content is not entries end to end (a damaged or crafted tree).
    """
    found = _ENTRY.findall(tree.raw)
    ends = tuple(accumulate(map(len, found)))
    tree.entries = frozenset(found)
    if tree.ends is None:
        tree.ends = ends if ends and ends[-1] == len(tree.raw) else ()
    return tree.entries, tree.ends


def _mode(octal: bytes) -> int:
    mode = int(octal, 8)
    return TREE if mode & TYPE_MASK == TREE else mode


def _split(entry: bytes) -> tuple[bytes, int, bytes]:
    """Return (name, mode, raw object id) of one raw tree entry ``b"<octal mode> <name>\\0<20 bytes>"``."""
    space = entry.index(b" ")
    return entry[space + 1 : -21], _mode(entry[:space]), entry[-20:]
