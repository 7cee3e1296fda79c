"""Tree-sitter outlines of the versions of a file the miner meets, each reparsed from the version met before.

Walking newest first, the miner needs the definitions of the parent version of each changed file; the
version it outlined just before, for the same path, is usually the child, a few lines away. Parsing a
whole C file of git's history costs about 0.3 s per MB, nine tenths of a mining run with functions
(2,000 commits: 100 s of 110). So the child's syntax tree is kept and edited where the hunks say the two
versions differ, and tree-sitter reparses only what the edits touch (its incremental parsing: the
same tree a whole parse gives, for a tree without errors). A tree with an error is not reused: from one,
tree-sitter's recovery may differ from a whole parse's (tree-sitter issues 1645 and 4001; seed 13 of Java
in ``tests/test_mining_sitter.py``), so that version is parsed whole. A version met again (two branches
edit the same parent) is answered from what was kept: the tree itself when it was that version's, the kept
edits when that version was outlined from regions. The query then runs only over the changed lines' bytes,
which finds the definitions holding them and every definition around those (``Grammar.definitions``).
Python files come here only for the versions ``ast`` cannot parse (Python 2 code): ``outline.py`` derives
the others from the child's ``ast`` outline.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from tree_sitter import Point, Tree

from pytest_codesearch.mining.outline import Hunk
from pytest_codesearch.mining.hunkcompose import composed
from pytest_codesearch.mining.regions import Offsets, Text, Tops, region_definitions, top_level
from pytest_codesearch.outline import grammar
from pytest_codesearch.outline.model import Definition


_NEWLINE = ord("\n")


class _Kept(NamedTuple):
    blob: bytes
    data: bytes
    tree: Tree | None
    """The syntax tree of ``blob``; None when it has an error (never reparsed) or was let go to save memory
    (``TREE_BUDGET``): ``tops`` is all that is used then."""
    tops: Tops | None
    """Its top-level nodes, found when regions first need them."""
    language: str
    offsets: Offsets
    """``line_offsets(data)``, found once for both versions the tree stands for."""
    version: bytes
    """The blob last outlined from this tree (by regions, ``regions.py``): ``edits`` turn it into ``blob``."""
    edits: tuple[Hunk, ...] = ()
    version_lines: int = 0


TREE_BUDGET = 4 << 20
"""Source bytes whose syntax trees are kept whole (a C tree takes about 23 times its source). Past it the least
recently used trees are let go and their entries keep their top-level nodes, all that regions read; a version
no region can answer is then parsed whole instead of incrementally (``docs/mining.md``)."""


class TreeOutlines:
    """Keeps the last syntax tree of each path, within a budget of source bytes, to reparse the next version.

    A tree with an error is kept as its top-level nodes alone (``regions.Tops``): it is never reparsed, and
    the whole tree takes about 25 times its source; so are clean trees past ``tree_budget`` bytes of source.
    ``read`` returns a blob's content by id; ``diff`` the hunks from one blob to another, by id.
    """

    def __init__(
        self,
        read: Callable[[bytes], bytes],
        diff: Callable[[bytes, bytes], Sequence[Hunk]],
        budget: int = 16 << 20,
        tree_budget: int = TREE_BUDGET,
    ) -> None:
        self._read = read
        self._diff = diff
        self._budget = budget
        self._held = 0
        self._by_path: OrderedDict[str, _Kept] = OrderedDict()
        self._tree_budget = tree_budget
        self._tree_held = 0
        self._trees: OrderedDict[str, int] = OrderedDict()
        """The paths whose entry holds a tree, least recently used first, with the size of its source."""

    def definitions(
        self, path: str, language: str, ids: tuple[bytes, bytes | None], hunks: Sequence[Hunk],
        spans: Sequence[tuple[int, int]],
    ) -> tuple[Definition, ...]:  # fmt: skip
        """Return the definitions of blob ``ids[0]`` (the file at ``path``) that hold or enclose a line of
        ``spans``; ``hunks`` turn it into its child ``ids[1]``."""
        source_id, new_id = ids
        found = grammar(language)
        kept = self._by_path.get(path)
        if kept is not None and kept.blob == source_id and kept.language == language and kept.tree is not None:
            self._use(path)  # this very version was parsed: its tree answers (branches meet it again)
            return found.definitions(kept.tree, _byte_ranges(kept.offsets, spans))[0]
        source = self._read(source_id)
        offsets = line_offsets(source)
        edits = None
        if kept is not None and kept.language == language:
            base, text = Text(kept.data, kept.offsets), Text(source, offsets)
            edits = self._edits(kept, (source_id, new_id), hunks, text)
            tops = _tops(kept)
            derived = region_definitions(found, tops, base, text, edits, spans)
            if derived is not None:  # the base's tree stays: the next version is mapped to it
                kept = kept._replace(version=source_id, edits=tuple(edits), version_lines=text.lines)
                self._by_path[path] = kept._replace(tops=tops)
                self._use(path)
                return derived
        old = None
        if kept is not None:
            self._drop(path)
            if edits is not None and kept.tree is not None:  # a tree with errors, or let go: parsed whole
                old = edited(kept.tree, (kept.data, kept.offsets), (source, offsets), edits)
        tree = found.parse(source, old)
        if tree.root_node.has_error:
            self._keep(path, _Kept(source_id, source, None, top_level(tree, language), language, offsets, source_id))
        else:
            self._keep(path, _Kept(source_id, source, tree, None, language, offsets, source_id))
        return found.definitions(tree, _byte_ranges(offsets, spans))[0]

    def _edits(self, kept: _Kept, ids: tuple[bytes, bytes | None], hunks: Sequence[Hunk], source: Text) -> list[Hunk]:
        """Return the hunks from blob ``ids[0]`` to the kept tree's blob: ``hunks`` lead to ``ids[1]``, and from
        there the kept edits, when they start there; the kept edits alone when ``ids[0]`` is the version they
        start from (outlined before, on another branch); else a diff of the two blobs."""
        if kept.version == ids[0]:
            return list(kept.edits)
        if kept.version == ids[1]:
            if kept.version == kept.blob:
                return list(hunks)
            lines = (source.lines, kept.version_lines, len(kept.offsets) - 1)
            found = composed(hunks, kept.edits, lines)
            if found is not None:
                return found
        return list(self._diff(ids[0], kept.blob))

    def _keep(self, path: str, kept: _Kept) -> None:
        """Keep ``kept`` for ``path``; past the budgets, forget the least recently used entries, then let go
        of the least recently used trees (their entries keep their top-level nodes)."""
        self._by_path[path] = kept
        self._held += len(kept.data)
        if kept.tree is not None:
            self._trees[path] = len(kept.data)
            self._tree_held += len(kept.data)
        while self._held > self._budget and self._by_path:
            self._drop(next(iter(self._by_path)))
        while self._tree_held > self._tree_budget and self._trees:
            oldest, size = self._trees.popitem(last=False)
            self._tree_held -= size
            entry = self._by_path[oldest]
            self._by_path[oldest] = entry._replace(tree=None, tops=_tops(entry))

    def _use(self, path: str) -> None:
        """Mark the entry of ``path`` (and its tree) most recently used."""
        self._by_path.move_to_end(path)
        if path in self._trees:
            self._trees.move_to_end(path)

    def _drop(self, path: str) -> None:
        """Forget the entry of ``path``."""
        self._held -= len(self._by_path.pop(path).data)
        self._tree_held -= self._trees.pop(path, 0)


def _tops(kept: _Kept) -> Tops:
    """Return the top-level nodes of the kept tree (found from the tree the first time); an entry holds one
    or the other, and the empty answer (no region is trusted) is only there for the type checker."""
    if kept.tops is not None:
        return kept.tops
    return top_level(kept.tree, kept.language) if kept.tree is not None else Tops((), (), root_error=True)


def _byte_ranges(offsets: Offsets, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return the bytes (first, past) of each span of lines, given the ``line_offsets`` of the content."""
    last = len(offsets) - 1
    return [(offsets[min(first, last + 1) - 1], offsets[min(end, last)]) for first, end in spans]


def line_offsets(data: bytes) -> Offsets:
    """Return the byte offset where each line of ``data`` starts, then the length of ``data``.

    The newlines are found by numpy: a Python loop over the lines cost a third of the outline time of
    git's history, splitting the lines a tenth. They are copied out as machine integers (an ``array``),
    not made a list of Python ints: half the time, on git's C files.
    """
    offsets = array("q", [0])
    if not data:
        return offsets
    starts = np.flatnonzero(np.frombuffer(data, np.uint8) == _NEWLINE) + 1
    offsets.frombytes(starts.astype(np.int64, copy=False).tobytes())
    if not data.endswith(b"\n"):
        offsets.append(len(data))  # the last line has no newline: it ends with the data
    return offsets


def edited(
    tree: Tree, base: tuple[bytes, Offsets], source: tuple[bytes, Offsets], hunks: Sequence[Hunk]
) -> Tree | None:
    """Return ``tree`` (of ``base``) edited to stand for ``source``; ``hunks`` turn ``source`` into ``base``.

    ``base`` and ``source`` are each a content with its ``line_offsets``. None when the hunks do not
    describe the two (the caller parses ``source`` whole): the edits must account for every byte, or
    tree-sitter would reuse nodes that no longer match the text.
    """
    (base_data, theirs), (source_data, mine) = base, source
    if not (base_data.endswith(b"\n") and source_data.endswith(b"\n")):
        return None  # a last line without a newline ends mid-line: its point is not (line, 0)
    edits = []
    for start, count, base_start, base_count in hunks:
        first = start - 1 if count else start  # 0-based first line (a count of 0: lines go after start)
        base_first = base_start - 1 if base_count else base_start
        if min(first, base_first) < 0 or first + count >= len(mine) or base_first + base_count >= len(theirs):
            return None
        edits.append((first, count, base_first, base_count))
    growth = sum(_size(mine, first, count) - _size(theirs, at, size) for first, count, at, size in edits)
    if len(base_data) + growth != len(source_data):
        return None
    for first, count, base_first, base_count in reversed(edits):  # bottom up: the lines above stay put
        at = theirs[base_first]
        tree.edit(
            start_byte=at,
            old_end_byte=at + _size(theirs, base_first, base_count),
            new_end_byte=at + _size(mine, first, count),
            start_point=Point(base_first, 0),
            old_end_point=Point(base_first + base_count, 0),
            new_end_point=Point(base_first + count, 0),
        )
    return tree


def _size(offsets: Offsets, first: int, count: int) -> int:
    """Return the bytes of ``count`` lines from 0-based line ``first``."""
    return offsets[first + count] - offsets[first] if count else 0
