"""What may be written of a git tree's entries: the modes we write, the names we refuse, and the errors.

Shared by :mod:`~pytest_codesearch.repo.materialize` (which writes a tree) and
:mod:`~pytest_codesearch.repo.listing` (which lists it without writing), so both leave out the same entries.
"""

from __future__ import annotations

import os

import pygit2

TYPE_MASK = 0o170000
TREE = 0o040000
REGULAR = 0o100000
SYMLINK = 0o120000
GITLINK = 0o160000

MISSING_BLOB = "missing blob"
"""The reason a file whose blob the repository lacks is left out of a snapshot (a partial clone, a mirror
that keeps its largest files out): the snapshot holds the rest, and only a case that needs the file fails."""


class MaterializeError(Exception):
    """The object database cannot supply a tree completely (a missing or mistyped object)."""


def git_dir(repo: pygit2.Repository) -> str:
    """Return the absolute git directory of ``repo``, without a trailing separator."""
    return os.path.abspath(repo.path)


def refusal(raw_name: bytes, mode: int) -> str | None:
    """Return why an entry must not be written, or None if it is a file or directory we can create."""
    if not is_safe_name(raw_name):
        return "unsafe name"
    return mode_refusal(mode)


def mode_refusal(mode: int) -> str | None:
    """Return why an entry of ``mode`` must not be written (a link, a submodule...), or None."""
    kind = mode & TYPE_MASK
    if kind == SYMLINK:
        return "symlink"
    if kind == GITLINK:
        return "submodule"
    if kind not in (TREE, REGULAR):
        return "unsupported mode"
    return None


def is_safe_name(raw_name: bytes) -> bool:
    """Return whether a tree entry name is one plain path component that is not ``.git`` in any case.

    Refuses empty names, ``.`` and ``..``, names holding a separator or NUL, and ``.git`` with any casing
    or the trailing dots and spaces that Windows ignores.
    """
    if raw_name in (b"", b".", b"..") or b"/" in raw_name or b"\0" in raw_name:
        return False
    if os.altsep is not None and os.altsep.encode() in raw_name:
        return False
    return raw_name.rstrip(b". ").lower() != b".git"
