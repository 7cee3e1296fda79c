"""Outlines from tree-sitter grammars: one query per language finds the definitions, nesting names them.

A language is a :class:`Grammar`: its tree-sitter language (an installed wheel, never downloaded), a
query whose captures are ``@function``, ``@class`` and ``@namespace`` nodes, and how to name a node of
each type. The query runs in C; Python only names the captured nodes and nests them by their byte
ranges, so outlining costs about what parsing does. Rules shared by every language:

- a definition's name is joined to its enclosing definition's with ``Grammar.member`` and to its
  enclosing namespace's with ``Grammar.scope``;
- a node the namer gives no name (a lambda, a closure, an anonymous class, an anonymous namespace) is
  transparent: it is no definition, its lines count for the definition around it, and definitions inside
  it are named as if it were not there;
- namespaces are no definitions: they only prefix names, and a definition inside one is still top level.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from .model import Definition

Namer = Callable[[Node], "str | None"]
"""Returns a captured node's own name, or None when it is anonymous."""
KINDS = ("function", "class", "namespace")


def field_name(node: Node) -> str | None:
    """Return the text of the node's ``name`` field, or None when it has none."""
    return text(node.child_by_field_name("name"))


_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)|//[^\n]*", re.DOTALL)


def text(node: Node | None) -> str | None:
    """Return a node's source text with whitespace and comments removed, or None for no node (a name holds a
    comment only where tree-sitter recovered from an error: a C++ header's macros made one 700 characters long)."""
    if node is None or node.text is None:
        return None
    found = node.text.decode("utf-8", errors="replace")
    if "/" in found:
        found = _COMMENT.sub("", found)
    return "".join(found.split()) or None


def without_generics(name: str | None) -> str | None:
    """Return ``name`` without type arguments: ``Map`` of ``Map<K, V>``, ``T`` of ``T[K]``."""
    if name is None:
        return None
    for bracket in ("<", "["):
        name = name.split(bracket, 1)[0]
    return name or None


@dataclass(frozen=True)
class Grammar:
    """One language's outline rules: the query and how to name what it captures."""

    name: str
    load: Callable[[], object]
    """Returns the tree-sitter language pointer (``tree_sitter_c.language``)."""
    query: str
    names: Mapping[str, Namer] = field(default_factory=dict)
    """Namers by node type; other types are named by their ``name`` field."""
    member: str = "."
    """Joins a definition's name to the definition enclosing it."""
    scope: str = "."
    """Joins a definition's name to the namespace enclosing it."""
    wrappers: frozenset[str] = frozenset()
    """Parent node types whose lines belong to the definition they wrap (decorators, templates)."""

    @cached_property
    def language(self) -> Language:
        """Return the loaded tree-sitter language."""
        return Language(self.load())

    @cached_property
    def _query(self) -> Query:
        wrappers = "".join(f" ({wrapper}) @wrapper" for wrapper in sorted(self.wrappers))
        return Query(self.language, self.query + wrappers)

    @cached_property
    def _parser(self) -> Parser:
        return Parser(self.language)

    def outline(self, source: bytes) -> tuple[tuple[Definition, ...], str | None]:
        """Return the definitions of ``source`` in source order, and a note when it did not parse whole."""
        return self.definitions(self.parse(source))

    def parse(self, source: bytes, old: Tree | None = None) -> Tree:
        """Return the syntax tree of ``source``; from ``old`` (already edited to match) when given."""
        return self._parser.parse(source) if old is None else self._parser.parse(source, old)

    def definitions(
        self, tree: Tree, ranges: Sequence[tuple[int, int]] | None = None
    ) -> tuple[tuple[Definition, ...], str | None]:
        """Return the definitions of ``tree`` and a note when it did not parse whole (see ``outline``).

        With ``ranges`` (``(first byte, past byte)`` pairs), only the definitions whose lines meet one of
        them, which include every definition around them: what naming them needs. A definition's lines
        start with its wrapper's (``wrappers``: a decorator, a template header), which its own node does
        not hold, so a range that meets a wrapper alone adds the whole wrapper (its last byte need not be
        the definition's: ``template <class T> class C {};`` ends with the template's ``;``).
        """
        cursor = QueryCursor(self._query)
        nodes: dict[int, tuple[Node, str]] = {}
        pending = [(0, tree.root_node.end_byte)] if ranges is None else list(ranges)
        while pending:
            start, past = pending.pop()
            cursor.set_byte_range(start, past)
            captured = cursor.captures(tree.root_node)
            nodes.update((node.id, (node, kind)) for kind in KINDS for node in captured.get(kind, ()))
            if ranges is not None:
                wrappers = captured.get("wrapper", ())
                pending += [(node.start_byte, node.end_byte) for node in wrappers if node.end_byte > past]
        ordered = sorted(nodes.values(), key=lambda item: (item[0].start_byte, -item[0].end_byte))
        definitions = tuple(self._nest(ordered))
        return definitions, self._note(tree.root_node) if tree.root_node.has_error else None

    def _nest(self, ordered: Iterable[tuple[Node, str]]) -> Iterable[Definition]:
        """Yield a definition per named captured node, named after those enclosing it."""
        stack: list[_Open] = []
        for node, kind in ordered:
            while stack and stack[-1].end <= node.start_byte:
                stack.pop()
            name = self.names.get(node.type, field_name)(node)
            if name is None:
                continue  # anonymous: transparent
            parent = stack[-1] if stack else None
            if parent is not None:
                name = f"{parent.qualname}{self.scope if parent.kind == 'namespace' else self.member}{name}"
            inside = parent is not None and parent.in_definition
            in_function = parent is not None and parent.in_function
            stack.append(_Open(node.end_byte, name, kind, inside or kind != "namespace",
                               in_function or kind == "function"))  # fmt: skip
            if kind != "namespace":
                yield self._definition(node, name, kind, not inside, in_function)

    def _definition(self, node: Node, name: str, kind: str, top_level: bool, in_function: bool) -> Definition:
        outer = node
        while outer.parent is not None and outer.parent.type in self.wrappers:
            outer = outer.parent
        start, end = outer.start_point, node.end_point
        last = end.row if end.column == 0 and end.row > start.row else end.row + 1  # a node ending at a line start
        return Definition(name, start.row + 1, last, kind == "function", top_level, start.column, in_function)

    def _note(self, root: Node) -> str:
        return f"does not parse as {self.name} from line {first_error(root)}: definitions are those tree-sitter recovers"


def first_error(node: Node) -> int:
    """Return the line (1-based) of the first error or missing node under ``node``, which has one.

    Descends through the first child that has an error: a few nodes per level, never the whole tree.
    """
    while not (node.is_error or node.is_missing):
        child = next((c for c in node.children if c.has_error or c.is_missing), None)
        if child is None:
            break
        node = child
    return node.start_point.row + 1


class _Open(NamedTuple):
    """A captured node whose range may enclose the next ones."""

    end: int
    qualname: str
    kind: str
    in_definition: bool
    in_function: bool
