"""The old-side lines, functions and modules a kept commit changes, by the rules of SWE-bench instances.

Each ground-truth file is diffed as ``git diff`` would (libgit2's xdiff, Myers with git's default indent
heuristic): the lines a change removes or modifies count, and a pure insertion marks the old lines on
either side of it, as ``goldset/patch.py`` reads a unified diff. The definitions of each file at the
parent give the functions and top-level definitions holding those lines (``goldset/entities.py``): for
Python, mostly derived from the version seen before (``outline.py``); for every other language
``pytest_codesearch.outline`` reads, from tree-sitter. Only
kept commits pay for this; the blobs come through the miner's ``BlobReader``, which usually holds them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import pygit2

from pytest_codesearch.filekinds import looks_binary
from pytest_codesearch.goldset.entities import Definition, entities_in_spans
from pytest_codesearch.goldset.patch import Span, spans
from pytest_codesearch.goldset.truth import PYTHON_SUFFIXES
from pytest_codesearch.outline import outline, source_language
from pytest_codesearch.mining.affixes import common_prefix, common_suffix
from pytest_codesearch.mining.files import ScoredFile
from pytest_codesearch.mining.outline import Hunk
from pytest_codesearch.mining.outlines import Outlines
from pytest_codesearch.mining.sitter import TreeOutlines

_FLAGS = pygit2.enums.DiffOption.INDENT_HEURISTIC
"""git's default since 2.14 (``diff.indentHeuristic``): where an ambiguous hunk goes."""
_NEWLINE = ord("\n")
_LONGEST_MIDDLE = 16 << 10
"""Changed bytes (both sides) past which the one-region check is left to libgit2."""


@dataclass(frozen=True)
class ChangedCode:
    """What a commit changed in its ground-truth files, at line, function and module level."""

    lines: dict[str, tuple[Span, ...]]
    """Old-side spans of each file that has any (a file only renamed or re-moded has none)."""
    functions: tuple[str, ...]
    """``path:Class.method`` of every function or method holding a changed old-side line."""
    modules: tuple[str, ...]
    """``path:Name`` of every top-level class or function holding one."""
    outline_s: dict[str, float] = field(default_factory=dict)
    """Seconds spent outlining files, by language (``python``, ``c``, ...)."""
    outlined: dict[str, int] = field(default_factory=dict)
    """Files outlined, by language."""
    unoutlined: tuple[str, ...] = ()
    """The extension (``.md``; ``""`` for none) of each changed file no outline reads."""


def changed_code(
    files: Sequence[ScoredFile],
    read: Callable[[bytes], bytes],
    diff: Callable[[bytes, bytes | None], list[Hunk]],
    outlines: Outlines,
    trees: TreeOutlines | None = None,
) -> ChangedCode:
    """Return the lines, functions and modules that ``files`` change; ``read`` returns a blob's content.

    ``diff`` returns the hunks between two blobs given by id (``BlobDiffer``). ``outlines``, kept from one
    call to the next, derives the definitions of each Python file from those of the version seen before
    (``outline.py``) instead of parsing it whole: the same answer, cheaper. ``trees`` does the same for
    the other languages (``sitter.py``: tree-sitter reparses only what changed); without it they are
    outlined whole (``pytest_codesearch.outline``). Files of no supported language get lines only.
    """
    lines: dict[str, tuple[Span, ...]] = {}
    functions: list[str] = []
    modules: list[str] = []
    seconds: dict[str, float] = {}
    outlined: dict[str, int] = {}
    unoutlined: list[str] = []
    for file in files:
        if file.old_id == file.new_id:
            continue  # a mode change, or a rename without edits: no line changed
        old = read(file.old_id)
        hunks = diff(file.old_id, file.new_id)
        found = old_side(old, hunks)
        if not found:
            continue
        lines[file.path] = found
        language = source_language(file.path, old)
        if language is None:
            unoutlined.append(PurePosixPath(file.path).suffix.lower())
            continue
        started = time.perf_counter()
        if language == "python" and file.path.endswith(PYTHON_SUFFIXES):
            definitions = _python_definitions(file, old, hunks, found, outlines, trees)
        elif trees is None or language == "python":  # ``.PY``, say: ``outline`` reads it as Python
            definitions = outline(file.path, old).definitions
        else:
            definitions = trees.definitions(file.path, language, (file.old_id, file.new_id), hunks, found)
        seconds[language] = seconds.get(language, 0.0) + time.perf_counter() - started
        outlined[language] = outlined.get(language, 0) + 1
        entities = entities_in_spans(file.path, definitions, found)
        functions.extend(entities.functions)
        modules.extend(entities.modules)
    return ChangedCode(lines, tuple(functions), tuple(modules), seconds, outlined, tuple(unoutlined))


def _python_definitions(
    file: ScoredFile,
    old: bytes,
    hunks: list[Hunk],
    changed: Sequence[Span],
    outlines: Outlines,
    trees: TreeOutlines | None,
) -> tuple[Definition, ...]:
    """Return the definitions of a Python file's parent version: derived from ``ast`` outlines when it parses;
    else (Python 2 code, say) what tree-sitter's grammar finds, as ``outline`` answers: reparsed from the tree
    of the version met before when ``trees`` is given, without asking ``ast`` again.

    On all of sympy's history (6,833 versions do not parse with ``ast``), one process went from 201.5 CPU-s,
    when each of them was parsed by ``ast`` again and then whole by tree-sitter, to 162.8 (``docs/mining.md``).
    """
    derived = outlines.outline(file.path, file.old_id, file.new_id, hunks)
    if derived is not None:
        return derived.definitions
    if trees is None:
        return outline(file.path, old).definitions
    return trees.definitions(file.path, "python", (file.old_id, file.new_id), hunks, changed)


class BlobDiffer:
    """Diffs two blobs of one repository given by id, as ``diff_hunks`` diffs their contents.

    When libgit2 must diff, it is handed the blobs as stored objects: given bytes, it would first hash
    both with collision-detecting SHA-1 to name them, 11% of a mining run with lines on git's history
    (issue 12); looking the blobs up again costs less than that.
    """

    def __init__(self, repo: pygit2.Repository, read: Callable[[bytes], bytes]) -> None:
        self._repo = repo
        self._read = read

    def __call__(self, old_id: bytes, new_id: bytes | None) -> list[Hunk]:
        """Return the hunks of ``git diff`` from blob ``old_id`` to blob ``new_id`` (None: the file is gone)."""
        old = self._read(old_id)
        new = b"" if new_id is None else self._read(new_id)
        found = _one_region(old, new)
        if found is None:
            found = _libgit2_hunks(self._stored(old_id), b"" if new_id is None else self._stored(new_id))
        return found

    def _stored(self, oid: bytes) -> pygit2.Blob:
        found = self._repo[pygit2.Oid(raw=oid)]
        if not isinstance(found, pygit2.Blob):
            raise KeyError(f"object {oid.hex()} is not a blob")
        return found


def old_side_spans(old: bytes, new: bytes) -> tuple[Span, ...]:
    """Return the merged old-side spans a diff from ``old`` to ``new`` touches; () for binary content.

    Removed and modified lines count; an insertion after old line k marks lines k and k + 1 (those that
    exist), the lines a three-line-context hunk shows around it.
    """
    return old_side(old, diff_hunks(old, new))


def diff_hunks(old: bytes, new: bytes) -> list[Hunk]:
    """Return the hunks of ``git diff`` from ``old`` to ``new`` without context; [] for binary content."""
    found = _one_region(old, new)
    return _libgit2_hunks(old, new) if found is None else found


def _libgit2_hunks(old: bytes | pygit2.Blob, new: bytes | pygit2.Blob) -> list[Hunk]:
    """Return the hunks libgit2's xdiff finds from ``old`` to ``new`` (contents or stored blobs)."""
    patch = pygit2.Patch.create_from(old, new, flag=_FLAGS, context_lines=0)
    return [(hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines) for hunk in patch.hunks]


def old_side(old: bytes, hunks: Sequence[Hunk]) -> tuple[Span, ...]:
    """Return the merged old-side spans of ``hunks`` (see ``old_side_spans``); ``old`` is the old content."""
    touched: list[int] = []
    last = 0  # the number of old lines, counted once a pure insertion needs it
    for start, count, _, _ in hunks:
        if count:
            touched.extend(range(start, start + count))
            continue
        last = last or old.count(b"\n") + (not old.endswith(b"\n") and bool(old))
        touched.extend(line for line in (start, start + 1) if 1 <= line <= last)
    return tuple(spans(touched))


def _one_region(old: bytes, new: bytes) -> list[Hunk] | None:
    """Return the one hunk of a change git's diff cannot place otherwise, or None.

    Past the lines both versions share at their start and end, xdiff can only mark every remaining line
    changed when the two middles have no line in common, and can only move that hunk (its slider
    heuristics) when a line next to it equals the hunk's line at the other end. When neither is so,
    the hunk is settled without diffing whole files (issue 12: the diff cost more than reading the blobs).
    Binary content, long middles and every other case return None: libgit2 diffs those.
    """
    if old == new:
        return []
    if looks_binary(old) or looks_binary(new):
        return None
    start = old.rfind(b"\n", 0, common_prefix(old, new)) + 1  # the first line that differs, in both
    shared = common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - shared, len(new) - shared
    while not (_line_start(old, old_end) and _line_start(new, new_end)):
        newline = old.find(b"\n", old_end)  # the shared end starts mid-line in one version: take whole lines
        step = (len(old) if newline < 0 else newline + 1) - old_end
        old_end, new_end = old_end + step, new_end + step
    if old_end + new_end - 2 * start > _LONGEST_MIDDLE:
        return None
    old_lines, new_lines = _lines(old[start:old_end]), _lines(new[start:new_end])
    if not set(old_lines).isdisjoint(new_lines):
        return None
    if _slides(old, old_lines, start, old_end) or _slides(new, new_lines, start, new_end):
        return None
    first = old.count(b"\n", 0, start) + 1  # the same line number in both: the lines before are alike
    return [(first - (not old_lines), len(old_lines), first - (not new_lines), len(new_lines))]


def _line_start(data: bytes, at: int) -> bool:
    return at == 0 or at == len(data) or data[at - 1] == _NEWLINE


def _lines(data: bytes) -> list[bytes]:
    """Return the lines of ``data`` with their newlines (a last line may lack one), split at ``\\n`` only."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def _slides(data: bytes, lines: list[bytes], start: int, end: int) -> bool:
    """Return whether the run of changed ``lines`` at ``data[start:end]`` could move up or down a line."""
    if not lines:
        return False
    before = data[data.rfind(b"\n", 0, start - 1) + 1 : start] if start else None
    newline = data.find(b"\n", end)
    after = data[end : len(data) if newline < 0 else newline + 1] if end < len(data) else None
    return before == lines[-1] or after == lines[0]
