"""Which functions, methods and top-level definitions of a source file contain given lines.

The definitions come from ``pytest_codesearch.outline`` (Python's ``ast``, tree-sitter for C, C++,
JavaScript, TypeScript, Java, C#, Go, Rust, Ruby and PHP), each language named by its own nesting; the
rules below are Python's, and every language follows them with its own definitions.

Names follow the form LocAgent, SweRank and Agentless use: ``path.py:Class.method`` for a function or
method (enclosing classes and functions joined with dots), ``path.py:Name`` for a top-level class or
function (the "module" level of their tables). A definition spans from its first decorator to its last
line. Functions nested in a function are not entities of their own, as in LocAgent's gold sets: their
lines count for the enclosing function or method. A line in a class body outside any method belongs to
the class's top-level entry only; a line outside every definition belongs to no entity (the file alone).

Lines a patch only inserts change no base line: they count for the definitions around the point where
they go (the line before and the line after it are both in the definition), or for the definition they
extend when they follow its last line, indented deeper than its ``def``, with only blank lines between.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..outline import outline
from ..outline.model import Definition
from ..outline.python import definition_spans, member_definitions, module_definitions, parse_module
from .patch import Insertion

__all__ = [
    "Definition",
    "Entities",
    "changed_entities",
    "definition_spans",
    "entities_in_spans",
    "member_definitions",
    "module_definitions",
    "parse_module",
]
"""Where definitions come from is ``pytest_codesearch/outline/``; its Python names stay importable here."""


@dataclass(frozen=True)
class Entities:
    """The entities of one file that contain changed lines, in source order, without repeats."""

    functions: tuple[str, ...]
    """``path.py:Class.method`` for every function or method containing a line."""
    modules: tuple[str, ...]
    """``path.py:Name`` for every top-level class or function containing a line."""


def changed_entities(
    path: str, source: str | bytes, lines: Iterable[int], insertions: Iterable[Insertion] = ()
) -> Entities:
    """Return the functions and top-level definitions of ``source`` (the file at ``path``) containing ``lines``
    or the ``insertions`` (see the module docstring).

    ``lines`` are 1-based line numbers of ``source``. A file of no supported language gives no entities;
    one that does not parse gives those of the definitions tree-sitter recovers, never an error.
    """
    wanted = sorted(set(lines))
    inserted = list(insertions)
    if not wanted and not inserted:
        return Entities((), ())
    blank = _blank_lines(source) if inserted else frozenset()
    definitions = outline(path, source).definitions
    held = (d for d in definitions if _contains_any(d, wanted) or _holds_any(d, inserted, blank))
    return _named(path, held)


def _holds_any(span: Definition, inserted: list[Insertion], blank: frozenset[int]) -> bool:
    return any(_holds(span, insertion, blank) for insertion in inserted)


def entities_in_spans(path: str, definitions: Iterable[Definition], spans: Sequence[tuple[int, int]]) -> Entities:
    """Return the entities among ``definitions`` (of the file at ``path``) holding a line of ``spans``.

    ``spans`` are sorted, disjoint ``(first, last)`` line ranges: the same answer as ``changed_entities``
    given each of their lines, without listing the lines (a deleted file spans all of them).
    """
    ends = [end for _, end in spans]
    return _named(path, (d for d in definitions if _overlaps(d, spans, ends)))


def _overlaps(span: Definition, spans: Sequence[tuple[int, int]], ends: list[int]) -> bool:
    index = bisect_left(ends, span.start)  # the first range ending at or after the definition's start
    return index < len(spans) and spans[index][0] <= span.end


def _named(path: str, held: Iterable[Definition]) -> Entities:
    """Return the function and module names of the definitions ``held``, in their order."""
    functions: list[str] = []
    modules: list[str] = []
    for span in held:
        if span.is_function and not span.in_function:
            functions.append(f"{path}:{span.qualname}")
        if span.top_level:
            modules.append(f"{path}:{span.qualname}")
    return Entities(tuple(dict.fromkeys(functions)), tuple(dict.fromkeys(modules)))  # Rust: impl blocks repeat


def _contains_any(span: Definition, wanted: list[int]) -> bool:
    """Return True when some line of the sorted ``wanted`` lies in ``span``."""
    index = bisect_left(wanted, span.start)
    return index < len(wanted) and wanted[index] <= span.end


def _holds(span: Definition, insertion: Insertion, blank: frozenset[int]) -> bool:
    """Return True when lines inserted before old line ``insertion.before`` go inside ``span`` or extend it."""
    after = insertion.before - 1  # the old line the new ones follow
    if span.start <= after and insertion.before <= span.end:
        return True
    follows = span.end <= after and all(line in blank for line in range(span.end + 1, after + 1))
    return follows and insertion.indent is not None and insertion.indent > span.column


def _blank_lines(source: str | bytes) -> frozenset[int]:
    """Return the numbers of the lines of ``source`` that hold only whitespace."""
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
    return frozenset(number for number, line in enumerate(text.split("\n"), start=1) if not line.strip())
