"""Truth conventions: how the entities a patch changes are named, per published benchmark.

``native`` is ``goldset/entities.py``'s rule as it is. ``locagent`` (LocAgent's and SweRank's function
truth; ``--codesearch-profile=locagent``) names at function level:

- a change inside a constructor by its class (``rst.py:RST``, not ``rst.py:RST.__init__``);
- a class whose body changed outside its methods and nested classes (a class attribute, a method added
  or removed; not blank, comment or docstring lines) by the class (``rst.py:RST``), beside any method
  that changed.

At module level LocAgent names the top-level definition of each of those functions (``rst.py:RST`` for
``rst.py:RST.write``), nothing else.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import lru_cache

from ..outline import outline
from ..outline.modules import module_names, modules_of_functions
from .entities import Definition, Entities, definition_spans, parse_module
from .entities import _blank_lines, _holds  # one rule for where inserted lines go, shared with changed_entities
from .patch import Insertion

CONVENTIONS = ("native", "locagent")
"""The truth conventions, by name (a profile's ``truth``)."""


def apply_convention(
    convention: str, path: str, source: str | bytes, lines: Iterable[int], insertions: Iterable[Insertion],
    entities: Entities,
) -> Entities:  # fmt: skip
    """Return ``entities`` (those ``changed_entities`` found for ``lines`` and ``insertions`` of the file at
    ``path``) named by ``convention``; raise ValueError for an unknown convention."""
    if convention == "native":
        return entities
    if convention != "locagent":
        raise ValueError(f"unknown truth convention {convention!r}; known: {', '.join(CONVENTIONS)}")
    named = [e.removesuffix(".__init__") if e.endswith(".__init__") else e for e in entities.functions]
    body = [f"{path}:{name}" for name in changed_class_bodies(source, lines, insertions)]
    functions = tuple(dict.fromkeys([*named, *body]))
    names = module_names(outline(path, source).definitions)
    return Entities(functions, tuple(modules_of_functions(functions, lambda p: names if p == path else None)))


def changed_class_bodies(source: str | bytes, lines: Iterable[int], insertions: Iterable[Insertion]) -> list[str]:
    """Return the qualified names of the classes of ``source`` (not inside a function) holding a changed line,
    or inserted ones, outside every function and class defined in their body.

    Blank, comment-only and class docstring lines do not count (LocAgent skips them), nor do inserted lines
    that are all blank; inserted lines extend a member they follow when indented deeper than its ``def`` (as in
    ``goldset/entities.py``), so a method added at the end of a class changes the class's body.
    """
    definitions = definition_spans(source)
    blank = _blank_lines(source)
    text = (source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source).split("\n")
    changed = [n for n in lines if n > len(text) or not text[n - 1].lstrip().startswith("#")]
    changed = [n for n in changed if n not in blank]
    inserted = [i for i in insertions if i.indent is not None]
    found = []
    for cls in definitions:
        if cls.is_function or cls.in_function:
            continue
        members = [d for d in definitions if _member_of(d, cls)]
        body_lines = [n for n in changed if _inside(cls, n) and not any(_inside(m, n) for m in members)]
        body_line = bool(body_lines) and not _class_docstring_lines(source).issuperset(body_lines)
        body_insertion = any(_holds(cls, i, blank) and not any(_holds(m, i, blank) for m in members) for i in inserted)
        if body_line or body_insertion:
            found.append(cls.qualname)
    return found


@lru_cache(maxsize=64)
def _class_docstring_lines(source: str | bytes) -> frozenset[int]:
    """Return the line numbers of every class docstring of ``source`` (none when it does not parse).

    Asked only for a file some of whose changed lines lie in a class body outside its members: parsing
    and walking every patched file again was half the CPU of deriving SWE-bench Lite's truths.
    """
    tree = parse_module(source)
    lines: set[int] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ClassDef) and node.body and isinstance(node.body[0], ast.Expr):
            value = node.body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(value.lineno, (value.end_lineno or value.lineno) + 1))
    return frozenset(lines)


def _member_of(definition: Definition, cls: Definition) -> bool:
    """Return True for a function or class defined directly in the body of ``cls``."""
    rest = definition.qualname.removeprefix(f"{cls.qualname}.")
    return rest != definition.qualname and "." not in rest


def _inside(definition: Definition, line: int) -> bool:
    """Return True when ``line`` lies within ``definition``."""
    return definition.start <= line <= definition.end
