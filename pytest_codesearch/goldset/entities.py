"""Which functions, methods and top-level definitions of a Python file contain given lines.

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

import ast
import warnings
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..gcpause import paused_gc
from .patch import Insertion

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BLOCKS: tuple[type[ast.stmt], ...] = tuple(
    getattr(ast, name)
    for name in ("If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match")
    if hasattr(ast, name)
)
"""Statements whose blocks hold statements of the same level (a definition's body is a level deeper)."""


@dataclass(frozen=True)
class Entities:
    """The entities of one file that contain changed lines, in source order, without repeats."""

    functions: tuple[str, ...]
    """``path.py:Class.method`` for every function or method containing a line."""
    modules: tuple[str, ...]
    """``path.py:Name`` for every top-level class or function containing a line."""


@dataclass(frozen=True, slots=True)
class Definition:
    """A function or class: its dotted name within the file and its lines, decorators included."""

    qualname: str
    start: int
    end: int
    is_function: bool
    """False for a class."""
    top_level: bool
    column: int = 0
    """Columns of indentation of its ``def`` or ``class`` line."""
    in_function: bool = False
    """True when it is defined inside a function (so it is no function-level entity of its own)."""


def changed_entities(
    path: str, source: str | bytes, lines: Iterable[int], insertions: Iterable[Insertion] = ()
) -> Entities:
    """Return the functions and top-level definitions of ``source`` (the file at ``path``) containing ``lines``
    or the ``insertions`` (see the module docstring).

    ``lines`` are 1-based line numbers of ``source``. A file that does not parse as Python (a syntax error,
    another language, bytes that are not text) gives no entities rather than an error.
    """
    wanted = sorted(set(lines))
    inserted = list(insertions)
    if not wanted and not inserted:
        return Entities((), ())
    blank = _blank_lines(source) if inserted else frozenset()
    held = (d for d in definition_spans(source) if _contains_any(d, wanted) or _holds_any(d, inserted, blank))
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
    return Entities(tuple(functions), tuple(modules))


@lru_cache(maxsize=512)
def definition_spans(source: str | bytes) -> tuple[Definition, ...]:
    """Return every function and class of ``source`` with its lines, in source order; () if it does not parse.

    Cached by content: the instances of one benchmark read the same unchanged files at many commits,
    and parsing is nearly all the cost of deriving their ground truth.
    """
    with paused_gc():
        tree = parse_module(source)
        return () if tree is None else module_definitions(tree)


def module_definitions(tree: ast.Module) -> tuple[Definition, ...]:
    """Return every function and class of a parsed module with its lines, in source order."""
    return tuple(_definitions(tree.body, "", False))


def member_definitions(body: list[ast.stmt], prefix: str) -> tuple[Definition, ...]:
    """Return the functions and classes in a class body as ``module_definitions`` names them (``prefix``:
    the class's qualified name and a dot), for a top-level class."""
    return tuple(_definitions(body, prefix, False))


def parse_module(source: str | bytes) -> ast.Module | None:
    """Return the syntax tree of ``source``, or None when it does not parse as Python."""
    try:
        with warnings.catch_warnings():  # invalid escape sequences in old code are not our concern
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # null bytes; nesting too deep to parse
        return None


def _definitions(body: list[ast.stmt], prefix: str, in_function: bool) -> Iterator[Definition]:
    """Yield every function and class under ``body`` in source order, nested ones after their parent."""
    for node in _nested_statements(body):
        if not isinstance(node, _Definition):
            continue
        qualname = f"{prefix}{node.name}"
        start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        end = node.end_lineno if node.end_lineno is not None else node.lineno
        is_function = not isinstance(node, ast.ClassDef)
        yield Definition(qualname, start, end, is_function, prefix == "", node.col_offset, in_function)
        yield from _definitions(node.body, f"{qualname}.", in_function or is_function)


def _nested_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield the statements of ``body`` and those inside its if/try/with/for/while blocks (not definitions')."""
    for node in body:
        yield node
        if not isinstance(node, _BLOCKS):
            continue  # definitions and simple statements hold no statement of this level
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    yield from _nested_statements(child.body)
                elif isinstance(child, ast.stmt):
                    yield from _nested_statements([child])


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
