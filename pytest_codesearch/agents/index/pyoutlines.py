"""The definitions of the files bm25 answers functions for, a Python file's derived from its last version.

bm25's function documents outline the best files of every case
(:func:`~pytest_codesearch.agents.index.functions.entity_shapes`), and on a cold run parsing them with ``ast``
is the largest single cost. Cases of one repository ask for many versions of the same files, so the
outline of a Python file is derived from the one of a version outlined before at the same path, as the
miner derives a parent's outline from its child's (``mining/outline.py``: the hunks between the two
versions, from libgit2's diff, leave runs of whole top-level statements and class members alike; only
the pieces around the changes are parsed). That gives what parsing the whole file gives, definition for
definition (``tests/test_mining_outline.py``, ``tests/test_entity_store.py``); a file that is not cut
(``sliceable``), or whose pieces do not parse, is parsed whole. Other languages are outlined as before.

The last :data:`KEPT_VERSIONS` versions of each path are kept with their outlines while their bytes fit
:data:`KEPT_BYTES`, the least recently outlined path dropped first; a new version is derived from the one
sharing the most distinct lines with it. The cases come in a seeded random order, so the last version is
seldom the nearest: on a cold SWE-bench Lite run, the 2,000 versions derived differ from the last version
of their path by 405k lines in all, from the nearest of the last four by 255k.
"""

from __future__ import annotations

from collections import OrderedDict

from pytest_codesearch.mining.outline import Outline, derive_outline, parse_outline, sliceable
from pytest_codesearch.mining.spans import diff_hunks
from pytest_codesearch.outline import keep_outline, language_of, outline
from pytest_codesearch.outline.model import Definition, FileOutline

KEPT_BYTES = 1 << 26
"""Bytes of last versions kept to derive the next version's outline from (64 MB)."""
KEPT_VERSIONS = 4
"""Versions kept for each path: a new one is derived from the kept one sharing the most lines with it."""

_KEPT: OrderedDict[str, list[tuple[bytes, Outline]]] = OrderedDict()
_kept_bytes = [0]
derived = [0]
"""Python files outlined from a kept version so far (tests read it)."""


def file_definitions(path: str, data: bytes) -> tuple[Definition, ...]:
    """Return ``outline(path, data).definitions``; a Python file's derived from the kept version of
    ``path`` nearest to it when one is kept (see the module)."""
    if language_of(path) != "python" or not sliceable(data):
        return outline(path, data).definitions
    versions = _KEPT.pop(path, [])
    _kept_bytes[0] -= sum(len(version) for version, _ in versions)
    same = [found for version, found in versions if version == data]
    if same:
        found: Outline | None = same[0]
    elif not versions:
        found = parse_outline(data)
    else:
        base, kept = _nearest(data, versions)
        found = derive_outline(data, base, kept, diff_hunks(data, base))
        derived[0] += 1
    if found is not None and not same:
        versions = [*versions, (data, found)][-KEPT_VERSIONS:]
    _keep(path, versions)
    if found is None:  # does not parse: what ``outline`` recovers (tree-sitter's reading)
        return outline(path, data).definitions
    keep_outline(path, data, FileOutline("python", found.definitions))  # scoring outlines the same files
    return found.definitions


def _nearest(data: bytes, versions: list[tuple[bytes, Outline]]) -> tuple[bytes, Outline]:
    """Return the version sharing the most distinct lines with ``data`` (the latest of those that tie)."""
    if len(versions) == 1:
        return versions[0]
    lines = set(data.split(b"\n"))
    return max(reversed(versions), key=lambda version: len(lines.intersection(version[0].split(b"\n"))))


def _keep(path: str, versions: list[tuple[bytes, Outline]]) -> None:
    """Keep ``versions`` (with their outlines) as the last of ``path``, within :data:`KEPT_BYTES`."""
    if not versions:
        return
    _KEPT[path] = versions
    _kept_bytes[0] += sum(len(version) for version, _ in versions)
    while _kept_bytes[0] > KEPT_BYTES and len(_KEPT) > 1:
        _kept_bytes[0] -= sum(len(version) for version, _ in _KEPT.popitem(last=False)[1])


def forget_outlines() -> None:
    """Drop every kept version (as a new process starts)."""
    _KEPT.clear()
    _kept_bytes[0] = 0
