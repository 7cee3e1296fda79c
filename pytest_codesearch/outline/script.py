"""JavaScript, TypeScript and TSX: functions, classes, methods, and functions bound to a name.

A function or class assigned where it is declared takes that name (``const parse = () => ...`` is
``parse``; a class field ``onClick = () => ...`` is ``Button.onClick``); one assigned to a property
takes the property's path without ``prototype`` and ``module.exports`` (``Cart.prototype.add =
function`` is ``Cart.add``), as does one given as an object literal's value. An object literal bound to a
name is a namespace for its methods (``const api = { get() {}, put: () => 1 }`` gives ``api.get`` and
``api.put``), as is a TypeScript ``namespace``. Every other function expression, arrow function or class
expression (a callback, an IIFE) is anonymous: transparent.
"""

from __future__ import annotations

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Node

from .treesitter import Grammar, text

_DROPPED = ("module.exports.", "exports.")

_COMMON = """
(function_declaration) @function
(generator_function_declaration) @function
(method_definition) @function
(class_declaration) @class
(variable_declarator name: (identifier) value: [(arrow_function) (function_expression) (generator_function)]) @function
(variable_declarator name: (identifier) value: (class)) @class
(variable_declarator name: (identifier) value: (object)) @namespace
(assignment_expression left: (member_expression) right: [(arrow_function) (function_expression)]) @function
(pair key: (_) value: [(arrow_function) (function_expression)]) @function
"""


def _assigned(node: Node) -> str | None:
    """Return ``Cart.add`` of ``Cart.prototype.add = function ...``; None for ``module.exports = ...``."""
    name = text(node.child_by_field_name("left"))
    if name is None:
        return None
    for prefix in _DROPPED:
        name = name[len(prefix) :] if name.startswith(prefix) else name
    name = name.replace(".prototype.", ".")
    return None if name in ("module.exports", "exports") or "[" in name else name


def _property(node: Node) -> str | None:
    return text(node.child_by_field_name("property") or node.child_by_field_name("name"))


def _key(node: Node) -> str | None:
    return text(node.child_by_field_name("key"))


_NAMES = {"assignment_expression": _assigned, "pair": _key, "field_definition": _property, "public_field_definition": _property}

JAVASCRIPT = Grammar(
    name="javascript",
    load=tree_sitter_javascript.language,
    query=_COMMON + "(field_definition property: (_) value: [(arrow_function) (function_expression)]) @function",
    names=_NAMES,
)

_TYPESCRIPT = (
    _COMMON
    + """
(abstract_class_declaration) @class
(internal_module name: (_)) @namespace
(public_field_definition name: (_) value: [(arrow_function) (function_expression)]) @function
"""
)

TYPESCRIPT = Grammar(
    name="typescript", load=tree_sitter_typescript.language_typescript, query=_TYPESCRIPT, names=_NAMES
)

TSX = Grammar(name="tsx", load=tree_sitter_typescript.language_tsx, query=_TYPESCRIPT, names=_NAMES)
