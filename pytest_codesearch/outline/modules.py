"""The module of a function: one rule for patch-derived truth and for the modules of agents' answers.

A function's **module** is the definition that no other definition encloses and that holds it, in the
outline of its file (``Definition.top_level``: namespaces, Ruby modules and TypeScript namespaces do not
count). Patch-derived truth names those definitions (``goldset/entities.py``); an answer's modules, when
the agent gives only functions, are read from the same outline of the case's snapshot
(``scoring/named.py``), so both agree in every language::

    shop::Cart::add   (C++, defined in class Cart)      -> shop::Cart
    shop::Cart::total (C++, defined outside its class)  -> shop::Cart::total
    Shop.Cart.add     (Ruby, module Shop, class Cart)   -> Shop.Cart

Without the outline (a name the file does not define, or ``RetrievalResult`` deriving modules before any
snapshot is read) the name alone decides, by its language (``module_by_name``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from . import language_of
from .model import Definition

Modules = Mapping[str, str]
"""The module of each definition of a file, by qualified name (``module_names``)."""
Outlines = Callable[[str], "Modules | None"]
"""Returns the ``module_names`` of the file at a path, or None when it has no outline to look in."""


def module_names(definitions: Iterable[Definition]) -> dict[str, str]:
    """Return the qualified name of the module of each definition, by its qualified name (the first
    definition of a repeated name decides): the top-level definition enclosing it, itself when top level.

    ``definitions`` are an outline's, in source order with parents before what they hold.
    """
    names: dict[str, str] = {}
    top: Definition | None = None
    for definition in definitions:
        if definition.top_level:
            top = definition
        held = top is not None and top.start <= definition.start and definition.end <= top.end
        names.setdefault(definition.qualname, top.qualname if held and top is not None else definition.qualname)
    return names


def module_by_name(path: str, qualname: str) -> str:
    """Return the module of the function ``qualname`` of the file at ``path`` read from the name alone.

    Go methods (``Cart.Add``) are top level, and so is every C and C++ name (C++ joins namespaces and
    classes alike with ``::``: only the outline tells ``shop::Cart::add`` in its class from
    ``shop::Cart::add`` defined outside it); in every other language the name's first ``.`` part
    (``Cart.add`` -> ``Cart``; Rust ``store::Cart.add`` -> ``store::Cart``).
    """
    if language_of(path) in ("go", "c", "cpp"):
        return qualname
    return qualname.split(".", 1)[0]


def module_of(path: str, qualname: str, definitions: Iterable[Definition] | None = None) -> str:
    """Return the module of the function ``qualname`` of the file at ``path`` (see the module docstring):
    by the outline ``definitions`` of the file when they define it, else by ``module_by_name``."""
    if definitions is not None:
        found = module_names(definitions).get(qualname)
        if found is not None:
            return found
    return module_by_name(path, qualname)


def modules_of_functions(functions: Iterable[str], outlines: Outlines | None = None) -> list[str]:
    """Return the module entities (``path:Name``) of ranked function entities (``path:Qualified.name``),
    in order of first appearance; ``outlines`` gives a file's ``module_names`` by its path (None: names alone).

    An entry without ``path:`` names no module and is skipped. The path ends at the first colon after a
    path ``outlines`` gives definitions of, else after a path of a language with an outline (C++ and Rust
    names hold colons), else at the last colon.
    """
    modules: dict[str, None] = {}
    known: dict[str, Modules | None] = {}
    for entity in functions:
        path, name = _split(entity, outlines, known)
        if not path or not name:
            continue
        by_outline = known.get(path)
        module = by_outline.get(name) if by_outline is not None else None
        modules.setdefault(f"{path}:{module if module is not None else module_by_name(path, name)}", None)
    return list(modules)


def _split(entity: str, outlines: Outlines | None, known: dict[str, Modules | None]) -> tuple[str, str]:
    """Return the path and the name of ``entity``, outlining its file into ``known`` once."""
    at = entity.find(":")
    while at > 0:
        path = entity[:at]
        if outlines is not None and path not in known:
            known[path] = outlines(path)
        if known.get(path) is not None or language_of(path) is not None:
            return path, entity[at + 1 :]
        at = entity.find(":", at + 1)
    path, _, name = entity.rpartition(":")
    return path, name
