"""Which top-level nodes of a syntax tree may frame a region, or fill one (``regions.py``).

A region of a version is trusted to stand for the whole file's parse when it is framed by top-level nodes
that parse the same alone and in the whole file. A clean node (no error, none missing) does. So does, in C,
a definition or declaration whose every error stays inside it: what git's attribute macros
(``void *data UNUSED``) and loop macros (``for_each_item(x, &l) {``) leave in about half of its C files,
where tree-sitter skips the token or inserts the ``;`` in place and the node still ends at its own ``}`` or
``;``. Brace errors (a missing ``}``), errors at top level and errors in other node types never frame.
"""

from __future__ import annotations

from tree_sitter import Node

_DEFINITIONS = frozenset({
    "function_definition", "declaration", "type_definition", "preproc_include", "preproc_def", "preproc_function_def"
})
"""C's top-level nodes whose errors may stay inside them (``_local``)."""
_LOCAL_ERRORS = frozenset({"c"})
"""Languages whose definitions may hold errors that stay inside them: C++ failed the checks."""


def clean(node: Node) -> bool:
    """Return whether ``node`` has no error, is none and is not missing."""
    return not (node.has_error or node.is_error or node.is_missing)


def framing(language: str, node: Node) -> bool:
    """Return whether top-level ``node`` of ``language`` may frame or fill a region: clean, or (in C) a
    definition whose errors stay inside it (``_local``)."""
    return clean(node) or (language in _LOCAL_ERRORS and _local(node))


def _local(node: Node) -> bool:
    """Return whether ``node`` is a C definition whose every error is an ERROR node or a missing ``;`` inside
    it: what attribute macros (``int x UNUSED``) and loop macros (``for_each_item(x, &l) {``) leave, which
    tree-sitter skips or fills in place."""
    if node.type not in _DEFINITIONS or node.is_error or node.is_missing:
        return False
    stack = [node]
    while stack:
        found = stack.pop()
        if found.is_missing and found.type != ";":
            return False
        if not found.is_error:
            stack.extend(child for child in found.children if child.has_error or child.is_missing)
    return True
