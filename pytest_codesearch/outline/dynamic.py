"""Python (when ``ast`` cannot parse a file), Ruby and PHP.

Ruby: ``def`` and ``def self.`` methods are functions, classes are classes, and a ``module`` prefixes
names without being a definition (``Shop::Cart#add`` is ``Shop.Cart.add``; a method defined in a module
is top level, ``Util.slug``); ``class << self`` and blocks are transparent. PHP: functions, methods,
classes, interfaces, traits and enums (``Cart.add``); the namespace is not part of the name, closures,
arrow functions and anonymous classes are transparent. Python through tree-sitter follows ``ast``'s
rules (``outline/python.py``).
"""

from __future__ import annotations

import tree_sitter_php
import tree_sitter_python
import tree_sitter_ruby
from tree_sitter import Node

from .treesitter import Grammar, field_name


def _ruby_constant(node: Node) -> str | None:
    name = field_name(node)
    return None if name is None else name.replace("::", ".")


PYTHON = Grammar(
    name="python",
    load=tree_sitter_python.language,
    query="(function_definition) @function (class_definition) @class",
    wrappers=frozenset({"decorated_definition"}),
)

RUBY = Grammar(
    name="ruby",
    load=tree_sitter_ruby.language,
    query="(method) @function (singleton_method) @function (class) @class (module) @namespace",
    names={"class": _ruby_constant, "module": _ruby_constant},
)

PHP = Grammar(
    name="php",
    load=tree_sitter_php.language_php,
    query="""
    (function_definition) @function
    (method_declaration) @function
    (class_declaration) @class
    (interface_declaration) @class
    (trait_declaration) @class
    (enum_declaration) @class
    """,
)
