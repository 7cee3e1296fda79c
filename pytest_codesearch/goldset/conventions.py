"""Truth conventions: how the entities a patch changes are named, per published benchmark.

``native`` is ``goldset/entities.py``'s rule as it is. ``locagent`` (LocAgent's and SweRank's function
truth; ``--codesearch-profile=locagent``) names at function level:

- a change inside a constructor by its class (``rst.py:RST``, not ``rst.py:RST.__init__``);
- a class whose body changed outside its methods and nested classes (a class attribute, a docstring, a
  line between methods) by the class (``rst.py:RST``), beside any method that changed.

Module-level truth is the same under both.
"""

from __future__ import annotations

from collections.abc import Iterable

from .entities import Definition, Entities, definition_spans
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
    return Entities(tuple(dict.fromkeys([*named, *body])), entities.modules)


def changed_class_bodies(source: str | bytes, lines: Iterable[int], insertions: Iterable[Insertion]) -> list[str]:
    """Return the qualified names of the classes of ``source`` (not inside a function) holding a changed line,
    or an inserted one, outside every function and class defined in their body."""
    definitions = definition_spans(source)
    points = [*((line, line) for line in lines), *((i.before - 1, i.before) for i in insertions)]
    found = []
    for cls in definitions:
        if cls.is_function or cls.in_function:
            continue
        members = [d for d in definitions if _member_of(d, cls)]
        if any(_inside(cls, point) and not any(_inside(m, point) for m in members) for point in points):
            found.append(cls.qualname)
    return found


def _member_of(definition: Definition, cls: Definition) -> bool:
    """Return True for a function or class defined directly in the body of ``cls``."""
    rest = definition.qualname.removeprefix(f"{cls.qualname}.")
    return rest != definition.qualname and "." not in rest


def _inside(definition: Definition, point: tuple[int, int]) -> bool:
    """Return True when the line span ``point`` (a changed line, or the two lines around an insertion) lies
    within ``definition``."""
    return definition.start <= point[0] and point[1] <= definition.end
