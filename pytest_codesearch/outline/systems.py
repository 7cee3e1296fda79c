"""Go and Rust: functions, methods by their receiver's type, and type declarations with bodies.

Go: a method is named by its receiver's type without pointer or type arguments (``func (c *Cart[T]) Add()``
is ``Cart.Add``), a top-level definition of its own; a struct or interface type is a class (``Cart``).
Rust: an ``impl`` block is a class named by its type (``impl Display for Cart`` and ``impl Cart`` are
both ``Cart``), so its functions are ``Cart.add``; structs, enums, unions and traits are classes too, and
an inline ``mod`` prefixes names with ``::`` (``store::Cart.add``). Function literals and closures are
transparent.
"""

from __future__ import annotations

import tree_sitter_go
import tree_sitter_rust
from tree_sitter import Node

from .treesitter import Grammar, field_name, text, without_generics


def go_method(node: Node) -> str | None:
    """Return ``Cart.Add`` of ``func (c *Cart) Add()``."""
    name = field_name(node)
    receiver = node.child_by_field_name("receiver")
    parameter = None if receiver is None else next(iter(receiver.named_children), None)
    kind = None if parameter is None else without_generics(text(parameter.child_by_field_name("type")))
    if name is None or kind is None:
        return name
    return f"{kind.lstrip('*')}.{name}"


def rust_impl(node: Node) -> str | None:
    """Return ``Cart`` of ``impl<T> Display for Cart<T>``."""
    name = without_generics(text(node.child_by_field_name("type")))
    return None if name is None else name.lstrip("&")


GO = Grammar(
    name="go",
    load=tree_sitter_go.language,
    query="""
    (function_declaration) @function
    (method_declaration) @function
    (type_spec name: (_) type: [(struct_type) (interface_type)]) @class
    """,
    names={"method_declaration": go_method},
)

RUST = Grammar(
    name="rust",
    load=tree_sitter_rust.language,
    query="""
    (function_item) @function
    (struct_item) @class
    (enum_item) @class
    (union_item) @class
    (trait_item) @class
    (impl_item) @class
    (mod_item body: (_)) @namespace
    """,
    names={"impl_item": rust_impl},
    scope="::",
)
