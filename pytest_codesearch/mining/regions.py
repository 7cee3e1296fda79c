"""The definitions around a version's changed lines, from a parse of those lines' top-level definitions alone.

``sitter.py`` keeps the top-level nodes of the syntax tree of a version of each path met (the base, ``Tops``);
the version to outline (the source) differs from it by a few hunks. Reparsing the whole source from the base's tree costs in
proportion to the file (tree-sitter re-reads every node its error recovery made, and 40% of git's C
files do not parse whole), so each changed line is first looked for in a region of the source: the
top-level nodes of the base around it, framed by one clean top-level node on each side (or the file's
start or end). That region of the source is parsed alone. Its result stands for the whole file's when:

- the frame nodes have no error in the base (in C, none but those of the exception below) and come back
  the same (type and length) from the region's parse: the parse entered and left the region at a clean top-level boundary, as it does
  in the whole file, whose bytes outside the region are the base's;
- the region's parse has no error at all (an error or missing node): tree-sitter's recovery inside a
  node depends on the text after it, so a node that recovered in the region alone may end elsewhere in the
  whole file, swallowing a frame (seed ``185-cpp`` of ``tests/test_mining_sitter.py``). One exception, in C:
  a function definition or declaration whose errors are all ERROR nodes or missing ``;`` inside it
  (``framing.py``). Those are what git's macros leave (``void *data UNUSED``, ``for_each_item(x, &l) {``), in
  about half of its C files: tree-sitter skips the token or inserts the ``;`` in place, and the node still
  ends at its own ``}`` or ``;``. Such a node may frame a region, and a region may hold it. Brace errors
  (a missing ``}``), errors at top level and errors in other node types are never trusted. Random C
  histories, plain and full of git's macros, check this against whole parses (thousands of seeds were run
  once; the suite runs a few), and so does the whole of git's history (``docs/mining.md``);
- every hunk lies inside a region or outside all of them, and the frame nodes are not edited;
- the base's root is no error node (its children would be fragments, not top-level nodes), nor is the
  region's own: a Rust ``fn inner() -> u32 {`` left unclosed before an ``impl`` frame comes back as an
  error root holding the frame whole beside fragments, while in the whole file ``inner`` swallows the
  ``impl`` (seed ``4-rust-x`` of random histories; Ruby's seeds ``17-ruby-x`` and ``18-ruby-x`` alike).

Otherwise (or when the regions would hold more than half the file) the caller reparses the file whole.
Lines here are numbered from 1; a hunk is ``(source start, source count, base start, base count)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from bisect import bisect_right

from tree_sitter import Node, Tree

from pytest_codesearch.mining.framing import clean, framing
from pytest_codesearch.mining.outline import Hunk
from pytest_codesearch.outline.model import Definition
from pytest_codesearch.outline.treesitter import Grammar

_SPACE = b" \t\r\f\v\n"
_BLANK = re.compile(rb"[ \t\r\f\v\n]+")
MOST_SHARE = 0.5
"""Regions holding more than this share of the file's bytes are not worth it: the file is reparsed."""
MOST_HUNKS = 64
"""Hunks past which the base is too far from the source (edits piled up since its tree was parsed): the file
is reparsed, and that tree kept."""
_UNFRAMED = frozenset({"c", "cpp"})
"""Languages whose clean regions may be parsed without their frames (``_parsed``)."""


_WHOLE_ONLY = frozenset({"ruby", "python"})
"""Languages never read from regions. Python (outlined here only for versions ``ast`` cannot parse, Python 2
code) is reparsed from the kept tree: no random history has checked its regions. Ruby's grammar reads an
``end`` without its ``def`` as a clean top-level identifier, so an edit elsewhere that opens or closes a
block moves which ``end`` closes what, across frames that look clean (seed ``236-ruby-x`` of random
histories: a ``def`` the whole file's parse extends over the region's frame)."""


Offsets = Sequence[int]
"""Where each line of a content starts, then its length (``sitter.line_offsets``: an ``array``)."""


class Text(NamedTuple):
    """A version of a file: its bytes and where each line starts (``sitter.line_offsets``)."""

    data: bytes
    offsets: Offsets

    @property
    def lines(self) -> int:
        """Return the number of lines (``offsets`` ends with the length of the data)."""
        return max(len(self.offsets) - 1, 0)

    def start(self, line: int) -> int:
        """Return the byte where ``line`` starts (the end of the file past the last line)."""
        return self.offsets[line - 1] if line <= len(self.offsets) else len(self.data)


class Top(NamedTuple):
    """A top-level node of a syntax tree, as much as regions need of it."""

    start_byte: int
    end_byte: int
    first: int
    last: int
    """Its first and last line (``_lines``)."""
    type: str
    clean: bool
    """Whether it has no error, is none and is not missing."""
    frames: bool
    """Whether it can frame a region (``framing.framing``): clean, or (in C) a definition whose errors stay inside it."""


class Tops(NamedTuple):
    """The top-level nodes of a syntax tree, in order: all that ``region_definitions`` reads of a base's tree,
    a few bytes a node where the tree takes about 25 times its source (``sitter.py`` keeps this alone for a
    tree with errors, which is never reparsed)."""

    nodes: tuple[Top, ...]
    ends: tuple[int, ...]
    """The end byte of each node."""
    root_error: bool
    """Whether the root itself is an error node (its children are fragments, not top-level nodes)."""


def top_level(tree: Tree, language: str = "") -> Tops:
    """Return the top-level nodes of ``tree``, a syntax tree of ``language``."""
    root = tree.root_node
    nodes = tuple(
        Top(node.start_byte, node.end_byte, *_lines(node), node.type, clean(node), framing(language, node))
        for node in root.children
    )
    return Tops(nodes, tuple(node.end_byte for node in nodes), root.is_error)


class _Region(NamedTuple):
    first: int
    last: int
    """The base lines of the region, frame nodes included."""
    before: tuple[str, int] | None
    after: tuple[str, int] | None
    """Type and length of the frame nodes (None at the file's start or end)."""
    inner: tuple[int, int]
    """The base lines between the frames."""
    clean: bool
    """Whether the top-level nodes between the frames are clean in the base and no frame shares a line with
    them: a C or C++ region may then be parsed without its frames (``_parsed``)."""
    doomed: bool = False
    """Whether a node between the frames has an error in the base (other than C's, ``framing.py``) and no hunk
    edits it: the source holds the same text there, so the region's own parse would have that error too (not
    trusted): it is not tried."""


def region_definitions(
    grammar: Grammar, tops: Tops, base: Text, source: Text, hunks: Sequence[Hunk], spans: Sequence[tuple[int, int]]
) -> tuple[Definition, ...] | None:
    """Return the source's definitions that meet a line of ``spans`` (and those around them), found from
    regions of the source parsed alone (see the module docstring); None when that cannot be trusted.

    ``tops`` are the top-level nodes of the base's syntax tree (``top_level``); ``hunks`` turn the source
    into the base.
    """
    if len(hunks) > MOST_HUNKS or tops.root_error or not base.lines or not source.lines or grammar.name in _WHOLE_ONLY:
        return None
    if not _accounted(base, source, hunks):
        return None
    regions: list[_Region] = []
    for first, last in spans:
        low, high = _to_base(first, hunks)[0], _to_base(last, hunks)[1]
        found = _grow(tops, base, hunks, max(1, low), min(high, base.lines))
        if found is None:
            return None
        regions.append(found)
    merged = _merged(regions)
    size = sum(base.start(r.last + 1) - base.start(r.first) for r in merged)
    if size > MOST_SHARE * len(base.data) or any(region.doomed for region in merged):
        return None
    found_all: list[Definition] = []
    for region in merged:
        definitions = _parsed(grammar, region, source, hunks, spans)
        if definitions is None:
            return None
        found_all.extend(definitions)
    return tuple(found_all)


def _accounted(base: Text, source: Text, hunks: Sequence[Hunk]) -> bool:
    """Return whether the hunks account for every byte the two versions differ in length by."""
    growth = 0
    for start, count, base_start, base_count in hunks:
        if count:
            growth += source.start(start + count) - source.start(start)
        if base_count:
            growth -= base.start(base_start + base_count) - base.start(base_start)
    return len(base.data) + growth == len(source.data)


def _to_base(line: int, hunks: Sequence[Hunk]) -> tuple[int, int]:
    """Return the base lines standing for source line ``line``: itself moved, or those of the hunk holding it."""
    shift = 0
    for start, count, base_start, base_count in hunks:
        if line < (start if count else start + 1):
            break
        if count and line < start + count:
            return (base_start, base_start + base_count - 1) if base_count else (base_start, base_start + 1)
        shift = (base_start + base_count if base_count else base_start + 1) - (start + count if count else start + 1)
    return line + shift, line + shift


def _to_source(line: int, hunks: Sequence[Hunk]) -> int | None:
    """Return the source line of base line ``line``, None when a hunk put it there."""
    shift = 0
    for start, count, base_start, base_count in hunks:
        if line < (base_start if base_count else base_start + 1):
            break
        if base_count and line < base_start + base_count:
            return None
        shift = (start + count if count else start + 1) - (base_start + base_count if base_count else base_start + 1)
    return line + shift


def _lines(node: Node) -> tuple[int, int]:
    """Return the first and last line of ``node`` (one ending at a line's start ends on the line before)."""
    start, end = node.start_point, node.end_point
    return start.row + 1, end.row if end.column == 0 and end.row > start.row else end.row + 1


def _grow(tops: Tops, base: Text, hunks: Sequence[Hunk], low: int, high: int) -> _Region | None:
    """Return the region of base lines ``low`` to ``high``: whole top-level nodes, framed by a clean one on each
    side that no hunk edits and that has its lines to itself; None when it would exceed half the file."""
    limit = MOST_SHARE * len(base.data)
    nodes = tops.nodes
    while base.start(high + 1) - base.start(low) <= limit:
        past = base.start(high + 1)
        head = _child_after(tops, base.start(low), base.data)
        at = len(nodes) if head is None else head  # the first node not before the region
        stop = at
        while stop < len(nodes) and nodes[stop].start_byte < past:
            stop += 1
        core = list(nodes[at:stop])
        first, last = (core[0], core[-1]) if core else (None, None)
        after = nodes[stop] if stop < len(nodes) else None
        before = nodes[at - 1] if at > 0 else None
        if not _in_order(before, first or after, last, after):
            return None
        if first is not None and last is not None:
            low, high = min(low, first.first), max(high, last.last)
        wider = _widened(base, hunks, low, high, before, after)
        if wider is None:
            return _framed(base, hunks, (before, after), core)
        if wider == (low, high):
            return None  # a zero-width node, say: nothing to frame with
        low, high = wider
    return None


def _framed(base: Text, hunks: Sequence[Hunk], frames: tuple[Top | None, Top | None], core: list[Top]) -> _Region:
    """Return the region of the ``core`` nodes between the frame nodes ``frames`` (before, after)."""
    before, after = frames
    top = 1 if before is None else before.first
    bottom = base.lines if after is None else after.last
    inner = (1 if before is None else before.last + 1, base.lines if after is None else after.first - 1)
    alone = not core or (inner[0] <= core[0].first and core[-1].last <= inner[1])
    clean = alone and inner[0] <= inner[1] and all(node.clean for node in core)
    doomed = any(not node.frames and not _edited(node, hunks) for node in core)
    return _Region(top, bottom, _top_shape(before), _top_shape(after), inner, clean, doomed)


def _in_order(before: Top | None, first: Top | None, last: Top | None, after: Top | None) -> bool:
    """Return whether the nodes found follow one another (as tree-sitter's sibling links should)."""
    if before is not None and first is not None and before.end_byte > first.start_byte:
        return False
    return last is None or after is None or last.end_byte <= after.start_byte


def _child_after(tops: Tops, at: int, data: bytes) -> int | None:
    """Return the index of the top-level node holding the first non-blank byte at or after ``at``, or None
    when none is: the first node ending after that byte, if it starts at or before it (as tree-sitter's
    ``descendant_for_byte_range`` descends)."""
    blank = _BLANK.match(data, at)
    start = at if blank is None else blank.end()
    if start >= len(data):
        return None
    index = bisect_right(tops.ends, start)
    return index if index < len(tops.nodes) and tops.nodes[index].start_byte <= start else None


def _widened(
    base: Text, hunks: Sequence[Hunk], low: int, high: int, before: Top | None, after: Top | None
) -> tuple[int, int] | None:
    """Return the wider core lines when a frame node does not frame (unclean, edited, sharing a line) or a
    hunk straddles the region's edge; None when the frame holds."""
    top = 1 if before is None else before.first
    bottom = base.lines if after is None else after.last
    if before is not None and not _frames(before, base, hunks, top, before=True):
        return top, high
    if after is not None and not _frames(after, base, hunks, bottom, before=False):
        return low, bottom
    for _, _, base_start, base_count in hunks:
        if base_count and base_start <= bottom and base_start + base_count - 1 >= top:
            if base_start < top or base_start + base_count - 1 > bottom:
                return min(low, base_start), max(high, base_start + base_count - 1)
    return None


def _frames(node: Top, base: Text, hunks: Sequence[Hunk], line: int, before: bool) -> bool:
    """Return whether ``node`` can frame a region: clean, unedited, alone on its outer line (``line``)."""
    if not node.frames or _edited(node, hunks):
        return False
    if before:
        return not base.data[base.start(line) : node.start_byte].strip(_SPACE)
    return not base.data[node.end_byte : base.start(line + 1)].strip(_SPACE)


def _edited(node: Top, hunks: Sequence[Hunk]) -> bool:
    """Return whether a hunk edits a line of ``node`` (a pure insertion, the lines on either side of it)."""
    for _, _, base_start, base_count in hunks:
        low, high = (base_start, base_start + base_count - 1) if base_count else (base_start, base_start + 1)
        if low <= node.last and high >= node.first:
            return True
    return False


def _shape(node: Node | None) -> tuple[str, int] | None:
    return None if node is None else (node.type, node.end_byte - node.start_byte)


def _top_shape(node: Top | None) -> tuple[str, int] | None:
    return None if node is None else (node.type, node.end_byte - node.start_byte)


def _merged(regions: list[_Region]) -> list[_Region]:
    """Return the regions in order, overlapping ones joined: the frame before of the one reaching furthest up,
    the frame after of the one reaching furthest down (of two ending on one line, the one whose nodes between
    the frames reach further: the other's frame is one of its nodes)."""
    merged: list[_Region] = []
    for region in sorted(regions, key=lambda found: (found.first, found.inner[0])):
        if merged and region.first <= merged[-1].last:
            previous = merged[-1]
            lower = max(previous, region, key=lambda found: (found.last, found.inner[1]))
            inner = (previous.inner[0], lower.inner[1])
            clean = previous.clean and region.clean  # a frame of one inside the other is a clean node
            doomed = previous.doomed or region.doomed
            merged[-1] = _Region(previous.first, lower.last, previous.before, lower.after, inner, clean, doomed)
        else:
            merged.append(region)
    return merged


def _parsed(
    grammar: Grammar, region: _Region, source: Text, hunks: Sequence[Hunk], spans: Sequence[tuple[int, int]]
) -> list[Definition] | None:
    """Return the definitions of the region's source lines meeting ``spans``, parsed alone; None if untrusted.

    A C or C++ region whose nodes are clean in the base is first parsed without its frames: when that parse
    has no error at all, it stands for the whole file's too (C has no line-sensitive rule, such as a
    JavaScript or Go statement ending at a newline, that would let the next node change how this one ends).
    """
    if region.clean and grammar.name in _UNFRAMED:
        first = 1 if region.before is None else _to_source(region.inner[0] - 1, hunks)
        last = source.lines if region.after is None else _to_source(region.inner[1] + 1, hunks)
        if first is not None and last is not None:
            first, last = (first + (region.before is not None), last - (region.after is not None))
            tree = grammar.parse(source.data[source.start(first) : source.start(last + 1)])
            if not tree.root_node.has_error:
                return _found(grammar, tree, source, spans, (first, last))
    first = 1 if region.before is None else _to_source(region.first, hunks)
    last = source.lines if region.after is None else _to_source(region.last, hunks)
    if first is None or last is None:
        return None
    tree = grammar.parse(source.data[source.start(first) : source.start(last + 1)])
    root = tree.root_node
    if root.is_error or (root.has_error and not all(framing(grammar.name, child) for child in root.children)):
        return None  # a node that recovered from an error may end elsewhere in the whole file's parse; an error
        # root holds fragments (an unclosed ``fn f() {`` left before the frame), not top-level nodes
    children = root.children
    for shape, child in ((region.before, children[0] if children else None),
                         (region.after, children[-1] if children else None)):  # fmt: skip
        if shape is not None and (child is None or not framing(grammar.name, child) or _shape(child) != shape):
            return None
    return _found(grammar, tree, source, spans, (first, last))


def _found(
    grammar: Grammar, tree: Tree, source: Text, spans: Sequence[tuple[int, int]], lines: tuple[int, int]
) -> list[Definition]:
    """Return the definitions of ``tree`` (source ``lines`` parsed alone) meeting ``spans``, in the file's lines."""
    first, last = lines
    start, end = source.start(first), source.start(last + 1)
    ranges = [(source.start(a) - start, source.start(b + 1) - start) for a, b in spans if a <= last and b >= first]
    ranges = [(max(low, 0), min(high, end - start)) for low, high in ranges]
    shift = first - 1
    return [
        Definition(d.qualname, d.start + shift, d.end + shift, d.is_function, d.top_level, d.column, d.in_function)
        for d in grammar.definitions(tree, ranges)[0]
    ]
