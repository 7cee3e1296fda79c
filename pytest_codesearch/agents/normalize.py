"""Turn an agent's ranked answer into paths of the snapshot it searched, before anything is scored."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePath


@dataclass(frozen=True)
class NormalizedAnswer:
    """An answer reduced to snapshot paths.

    ``paths`` keeps the agent's order with each path once (at its first rank); ``directories`` says which
    of them are directories; ``dropped`` holds the raw entries that name nothing in the snapshot;
    ``sources[i]`` is the position in the raw answer that ``paths[i]`` came from.
    """

    paths: list[str]
    directories: frozenset[str]
    dropped: list[str]
    sources: list[int]


def normalize_paths(
    raw: Sequence[str],
    snapshot_root: Path,
    files: AbstractSet[str],
    directories: AbstractSet[str],
    also_root: Path | None = None,
) -> NormalizedAnswer:
    """Clean an agent's ranked answer: posix separators, no leading './', absolute paths made relative
    to the snapshot root, trailing '/' removed, duplicates keep their first rank, entries not in the snapshot dropped.

    Each entry is first taken exactly as given; only if that names nothing is it retried with surrounding
    whitespace stripped and backslashes read as separators. ``..`` segments are resolved lexically and an
    entry that leaves the root (or is the root itself) is dropped. Comparison is case-sensitive.
    """
    roots = _root_forms(os.fspath(snapshot_root))
    if also_root is not None:  # a working tree searched through a linked copy: its own paths count too
        roots += _root_forms(os.fspath(also_root))
    paths: list[str] = []
    sources: list[int] = []
    seen: set[str] = set()
    dropped: list[str] = []
    for position, entry in enumerate(raw):
        path = _locate(entry, roots, files, directories)
        if path is None:
            dropped.append(entry)
        elif path not in seen:
            seen.add(path)
            paths.append(path)
            sources.append(position)
    found_directories = frozenset(path for path in paths if path in directories)
    return NormalizedAnswer(paths, found_directories, dropped, sources)


def normalize_entities(
    raw: Sequence[str], snapshot_root: Path, files: AbstractSet[str], also_root: Path | None = None
) -> tuple[list[str], list[str]]:
    """Clean ranked entities (``path.py:Qualified.name``) by the rules of :func:`normalize_paths`, applied
    to their path: return the kept entities (each once, at its first rank) and the dropped raw entries.

    An entity is dropped when it has no ``path:`` part or its path names no file of the snapshot.
    """
    roots = _root_forms(os.fspath(snapshot_root))
    if also_root is not None:
        roots += _root_forms(os.fspath(also_root))
    kept: dict[str, None] = {}
    dropped: list[str] = []
    for entry in raw:
        located = _entity_path(entry, roots, files)
        if located is None:
            dropped.append(entry)
        else:
            kept.setdefault(f"{located[0]}:{located[1]}", None)
    return list(kept), dropped


def _entity_path(entry: str, roots: tuple[str, ...], files: AbstractSet[str]) -> tuple[str, str] | None:
    """Return the snapshot path and the name of ``path:Qualified.name``, or None.

    The path ends at the first colon after which a file of the snapshot is named: C++ and Rust names
    hold colons (``a.cpp:ns::f``), and so do Windows paths (``C:/repo/a.py:f``).
    """
    at = entry.find(":")
    while at >= 0:
        name = entry[at + 1 :].strip()
        found = _locate(entry[:at], roots, files, frozenset()) if name else None
        if found is not None:
            return found, name
        at = entry.find(":", at + 1)
    return None


def _locate(entry: str, roots: tuple[str, ...], files: AbstractSet[str], directories: AbstractSet[str]) -> str | None:
    """Return the snapshot path ``entry`` names, or None."""
    if entry in files and not _is_absolute(entry):  # the usual answer: a snapshot path already (files are
        return entry  # normalised relative paths, which ``_relative`` gives back as they are)
    for candidate in _spellings(entry):
        path = _relative(candidate, roots)
        if path is not None and (path in files or path in directories):
            return path
    return None


def _spellings(entry: str) -> Iterator[str]:
    """Yield ``entry`` as given, then its lenient form if that differs."""
    yield entry
    lenient = entry.strip().replace("\\", "/")
    if lenient != entry:
        yield lenient


@lru_cache(maxsize=64)
def _root_forms(snapshot_root: str) -> tuple[str, ...]:
    """Return the posix spellings of the root an agent may use: as given and with symlinks resolved."""
    given = posixpath.normpath(PurePath(os.path.abspath(snapshot_root)).as_posix())
    real = posixpath.normpath(PurePath(os.path.realpath(snapshot_root)).as_posix())
    return (given,) if given == real else (given, real)


def _relative(entry: str, roots: Sequence[str]) -> str | None:
    """Return ``entry`` as a normalised posix path relative to one of ``roots``, or None if it lies outside.

    ``roots`` are absolute, normalised posix paths. ``"./a//b/../c/"`` gives ``"a/c"``; the root itself
    and anything above it give None.
    """
    if not entry:
        return None
    path = posixpath.normpath(entry)
    if path.startswith("//"):  # normpath keeps exactly two leading slashes (POSIX allows them a meaning)
        path = "/" + path.lstrip("/")
    if _is_absolute(path):
        relative = _strip_root(path, roots)
        if relative is None:
            return None
        path = relative
    if path in (".", "..") or path.startswith("../"):
        return None
    return path


def _is_absolute(path: str) -> bool:
    """Return whether ``path`` is absolute in posix form (``/x``) or as a Windows drive path (``C:/x``)."""
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] == "/")


def _strip_root(path: str, roots: Sequence[str]) -> str | None:
    """Return ``path`` relative to the first root that contains it ("." for a root itself), else None."""
    for root in roots:
        prefix = root.rstrip("/") + "/"
        if path == root:
            return "."
        if path.startswith(prefix):
            return path[len(prefix) :]
    return None
