"""Python's outline from its own parser, ``ast``: exact, and faster than any other for Python.

Names are ``Class.method`` (enclosing classes and functions joined with dots); a definition spans from
its first decorator to its last line. Definitions under ``if``/``try``/``with``/``for``/``while``/``match``
blocks belong to the level of the block. A file ``ast`` cannot parse gets no definitions here
(``outline()`` then asks tree-sitter's Python grammar for what it recovers).
"""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache

from ..gcpause import paused_gc
from .model import Definition


_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BLOCKS: tuple[type[ast.stmt], ...] = tuple(
    getattr(ast, name)
    for name in ("If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match")
    if hasattr(ast, name)
)
"""Statements whose blocks hold statements of the same level (a definition's body is a level deeper)."""


def definition_spans(source: str | bytes) -> tuple[Definition, ...]:
    """Return every function and class of ``source`` with its lines, in source order; () if it does not parse."""
    found = python_definitions(source)
    return () if found is None else found


@lru_cache(maxsize=512)
def python_definitions(source: str | bytes) -> tuple[Definition, ...] | None:
    """Return every function and class of ``source`` with its lines, in source order; None if it does not parse.

    Cached by content: the instances of one benchmark read the same unchanged files at many commits,
    and parsing is nearly all the cost of deriving their ground truth.
    """
    with paused_gc():
        tree = parse_module(source)
        found = None if tree is None else module_definitions(tree)
        del tree  # freed (a syntax tree has no cycles) before the collector resumes and would walk it all
    return found


def module_definitions(tree: ast.Module) -> tuple[Definition, ...]:
    """Return every function and class of a parsed module with its lines, in source order."""
    found: list[Definition] = []
    _definitions(tree.body, "", False, found)
    return tuple(found)


def member_definitions(body: list[ast.stmt], prefix: str, in_function: bool = False) -> tuple[Definition, ...]:
    """Return the functions and classes in a definition's body as ``module_definitions`` names them
    (``prefix``: the definition's qualified name and a dot; ``in_function``: whether the body is a
    function's or lies inside one)."""
    found: list[Definition] = []
    _definitions(body, prefix, in_function, found)
    return tuple(found)


def parse_module(source: str | bytes) -> ast.Module | None:
    """Return the syntax tree of ``source``, or None when it does not parse as Python."""
    try:
        with warnings.catch_warnings():  # invalid escape sequences in old code are not our concern
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # null bytes; nesting too deep to parse
        return None


def _definitions(body: list[ast.stmt], prefix: str, in_function: bool, found: list[Definition]) -> None:
    """Add every function and class under ``body`` to ``found`` in source order, nested ones after their
    parent; the statements of if/try/with/for/while/match blocks are read as ``body``'s own (a try's
    handlers after its ``finally``).

    One call a list of statements, no generator: outlining the best files of every case is a good part
    of a cold bm25 run, and this walk an eighth of it beside ``ast.parse``.
    """
    for node in body:
        if isinstance(node, _Definition):
            qualname = f"{prefix}{node.name}"
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            is_function = not isinstance(node, ast.ClassDef)
            found.append(Definition(qualname, start, end, is_function, prefix == "", node.col_offset, in_function))
            _definitions(node.body, f"{qualname}.", in_function or is_function, found)
        elif isinstance(node, _BLOCKS):  # definitions and simple statements hold no statement of this level
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, name, [])
                if name in ("handlers", "cases"):
                    for child in children:
                        _definitions(child.body, prefix, in_function, found)
                else:
                    _definitions(children, prefix, in_function, found)
