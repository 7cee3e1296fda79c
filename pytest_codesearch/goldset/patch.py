"""Parse a unified diff (git style, as in SWE-bench ``patch`` fields) into per-file changes.

For each file the result says whether the patch modifies, adds, deletes or renames it, and which lines of
the old side the hunks touch: removed and modified lines, and for a pure insertion the old lines around it
that the hunk shows (the line before and the line after). Those are the lines a localizer should point at in
the base tree. Added files do not exist at the base: they are recorded, never scored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["modified", "added", "deleted", "renamed"]
Span = tuple[int, int]
"""``(start, end)``: 1-based old-side line numbers, both ends inclusive."""

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_OCTAL = "01234567"
_OCTAL_RUN = re.compile("[0-7]{1,3}")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class PatchError(ValueError):
    """A patch that cannot be read; the message starts with ``line <n>:`` (1-based, in the patch text)."""


@dataclass(frozen=True)
class Insertion:
    """Lines a hunk adds without removing any: they go before old line ``before``."""

    before: int
    indent: int | None
    """Columns of indentation of the first non-blank added line (None if all are blank)."""


@dataclass(frozen=True)
class Hunk:
    """One hunk's old side, numbered as its header says."""

    touched: tuple[int, ...]
    """Old lines it touches: removed ones, and the lines around a pure insertion."""
    removed: tuple[int, ...]
    insertions: tuple[Insertion, ...]
    shown: tuple[tuple[int, str], ...]
    """The old lines it shows (context and removed), by number."""


@dataclass(frozen=True)
class FileChange:
    """What a patch does to one file."""

    old_path: str | None
    """The path at the base (None for an added file)."""
    new_path: str | None
    """The path after the patch (None for a deleted file)."""
    status: Status
    binary: bool
    """True for a binary change: no line information."""
    old_lines: tuple[Span, ...]
    """Merged old-side spans the hunks touch, in order."""
    old_text: tuple[tuple[int, str], ...] = field(default=(), compare=False, repr=False)
    """The base lines the hunks show (context and removed), by line number: to check the patch fits a base."""
    hunks: tuple[Hunk, ...] = field(default=(), compare=False, repr=False)
    """The hunks one by one, numbered as their headers say (a base may hold them a few lines off)."""

    @property
    def path(self) -> str:
        """Return the path at the base, or the new path of an added file."""
        return self.old_path or self.new_path or ""


@dataclass(frozen=True)
class ParsedPatch:
    """The files of a patch, in patch order."""

    changes: tuple[FileChange, ...]

    @property
    def scored_files(self) -> list[str]:
        """Return the base paths of files the patch modifies, renames or deletes: they exist at the base."""
        return [change.path for change in self.changes if change.old_path is not None]

    @property
    def added_files(self) -> list[str]:
        """Return the paths of files the patch adds (absent at the base, so never scored)."""
        return [change.path for change in self.changes if change.old_path is None]

    def old_lines(self) -> dict[str, tuple[Span, ...]]:
        """Return the old-side spans of each scored file that has any."""
        return {c.path: c.old_lines for c in self.changes if c.old_path is not None and c.old_lines}


@dataclass
class _File:
    """A file section being read."""

    old_path: str | None = None
    new_path: str | None = None
    header_old: str | None = None
    header_new: str | None = None
    added: bool = False
    deleted: bool = False
    renamed: bool = False
    binary: bool = False
    named: bool = False
    """True once its '---'/'+++' pair was read: a second pair starts another file (plain diffs)."""
    hunks: list[Hunk] = field(default_factory=list)

    def finish(self) -> FileChange:
        old = None if self.added else (self.old_path or self.header_old or self.new_path)
        new = None if self.deleted else (self.new_path or self.header_new or self.old_path)
        if old is None and new is None:
            raise ValueError("no file name")
        status: Status = "added" if old is None else "deleted" if new is None else "modified"
        if status == "modified" and (self.renamed or old != new):
            status = "renamed"
        if old is None:
            return FileChange(old, new, status, self.binary, ())
        lines = spans(line for hunk in self.hunks for line in hunk.touched)
        shown = sorted(dict(item for hunk in self.hunks for item in hunk.shown).items())
        return FileChange(old, new, status, self.binary, tuple(lines), tuple(shown), tuple(self.hunks))


def spans(lines: Iterable[int]) -> list[Span]:
    """Return line numbers as sorted, merged ``(start, end)`` spans; adjacent lines join one span."""
    result: list[Span] = []
    for line in sorted(set(lines)):
        if result and line == result[-1][1] + 1:
            result[-1] = (result[-1][0], line)
        else:
            result.append((line, line))
    return result


def parse_patch(text: str) -> ParsedPatch:
    """Return the per-file changes of a unified diff; raise ``PatchError`` naming the line when it is malformed."""
    # Not str.splitlines: it also splits at form feeds and other separators that source lines may hold.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return _Parser(lines).parse()


class _Parser:
    """Reads a patch line by line: file headers, then hunks counted by their header's lengths."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.index = 0
        self.files: list[FileChange] = []
        self.current: _File | None = None

    def parse(self) -> ParsedPatch:
        while self.index < len(self.lines):
            line = self.lines[self.index]
            self.index += 1
            self._line(line)
        self._close()
        return ParsedPatch(tuple(self.files))

    def _fail(self, message: str, line: int | None = None) -> PatchError:
        return PatchError(f"line {self.index if line is None else line}: {message}")

    def _close(self) -> None:
        if self.current is not None:
            try:
                self.files.append(self.current.finish())
            except ValueError:
                raise self._fail("a file section names no file") from None
        self.current = None

    def _line(self, line: str) -> None:
        if line.startswith("diff --git "):
            self._close()
            self.current = _File()
            self.current.header_old, self.current.header_new = _git_header_paths(line[len("diff --git ") :])
        elif line.startswith("--- ") and self._next_starts("+++ "):
            if self.current is None or self.current.named:
                self._close()  # a plain unified diff: files start at '---'
                self.current = _File()
            _names(self.current, line[4:], self.lines[self.index][4:])
            self.index += 1
        elif line.startswith("@@"):
            self._hunk(line)
        elif self.current is not None:
            self._extended_header(line)

    def _next_starts(self, prefix: str) -> bool:
        return self.index < len(self.lines) and self.lines[self.index].startswith(prefix)

    def _extended_header(self, line: str) -> None:
        current = self.current
        if current is None:
            return  # text before the first file, such as a commit message
        if line.startswith("new file mode"):
            current.added = True
        elif line.startswith("deleted file mode"):
            current.deleted = True
        elif line.startswith(("rename from ", "copy from ")):
            current.old_path, current.renamed = _unquote(line.split(" ", 2)[2]), True
        elif line.startswith(("rename to ", "copy to ")):
            current.new_path, current.renamed = _unquote(line.split(" ", 2)[2]), True
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            current.binary = True

    def _hunk(self, header: str) -> None:
        match = _HUNK.match(header)
        if match is None:
            raise self._fail(f"malformed hunk header {header[:60]!r} (expected '@@ -a,b +c,d @@')")
        if self.current is None:
            raise self._fail("a hunk before any file header ('diff --git' or '---'/'+++')")
        old_start, old_count = int(match[1]), int(match[2] if match[2] is not None else 1)
        new_count = int(match[4] if match[4] is not None else 1)
        # An empty old side names the line *after which* the new lines go.
        position = old_start + 1 if old_count == 0 else old_start
        self.current.hunks.append(self._hunk_body(position, old_count, new_count))

    def _hunk_body(self, position: int, old_left: int, new_left: int) -> Hunk:
        """Read a hunk's lines and return what it does to the old side. Errors name the hunk's header line."""
        header_line = self.index
        hunk = _HunkLines(end=position + old_left)
        while old_left > 0 or new_left > 0:
            if self.index >= len(self.lines):
                raise self._fail(f"the hunk ends early: {old_left} old and {new_left} new lines missing", header_line)
            line = self.lines[self.index]
            self.index += 1
            kind = line[:1]
            if kind == "\\":
                continue  # "\ No newline at end of file"
            if kind in ("-", " ", ""):
                hunk.shown[position] = line[1:]
            if kind == "-":
                hunk.remove(position)
                position, old_left = position + 1, old_left - 1
            elif kind == "+":
                hunk.add(line[1:])
                new_left -= 1
            elif kind in (" ", ""):  # some tools strip the space of an empty context line
                hunk.context(position)
                position, old_left, new_left = position + 1, old_left - 1, new_left - 1
            else:
                raise self._fail(f"unexpected line in a hunk: {line[:60]!r}")
            if old_left < 0 or new_left < 0:
                raise self._fail("the hunk is longer than its header says", header_line)
        hunk.context(position)
        while self._next_starts("\\"):
            self.index += 1
        return hunk.done()


@dataclass
class _HunkLines:
    """What a hunk being read does to the old side; a run of added lines ends at a context line or the end."""

    end: int
    """The first old line past the hunk."""
    touched: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    insertions: list[Insertion] = field(default_factory=list)
    shown: dict[int, str] = field(default_factory=dict)
    added: bool = False
    removed_here: bool = False
    indent: int | None = None

    def remove(self, position: int) -> None:
        self.touched.append(position)
        self.removed.append(position)
        self.removed_here = True

    def add(self, text: str) -> None:
        self.added = True
        if self.indent is None and text.strip():
            self.indent = len(text) - len(text.lstrip())

    def context(self, position: int) -> None:
        """End the run of changes before old line ``position``: a pure insertion marks the lines around it."""
        if self.added and not self.removed_here:
            self.touched.extend(_around(position, self.end))
            self.insertions.append(Insertion(position, self.indent))
        self.added = self.removed_here = False
        self.indent = None

    def done(self) -> Hunk:
        return Hunk(tuple(self.touched), tuple(self.removed), tuple(self.insertions), tuple(self.shown.items()))


def _around(position: int, end: int) -> list[int]:
    """Return the old lines around an insertion before old line ``position``: the one before, if any,
    and the one after when the hunk shows it (``end`` is the first old line past the hunk)."""
    return [line for line in (position - 1, position) if line >= 1 and (line < position or line < end)]


def _names(current: _File, old: str, new: str) -> None:
    """Record the names of a ``---``/``+++`` pair (``/dev/null`` marks an added or deleted file)."""
    old_path, new_path = _header_path(old), _header_path(new)
    current.added = current.added or old_path is None
    current.deleted = current.deleted or new_path is None
    current.old_path = old_path or current.old_path
    current.new_path = new_path or current.new_path
    current.named = True


def _header_path(text: str) -> str | None:
    """Return the path of a ``---``/``+++`` name (``a/`` or ``b/`` dropped), or None for ``/dev/null``."""
    name = _unquote(text.split("\t", 1)[0].rstrip("\r"))
    if name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """Return both paths of ``diff --git a/<old> b/<new>``; (None, None) when they cannot be told apart."""
    if rest.startswith('"'):
        old, _, tail = _split_quoted(rest)
        new = _unquote(tail.strip())
        return _strip_prefix(old), _strip_prefix(new)
    half = (len(rest) - 1) // 2  # same name on both sides, the common case: "a/x b/x"
    if rest[half] == " " and rest[: half][2:] == rest[half + 1 :][2:]:
        return rest[2:half], rest[half + 3 :]
    if " b/" in rest:
        old, new = rest.split(" b/", 1)
        return _strip_prefix(old), new
    return None, None


def _strip_prefix(name: str) -> str:
    return name[2:] if name.startswith(("a/", "b/")) else name


def _split_quoted(text: str) -> tuple[str, str, str]:
    """Split a leading C-quoted string off ``text``: (its value, the quote, the rest)."""
    index = 1
    while index < len(text) and text[index] != '"':
        index += 2 if text[index] == "\\" else 1
    return _unquote(text[: index + 1]), '"', text[index + 1 :]


def _unquote(name: str) -> str:
    """Return a name git wrote C-quoted (``"a/caf\\303\\251.py"``) as text; other names as they are."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body, out, index = name[1:-1], bytearray(), 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 >= len(body):
            out += char.encode("utf-8")
            index += 1
        elif body[index + 1] in _OCTAL:
            digits = _OCTAL_RUN.match(body, index + 1)[0]  # type: ignore[index]  # one digit at least
            out.append(int(digits, 8) & 0xFF)
            index += 1 + len(digits)
        else:
            out.append(_ESCAPES.get(body[index + 1], ord(body[index + 1])))
            index += 2
    return out.decode("utf-8", errors="surrogateescape")
