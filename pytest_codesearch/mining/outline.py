"""The functions and classes of one version of a Python file, mostly copied from a nearby version's.

Walking newest first, the miner parses the parent version of each changed Python file; the version it
parsed just before, for the same path, is usually the child, a few lines away (issue 12: parsing whole
files was nearly all the cost of recording lines; 8.4 of 13.5 s on flask). So the two are cut into
pieces at *boundaries*: lines where a top-level statement starts after every earlier one has ended, plus
the first line and the line past the end. A piece of the new version between two boundaries of the old
one, byte for byte the same, is a run of whole statements: its definitions are the old ones, shifted. Only
the pieces around the changes are parsed, each on its own. A top-level class or function (often most
of a file) is cut the same way between the statements of its body, and so are the classes and functions
in such a body, at any depth (those of :data:`CUT_LINES` lines or more), when its header is alike or
parses alone (with a stub body, the first line of its body alike) as the same kind and name: the pieces
of a body are parsed inside ``class _:`` and must stand at the body's column; the definition's own
lines are then its header's and its last statement's. Lines added after the last statement of a body,
less indented than it (a function added after a class), are parsed at the level they stand at.

That gives what parsing the whole file gives. A module is a sequence of statements, and each piece starts
and ends where the tokenizer is clean (no open bracket, string or block): a copied piece because both its
ends are boundaries of a file that parses, a parsed piece because it parses alone (a piece that cannot be
cut there, such as one starting with ``else:`` or inside a string, does not). When a piece does not parse,
the whole file is parsed instead, so a file that does not parse still gives no definitions. Files whose
lines Python would count or decode differently from their bytes (a bare carriage return, a coding
declaration other than UTF-8) and files that change the grammar (``barry_as_FLUFL``) are always parsed whole.
"""

from __future__ import annotations

import ast
import codecs
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from pytest_codesearch.gcpause import paused_gc
from pytest_codesearch.outline.model import Definition
from pytest_codesearch.outline.python import member_definitions, module_definitions, parse_module

Hunk = tuple[int, int, int, int]
"""``(old start, old count, new start, new count)`` as git numbers a hunk: with a count of 0, the start is
the line after which the other side's lines go."""
_COOKIE = re.compile(rb"coding[:=][ \t]*([-\w.]*)")


CUT_LINES = 12
"""Lines past its first a class or function spans at least for its body to be cut (a smaller one is
parsed whole)."""

_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)

Piece = tuple[int, int, int]
"""``(line in the source, line in the base, length)``: lines alike in both."""
Gap = tuple[int, int, int, int]
"""``(first, past)`` lines in the source, then in the base, of the lines between two copied pieces."""


Body = tuple[int, int, tuple[int, ...]]
"""``(first line, column, cuts)`` of a definition's body: the line the definition starts on (its first
decorator's), the column of its body's statements, and the lines its body can be cut at (its first
statement's, then each statement's that starts after the earlier ones end), counted from the first line."""


@dataclass(frozen=True)
class Outline:
    """The definitions of a file that parses, and where it can be cut into runs of whole statements."""

    definitions: tuple[Definition, ...]
    """As ``definition_spans`` gives them: every function and class in source order."""
    boundaries: tuple[int, ...]
    """Sorted lines before which no statement continues (1, each clean top-level start, lines + 1)."""
    bodies: tuple[Body, ...] = ()
    """The bodies of the classes and functions that are statements of the module or of such a body (not of
    an ``if`` or other block) and whose body starts on a later line than their header, by first line."""

    @cached_property
    def _starts(self) -> list[int]:
        return [definition.start for definition in self.definitions]

    @cached_property
    def _body_starts(self) -> list[int]:
        return [body[0] for body in self.bodies]

    def between(self, first: int, past: int) -> tuple[Definition, ...]:
        """Return the definitions starting on lines ``first`` to ``past - 1``, in order."""
        return self.definitions[bisect_left(self._starts, first) : bisect_left(self._starts, past)]

    def bodies_between(self, first: int, past: int) -> tuple[Body, ...]:
        """Return the bodies of the definitions starting on lines ``first`` to ``past - 1``, in order."""
        return self.bodies[bisect_left(self._body_starts, first) : bisect_left(self._body_starts, past)]


def parse_outline(source: bytes) -> Outline | None:
    """Return the outline of ``source`` parsed whole (in chunks when large: :func:`_parse_piece`); None when it
    does not parse."""
    with paused_gc():
        found = _parse_piece(source, 0)
    if found is None:
        return None
    return Outline(found.definitions, (*found.boundaries, _Lines(source).past), found.bodies)


def derive_outline(source: bytes, base: bytes, outline: Outline, hunks: Sequence[Hunk]) -> Outline | None:
    """Return the outline of ``source``, from that of ``base`` and the hunks turning ``source`` into ``base``.

    Parses only the pieces of ``source`` the hunks touch (see the module docstring); None when ``source``
    does not parse.
    """
    if not (sliceable(source) and sliceable(base)):
        return parse_outline(source)
    mine, theirs = _Lines(source), _Lines(base)
    pair = _Pair(mine, theirs, outline, list(_equal_runs(hunks, mine.past, theirs.past)))
    pieces = [p for p in _copied_pieces(pair.runs, outline.boundaries) if _alike(pair.mine, pair.theirs, p)]
    parts = [_copied(outline, outline.boundaries, piece) for piece in pieces]
    plain = b"\t" not in source and b"\f" not in source  # columns are indentation: bodies can be cut
    with paused_gc():
        for gap in _split(_gaps(pieces, pair.mine.past, pair.theirs.past), pair, outline.boundaries):
            found = _definition_part(pair, gap, outline.boundaries) if plain else None
            rest = gap[0] if found is None else found[2]
            if found is not None:  # and the gap's first line, a clean cut (blank lines and comments may lead)
                parts += [found[0]] if found[0].boundaries[0] == gap[0] else [Outline((), (gap[0],)), found[0]]
            part = None if rest == gap[1] else _parse_piece(pair.mine.text(rest, gap[1]), rest - 1)
            if part is None and rest < gap[1]:
                return parse_outline(source)
            if part is not None:
                parts.append(part)
    return _joined(parts, pair.mine.past)


def sliceable(source: bytes) -> bool:
    """Return whether Python numbers and decodes each line of ``source`` alone as within the whole file."""
    if b"\r" in source and source.count(b"\r") != source.count(b"\r\n"):
        return False  # a bare carriage return ends a line for Python, not for a diff
    head = source[: source.find(b"\n", source.find(b"\n") + 1) + 1 or len(source)]
    return all(_is_utf8(match[1]) for match in _COOKIE.finditer(head)) and b"barry_as_FLUFL" not in source


def _is_utf8(name: bytes) -> bool:
    """Return whether a coding declaration names UTF-8, which Python assumes anyway (PEP 3120)."""
    try:
        return codecs.lookup(name.decode("ascii")).name == "utf-8"
    except (LookupError, UnicodeDecodeError):
        return False


class _Lines:
    """The lines of a file, split at ``\\n`` only (as a diff counts them), numbered from 1."""

    def __init__(self, data: bytes) -> None:
        self.parts = data.split(b"\n")
        self.past = len(self.parts) + bool(self.parts[-1])
        """The line past the last."""

    def text(self, first: int, past: int) -> bytes:
        """Return lines ``first`` to ``past - 1`` with their newlines."""
        if first >= past:
            return b""
        return b"\n".join(self.parts[first - 1 : past - 1]) + (b"\n" if past - 1 < len(self.parts) else b"")

    def ends_line(self, line: int) -> bool:
        """Return whether line ``line`` ends with a newline."""
        return line < len(self.parts)


def _starts(body: list[ast.stmt], shift: int) -> Iterator[int]:
    """Yield the lines (plus ``shift``) where a statement of ``body`` starts after every earlier one ended."""
    last = 0
    for node in body:
        decorators = getattr(node, "decorator_list", ())
        first = min([node.lineno, *(decorator.lineno for decorator in decorators)])
        if first > last:
            yield first + shift
        last = max(last, node.end_lineno or node.lineno)


def _equal_runs(hunks: Sequence[Hunk], mine: int, theirs: int) -> Iterator[Piece]:
    """Yield the runs of lines the hunks leave alike; ``mine`` and ``theirs`` are the line counts plus one.

    Runs whose lengths disagree (hunks that do not fit the files) are left out: their lines are parsed.
    """
    old, new = 1, 1
    for old_start, old_count, new_start, new_count in [*hunks, (mine, 1, theirs, 1)]:
        old_end = old_start if old_count else old_start + 1
        new_end = new_start if new_count else new_start + 1
        if old_end - old > 0 and old_end - old == new_end - new:
            yield old, new, old_end - old
        old, new = old_end + old_count, new_end + new_count


def _copied_pieces(runs: Sequence[Piece], cuts: Sequence[int]) -> list[Piece]:
    """Return the widest run of lines between two ``cuts`` of the base inside each run, in order."""
    pieces = []
    for mine, theirs, length in runs:
        index, end = bisect_left(cuts, theirs), bisect_right(cuts, theirs + length) - 1
        if index < end and cuts[end] > cuts[index]:
            pieces.append((mine + cuts[index] - theirs, cuts[index], cuts[end] - cuts[index]))
    return pieces


def _alike(mine: _Lines, theirs: _Lines, piece: Piece) -> bool:
    """Return whether the piece's lines hold the same bytes in the source and in the base."""
    at, there, length = piece
    if at < 1 or length < 1 or at + length > mine.past or there + length > theirs.past:
        return False
    last = mine.ends_line(at + length - 1) == theirs.ends_line(there + length - 1)
    return last and mine.parts[at - 1 : at + length - 1] == theirs.parts[there - 1 : there + length - 1]


def _gaps(pieces: Sequence[Piece], mine: int, theirs: int, first: tuple[int, int] = (1, 1)) -> Iterator[Gap]:
    """Yield the source's lines between copied pieces, up to ``mine`` and ``theirs`` (past the last line)."""
    line, there = first
    for at, base_at, length in pieces:
        if at > line:  # lines the source has there (where it has none, the base's are simply dropped)
            yield line, at, there, base_at
        line, there = at + length, base_at + length
    if mine > line:
        yield line, mine, there, theirs


def _split(gaps: Iterator[Gap], pair: _Pair, cuts: Sequence[int]) -> Iterator[Gap]:
    """Yield the gaps cut further at each base cut that falls on a line left alike, one statement each.

    The lines there may not be a clean cut in the source (a string opened in a change above): then a
    piece does not parse alone, and the whole file is parsed.
    """
    for first, past, there, there_past in gaps:
        for mine, theirs, length in pair.runs_in(there, there_past):
            low = max(theirs, there + 1, theirs + first + 1 - mine)
            high = min(theirs + length, there_past, theirs + past - mine)
            for cut in cuts[bisect_left(cuts, low) : bisect_left(cuts, high)]:
                yield first, mine + cut - theirs, there, cut
                first, there = mine + cut - theirs, cut
        yield first, past, there, there_past


@dataclass(frozen=True)
class _Pair:
    """The source and the base, the base's outline, and the runs of lines the hunks leave alike."""

    mine: _Lines
    theirs: _Lines
    outline: Outline
    runs: list[Piece]

    @cached_property
    def _run_starts(self) -> list[int]:
        return [theirs for _, theirs, _ in self.runs]

    @cached_property
    def _run_ends(self) -> list[int]:
        return [theirs + length for _, theirs, length in self.runs]

    def runs_in(self, first: int, past: int) -> list[Piece]:
        """Return the runs holding a line of the base's lines ``first`` to ``past`` (both included)."""
        return self.runs[bisect_right(self._run_ends, first) : bisect_right(self._run_starts, past)]


def _copied(outline: Outline, cuts: Sequence[int], piece: Piece) -> Outline:
    """Return the part of the outline ``piece`` copies, with the ``cuts`` inside it, in the source's lines."""
    mine, theirs, length = piece
    shift = mine - theirs
    inside = cuts[bisect_left(cuts, theirs) : bisect_left(cuts, theirs + length)]
    bodies = tuple((line + shift, column, cut) for line, column, cut in outline.bodies_between(theirs, theirs + length))
    return Outline(_shifted(outline.between(theirs, theirs + length), shift), tuple(c + shift for c in inside), bodies)


CHUNK_BYTES = 64 << 10
"""Statements over twice this many bytes are parsed in chunks of at least this size (:func:`_chunks`)."""


def _chunks(text: bytes, column: int) -> list[tuple[int, int, int]] | None:
    """Return ``(first byte, past byte, lines before it)`` of the chunks ``text`` (statements at ``column``) is
    parsed in when it is over twice :data:`CHUNK_BYTES`; None when it is smaller or cannot be cut.

    ``ast`` holds about 350 bytes per byte of source while it parses: sympy's generated rule files, parsed
    in pieces of 0.7 to 1.3 MB (one function body of 4,700 assignments), raised the largest mining process's
    peak memory by 460 MiB (issue 23). Each chunk but the first starts at a line of code at ``column`` (not a
    comment, a closing bracket, a clause such as ``else:``, nor a decorated line: the first decorator's),
    at least :data:`CHUNK_BYTES` after the last cut; a statement over twice that is a chunk of its own
    (:func:`_one_statement` cuts its body). Each chunk must then parse alone, which it does only where the
    tokenizer is clean (a cut inside a string, brackets or a continued line leaves the chunk before it
    unparsable), so the chunks' outlines joined are the whole's.
    """
    if len(text) <= 2 * CHUNK_BYTES or not sliceable(text):
        return None  # a bare carriage return ends a line for Python: the cuts' line numbers would be off
    cuts = [0]
    lines = [0]
    previous = 0  # the last line that could be cut at

    def cut(at: int) -> None:
        lines.append(lines[-1] + text.count(b"\n", cuts[-1], at))
        cuts.append(at)

    for match in _statement_lines(column).finditer(text):
        at = match.start()
        if text.startswith(b"@", text.rfind(b"\n", 0, at - 1) + 1 + column):
            continue  # a decorated line: the cut goes before the decorators
        if at - previous > 2 * CHUNK_BYTES and previous > cuts[-1]:
            cut(previous)  # a large statement alone
        if at - cuts[-1] >= CHUNK_BYTES:
            cut(at)
        previous = at
    if len(text) - previous > 2 * CHUNK_BYTES and previous > cuts[-1]:
        cut(previous)
    if len(cuts) == 1:
        return None
    return list(zip(cuts, [*cuts[1:], len(text)], lines))


@lru_cache(maxsize=64)
def _statement_lines(column: int) -> re.Pattern[bytes]:
    """Return the pattern of a line that may start a statement at ``column``."""
    return re.compile(rb"^ {%d}(?=\S)(?![#)\]}]|(?:else|elif|except|finally)\b)" % column, re.MULTILINE)


def _parse_piece(text: bytes, shift: int) -> Outline | None:
    """Return the outline of module text whose first line is line ``shift + 1``; None if it does not parse."""
    chunks = _chunks(text, 0)
    if chunks is None:
        return _parse_chunk(text, shift)
    found: list[Outline] = []
    for start, past, before in chunks:
        part = _parse_chunk(text[start:past], shift + before)
        if part is None:  # a cut that is not clean, or a file that does not parse (Python 2): no more chunks
            return _parse_module_piece(text, shift)
        found.append(replace(part, boundaries=part.boundaries[1:]) if found else part)  # its first start once
    return _concatenated(found)


def _parse_chunk(text: bytes, shift: int) -> Outline | None:
    """Return :func:`_parse_piece` of text that is not cut further: one statement over twice
    :data:`CHUNK_BYTES` is read by :func:`_one_statement`, anything else parsed at once."""
    found = _one_statement(text, shift) if len(text) > 2 * CHUNK_BYTES else None
    return found if found is not None else _parse_module_piece(text, shift)


_OPEN_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)
"""Statements whose definitions inside are named as the module's (``outline.python._definitions``)."""


def _one_statement(text: bytes, shift: int) -> Outline | None:
    """Return the outline of module text that is one large statement with a one-line header (``def f(x):``,
    ``class C:``, ``if X:``), its body parsed in chunks inside ``class _:`` (:func:`_member_text`); None when
    it is not such a statement (a decorator, a header over several lines, an ``else:``) or does not parse so.

    Sympy's generated rule files hold a function of 4,700 assignments (762 KB) and an ``if matchpy:`` around a
    whole module (886 KB): no line at the module's column to cut them at. The header is parsed with a stub
    body for its kind and name; the outline is then what one parse gives: the definition (to the body's last
    line), the body's definitions named inside it, and its body's cuts.
    """
    end = text.find(b"\n") + 1
    opening = _Lines(text[end : end + 4096])  # the body's first line of code (a docstring is code) comes early
    column = _code_column(opening, 1, opening.past) if end else None
    if not column or not text[:end].rstrip().endswith(b":"):
        return None
    stub = parse_module(text[:end] + b" " * column + b"pass\n")
    node = stub.body[0] if stub is not None and len(stub.body) == 1 else None
    if isinstance(node, _DEFINITIONS) and not node.decorator_list:
        name, is_function = node.name, not isinstance(node, ast.ClassDef)
    elif isinstance(node, _OPEN_BLOCKS):  # an ``else:`` at the module's column would not parse in the body
        name, is_function = "", False
    else:
        return None
    found = _member_text(text[end:], shift + 2, column, f"{name}." if name else "", is_function)
    if found is None:
        return None
    body, last = found
    line = shift + 1
    if not name:
        return Outline(body.definitions, (line, line))
    definition = Definition(name, line, last, is_function, True, 0, False)
    cuts = ((line, column, tuple(start - line for start in body.boundaries)), *body.bodies)
    return Outline((definition, *body.definitions), (line, line), cuts if last - line >= CUT_LINES else ())


def _parse_module_piece(text: bytes, shift: int) -> Outline | None:
    """Return the outline of module text whose first line is line ``shift + 1``, parsed at once."""
    tree = parse_module(text)
    if tree is None:
        return None
    bodies: list[Body] = []
    _bodies(tree.body, shift, bodies)
    return Outline(_shifted(module_definitions(tree), shift), (shift + 1, *_starts(tree.body, shift)), tuple(bodies))


def _concatenated(parts: Sequence[Outline]) -> Outline:
    """Return the outline of consecutive parts, in order."""
    definitions = tuple(d for part in parts for d in part.definitions)
    boundaries = tuple(line for part in parts for line in part.boundaries)
    return Outline(definitions, boundaries, tuple(body for part in parts for body in part.bodies))


def _bodies(body: list[ast.stmt], shift: int, found: list[Body]) -> None:
    """Add the body of each class and function of ``body`` and of their bodies to ``found``, in order
    (those of :data:`CUT_LINES` lines or more whose body starts on a later line than their header)."""
    for node in body:
        if isinstance(node, _DEFINITIONS) and node.body[0].lineno > node.lineno:
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if (node.end_lineno or 0) - first < CUT_LINES:
                continue
            found.append((first + shift, node.body[0].col_offset, tuple(_starts(node.body, -first))))
            _bodies(node.body, shift, found)


def _definition_part(pair: _Pair, gap: Gap, cuts: Sequence[int]) -> tuple[Outline, int, int] | None:
    """Return the outline of a gap that is one class or function in the base (alone between two ``cuts``),
    cut inside its body, the line its last statement ends on and the line past the gap's lines it holds
    (lines added after its body, less indented, are left out); None if it is not, its header changed, or
    a piece of its body does not parse alone (inside ``class _:``, at the same column)."""
    first, past, there, there_past = gap
    found = pair.outline.bodies_between(there, there + 1)
    index = bisect_right(cuts, there)
    if not found or index >= len(cuts) or cuts[index] != there_past:
        return None
    _, column, offsets = found[0]
    body = tuple(there + offset for offset in offsets)
    head = pair.outline.between(there, there + 1)[0]  # the definition: its members start on later lines
    header = _header(pair, first, there, body[0], head, column)
    if header is None or header[1] >= past:
        return None
    start, opened = header
    level = (*body, there_past)
    pieces = [p for p in _copied_pieces(pair.runs_in(there, there_past), level) if _alike(pair.mine, pair.theirs, p)]
    pieces = [p for p in pieces if opened <= p[0] and p[0] + p[2] <= past]
    if pieces and pieces[-1][0] + pieces[-1][2] == past and pieces[-1][1] + pieces[-1][2] != there_past:
        pieces[-1:] = _without_last_statement(pieces[-1], body)  # where that statement ends is not known
    rest = past
    copied_past = pieces[-1][0] + pieces[-1][2] if pieces else 0
    if pieces and pieces[-1][1] + pieces[-1][2] == there_past and _dedents(pair.mine, copied_past, past, column):
        rest = past = copied_past  # the body ends with the base's: the lines after it are outside
    parts = [_copied(pair.outline, body, piece) for piece in pieces]
    end = head.end + past - there_past if pieces and pieces[-1][0] + pieces[-1][2] == past else 0
    prefix, in_function = head.qualname + ".", head.in_function or head.is_function
    for piece in _split(_gaps(pieces, past, there_past, (opened, body[0])), pair, level):
        if piece[1] < past and _code_column(pair.mine, piece[0], piece[1]) is None:
            continue  # blank lines and comments between statements: nothing to parse
        member = _definition_part(pair, piece, level)
        after = piece[0] if member is None else member[2]  # lines after the member's end are in this body
        part = member[:2] if member is not None else None
        if after < piece[1]:
            if part is not None:
                parts.append(part[0])
            part = _member_part(pair.mine, (after, *piece[1:]), column, prefix, in_function)
        if part is None:
            return None
        parts.append(part[0])
        end = max(end, part[1]) if piece[1] == past else end
    parts.sort(key=lambda part: part.boundaries[0] if part.boundaries else 0)
    members = tuple(d for part in parts for d in part.definitions)
    level_cuts = tuple(line - start for part in parts for line in part.boundaries)
    moved = Definition(head.qualname, start, end, head.is_function, head.top_level, head.column, head.in_function)
    own = ((start, column, level_cuts),) if end - start >= CUT_LINES else ()  # as a parse records it
    bodies = (*own, *(b for part in parts for b in part.bodies))
    return Outline((moved, *members), (start,), bodies), end, rest


def _header(pair: _Pair, first: int, there: int, opened: int, head: Definition, column: int) -> tuple[int, int] | None:
    """Return the lines the definition ``head`` starts on and its body starts on in the source (the gap's
    from ``first``, the base's from ``there``, its body from ``opened``): its header alike, or parsed with
    its body's first line alike; None when neither (or another definition or name, or more than it)."""
    if _alike(pair.mine, pair.theirs, (first, there, opened - there)):
        return first, first + opened - there
    runs = pair.runs_in(opened, opened)
    line = runs[0][0] + opened - runs[0][1] if runs else 0
    if line <= first or pair.mine.parts[line - 1] != pair.theirs.parts[opened - 1]:
        return None
    tree = parse_module(pair.mine.text(first, line) + b" " * column + b"pass\n")
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if not isinstance(node, _DEFINITIONS) or isinstance(node, ast.ClassDef) == head.is_function:
        return None
    if node.name != head.qualname.rsplit(".", 1)[-1] or node.col_offset != head.column:
        return None
    if len(node.body) != 1 or node.body[0].lineno != line - first + 1:
        return None
    return min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]) + first - 1, line


def _dedents(mine: _Lines, first: int, past: int, column: int) -> bool:
    """Return whether the first line of ``first`` to ``past - 1`` that holds code is less indented than
    ``column``: a body at that column ends before it (``first`` is a clean cut)."""
    found = _code_column(mine, first, past)
    return found is not None and found < column


def _code_column(mine: _Lines, first: int, past: int) -> int | None:
    """Return the indentation of the first line of ``first`` to ``past - 1`` that holds code (not blank,
    not a comment); None if there is none."""
    for line in mine.parts[first - 1 : past - 1]:
        code = line.lstrip(b" ")
        if code.strip() and not code.startswith(b"#"):
            return len(line) - len(code)
    return None


def _member_part(mine: _Lines, gap: Gap, column: int, prefix: str, in_function: bool) -> tuple[Outline, int] | None:
    """Return the outline of the body statements ``gap`` holds, parsed inside ``class _:`` (in chunks when
    large: :func:`_chunks`), and the line the last ends on; None if they do not parse so or do not stand at
    ``column``."""
    return _member_text(mine.text(gap[0], gap[1]), gap[0], column, prefix, in_function)


def _member_text(text: bytes, first: int, column: int, prefix: str, in_function: bool) -> tuple[Outline, int] | None:
    """Return :func:`_member_part` of body statements ``text`` starting on line ``first``."""
    chunks = _chunks(text, column)
    if chunks is None:
        return _member_chunk(text, first, column, prefix, in_function)
    found: list[tuple[Outline, int]] = []
    for start, past, before in chunks:
        part = _member_chunk(text[start:past], first + before, column, prefix, in_function)
        if part is None:  # a cut that is not clean, or statements that do not parse: no more chunks
            return _member_chunk(text, first, column, prefix, in_function)
        found.append(part)
    return _concatenated([outline for outline, _ in found]), found[-1][1]


def _member_chunk(text: bytes, first: int, column: int, prefix: str, in_function: bool) -> tuple[Outline, int] | None:
    """Return :func:`_member_part` of body statements ``text`` starting on line ``first``, parsed at once."""
    body = _wrapped_body(parse_module(b"class _:\n" + text), column)
    if body is None:
        return None
    shift = first - 2
    bodies: list[Body] = []
    _bodies(body, shift, bodies)
    definitions = _shifted(member_definitions(body, prefix, in_function), shift)
    last = (body[-1].end_lineno or body[-1].lineno) + shift
    return Outline(definitions, tuple(_starts(body, shift)), tuple(bodies)), last


def _without_last_statement(piece: Piece, cuts: Sequence[int]) -> list[Piece]:
    """Return the piece up to the last cut inside it (none if there is none): its last statement is parsed."""
    mine, theirs, length = piece
    inside = cuts[bisect_right(cuts, theirs) : bisect_left(cuts, theirs + length)]
    return [(mine, theirs, inside[-1] - theirs)] if inside else []


def _wrapped_body(tree: ast.Module | None, column: int) -> list[ast.stmt] | None:
    """Return the body of the one ``class _:`` of ``tree`` if its statements stand at ``column``, else None."""
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
        return None
    body = tree.body[0].body
    return body if body[0].col_offset == column else None


def _shifted(definitions: Sequence[Definition], shift: int) -> tuple[Definition, ...]:
    if not shift:
        return tuple(definitions)
    return tuple(
        Definition(d.qualname, d.start + shift, d.end + shift, d.is_function, d.top_level, d.column, d.in_function)
        for d in definitions
    )


def _joined(parts: list[Outline], lines_past: int) -> Outline:
    """Return the outline of the whole source from its parts, each in the source's lines."""
    parts.sort(key=lambda part: part.boundaries[0])
    definitions = tuple(d for part in parts for d in part.definitions)
    boundaries = tuple(line for part in parts for line in part.boundaries)
    bodies = tuple(body for part in parts for body in part.bodies)
    return Outline(definitions, (*boundaries, lines_past), bodies)
