"""Fully qualified Python names (``package.module.Class.method``) resolved to files and entities of a tree.

A name is split at the longest prefix that is a module of the tree: ``package/module.py`` or
``package/module/__init__.py``, under the tree's root or one of ``SOURCE_ROOTS``. The rest is looked up in
that module's definitions (classes, functions, methods, nested); a name the module only imports
(``from .parallel import ParallelAgent`` in a package's ``__init__.py``) is followed to where it is
defined, a few steps deep. A name the module assigns (``Agent = BaseAgent``) resolves to the module file::

    resolve_fqn("shop.auth.Hasher.hash", read)
    # -> Resolved(path="src/shop/auth/hashing.py", entity="src/shop/auth/hashing.py:Hasher.hash")
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from .entities import parse_module

SOURCE_ROOTS = ("", "src/", "lib/", "python/")
"""Directories searched for top-level packages, in order."""
_MAX_HOPS = 5
"""Re-exports followed before giving up (they may form cycles)."""

Reader = Callable[[str], "bytes | None"]
"""Returns a file's bytes by tree path, or None when the tree has no such file."""

FQN_EXTENSION = "x-fqn"
"""The case extension an FQN retrieval set's records carry: its cases resolve names answered as files."""


@dataclass(frozen=True)
class Resolved:
    """Where a name lives: its file, and the entity (``path.py:Qualified.name``) unless it is a module."""

    path: str
    entity: str | None


def resolve_fqn(fqn: str, read: Reader) -> Resolved | None:
    """Return the file (and entity) ``fqn`` names in the tree ``read`` reads, or None when none is found."""
    return _resolve(fqn.split("."), read, _MAX_HOPS)


def _resolve(parts: list[str], read: Reader, hops: int) -> Resolved | None:
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    for root in SOURCE_ROOTS:
        for cut in range(len(parts), 0, -1):
            found = _module_file(root, parts[:cut], read)
            if found is None:
                continue
            path, source = found
            rest = parts[cut:]
            if not rest:
                return Resolved(path, None)
            return _in_module(path, source, parts[:cut], rest, read, hops)
    return None


def _module_file(root: str, module: list[str], read: Reader) -> tuple[str, bytes] | None:
    base = root + "/".join(module)
    for path in (base + ".py", base + "/__init__.py"):
        data = read(path)
        if data is not None:
            return path, data
    return None


def _in_module(
    path: str, source: bytes, module: list[str], rest: list[str], read: Reader, hops: int
) -> Resolved | None:
    """Return the entity ``rest`` names in the module at ``path``, following one re-export if needed."""
    tree = parse_module(source)  # quiet: a tree's invalid escapes are not the run's warnings
    if tree is None:
        return Resolved(path, None)
    qualified = _defined(tree.body, rest)
    if qualified is not None:
        return Resolved(path, f"{path}:{qualified}")
    target = _imported(tree.body, rest[0], module, path.endswith("__init__.py"))
    if target is not None and hops > 0:
        followed = _resolve(target + rest[1:], read, hops - 1)
        if followed is not None:
            return followed
    if _assigned(tree.body, rest[0]):
        return Resolved(path, None)
    return None


def _defined(body: list[ast.stmt], rest: list[str]) -> str | None:
    """Return ``A.b`` when the definitions of ``body`` hold class ``A`` with ``b`` in it, and so on."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == rest[0]:
            if len(rest) == 1:
                return node.name
            inner = _defined(node.body, rest[1:])
            return None if inner is None else f"{node.name}.{inner}"
    return None


def _imported(body: list[ast.stmt], name: str, module: list[str], package: bool) -> list[str] | None:
    """Return the absolute name that ``name`` is imported from in a module's top level, or None."""
    for node in body:
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != name:
                continue
            if node.level:
                anchor = module if package else module[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                base = anchor + (node.module.split(".") if node.module else [])
            else:
                base = (node.module or "").split(".")
            return [part for part in base if part] + [alias.name]
    return None


def _assigned(body: list[ast.stmt], name: str) -> bool:
    for node in body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return True
    return False


def files_of_names(answer: Sequence[str], files: AbstractSet[str], read: Reader) -> list[str]:
    """Return ``answer`` with each entry that is no file of the tree but a name the tree defines
    (``adk.agents.ParallelAgent``) replaced by the file it resolves to, as positive names are resolved."""
    resolved: list[str] = []
    for entry in answer:
        found = None if entry in files or not _looks_dotted(entry) else resolve_fqn(entry, read)
        resolved.append(entry if found is None else found.path)
    return resolved


def _looks_dotted(entry: str) -> bool:
    return all(part.isidentifier() for part in entry.split("."))
