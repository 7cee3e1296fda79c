"""C and C++: functions, and structs, unions and classes with bodies; C++ namespaces prefix names.

C++ joins every level with ``::``: ``ns::Shape::area`` for a method defined in its class, and a function
defined outside its class keeps the name it is written with (``Shape::area`` in ``ns`` is
``ns::Shape::area``), a top-level definition of its own. Template headers belong to what they declare;
type arguments are dropped (``Box<int>::get`` is ``Box::get``); lambdas and anonymous namespaces are
transparent.

A ``.h`` file is C++ when, outside its comments and strings, it holds a construct only C++ has
(:func:`header_language`), else C: one reading, decided before any parse.
"""

from __future__ import annotations

import re

import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Node

from .treesitter import Grammar, field_name, text

_NAMES = frozenset(
    {"identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name",
     "template_function", "type_identifier"}
)  # fmt: skip
_ARGUMENTS = re.compile(r"<[^<>]*>")

_CPP_ONLY = (
    rb"t(?<!\wt)emplate\s*<|n(?<!\wn)amespace(?:\s+\w+)?\s*\{|c(?<!\wc)lass\s+\w+\s*(?:final\s*)?[:{]|::[~\w]"
    rb'|\n[ \t]*(?:public|private|protected)[ \t]*:|e(?<!\we)xtern\s*"C\+\+"'
)
"""A template, a namespace, a class with a body or base, a scope (``a::b``, ``::f``), an access label, ``extern "C++"``.
Each alternative starts with a character, not ``\\b``, so that ``re`` skips to the candidates."""
_MARKED = re.compile(_CPP_ONLY)
_TOKENS = re.compile(
    rb"//[^\n]*|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/|/\*.*"  # comments (one left open runs to the end)
    rb"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"  # string and character literals
    rb"|(?P<cpp>" + _CPP_ONLY + rb")",
    re.DOTALL,
)
"""Comments and string or character literals, skipped whole, or a C++ construct outside them."""
_WORDS = (b"::", b"template", b"namespace", b"class", b"public", b"private", b"protected", b'"C++"')


def header_language(data: bytes) -> str:
    """Return ``"cpp"`` when a header holds a construct only C++ has outside its comments and strings, else ``"c"``.

    Read as C, a C++ header makes tree-sitter's C grammar recover from every template (about 1.7 MB/s
    against 8 MB/s on C) and names nothing right; so the reading is chosen from the text, in three steps
    of rising cost: the words, the constructs anywhere, the constructs outside comments and strings.
    """
    if not any(word in data for word in _WORDS) or _MARKED.search(data) is None:
        return "c"
    return "cpp" if any(found.lastgroup == "cpp" for found in _TOKENS.finditer(data)) else "c"


def declarator_name(node: Node) -> str | None:
    """Return the name a function definition declares: ``main``, ``Shape::area``, ``~Shape``; None (the
    definition is transparent) when tree-sitter recovered that name from an error."""
    found = node.child_by_field_name("declarator")
    while found is not None and found.type not in _NAMES:
        inner = found.child_by_field_name("declarator") or found.child_by_field_name("name")
        found = inner or next(iter(found.named_children), None)  # ``(*f(void))``: no field names the inside
    return None if found is not None and found.has_error else _plain(text(found))


_CPP_KEYWORDS = frozenset(
    {"namespace", "template", "class", "struct", "union", "enum", "typename", "using", "typedef", "friend",
     "public", "private", "protected", "return", "if", "else", "for", "while", "do", "switch", "case"}
)  # fmt: skip


def _cpp_declarator_name(node: Node) -> str | None:
    """Return :func:`declarator_name`, None for a keyword: ``FMT_BEGIN_NAMESPACE namespace detail {`` (a macro
    tree-sitter cannot expand) reads as a function ``namespace`` holding the whole namespace."""
    name = declarator_name(node)
    return None if name in _CPP_KEYWORDS else name


def _plain(name: str | None) -> str | None:
    """Return ``name`` without template arguments (an operator's name is kept whole)."""
    if name is None or "operator" in name:
        return name
    while _ARGUMENTS.search(name):
        name = _ARGUMENTS.sub("", name)
    return name or None


def _type_name(node: Node) -> str | None:
    return _plain(field_name(node))


C = Grammar(
    name="c",
    load=tree_sitter_c.language,
    query="""
    (function_definition) @function
    (struct_specifier name: (_) body: (_)) @class
    (union_specifier name: (_) body: (_)) @class
    """,
    names={"function_definition": declarator_name},
)

CPP = Grammar(
    name="cpp",
    load=tree_sitter_cpp.language,
    query="""
    (function_definition) @function
    (class_specifier name: (_) body: (_)) @class
    (struct_specifier name: (_) body: (_)) @class
    (union_specifier name: (_) body: (_)) @class
    (namespace_definition name: (_)) @namespace
    """,
    names={
        "function_definition": _cpp_declarator_name,
        "class_specifier": _type_name,
        "struct_specifier": _type_name,
        "union_specifier": _type_name,
    },
    member="::",
    scope="::",
    wrappers=frozenset({"template_declaration"}),
)
