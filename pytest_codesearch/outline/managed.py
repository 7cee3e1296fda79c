"""Java and C#: classes, interfaces, enums and records; methods and constructors.

Names join classes and members with dots (``Cart.add``, ``Outer.Inner.run``); a constructor is named as
its class (``Cart.Cart``), a C# finalizer with a tilde (``Cart.~Cart``). The package or namespace is not
part of the name (the file's path already places it). Lambdas and anonymous classes are transparent: a
method of an anonymous class inside a method counts for that method.
"""

from __future__ import annotations

import tree_sitter_c_sharp
import tree_sitter_java
from tree_sitter import Node

from .treesitter import Grammar, field_name

JAVA = Grammar(
    name="java",
    load=tree_sitter_java.language,
    query="""
    (class_declaration) @class
    (interface_declaration) @class
    (enum_declaration) @class
    (record_declaration) @class
    (annotation_type_declaration) @class
    (method_declaration) @function
    (constructor_declaration) @function
    (compact_constructor_declaration) @function
    """,
)


def _finalizer(node: Node) -> str | None:
    name = field_name(node)
    return None if name is None else f"~{name}"


CSHARP = Grammar(
    name="csharp",
    load=tree_sitter_c_sharp.language,
    query="""
    (class_declaration) @class
    (struct_declaration) @class
    (interface_declaration) @class
    (record_declaration) @class
    (method_declaration) @function
    (constructor_declaration) @function
    (destructor_declaration) @function
    (local_function_statement) @function
    """,
    names={"destructor_declaration": _finalizer},
)
