"""The definitions of the files bm25 answers functions for, a Python file's derived from its last version.

bm25's function documents outline the best files of every case
(:func:`~pytest_codesearch.agents.index.functions.entity_shapes`), and on a cold run parsing them with ``ast``
is the largest single cost. Cases of one repository ask for many versions of the same files, so the
outline of a Python file is derived from the one of the last version outlined at the same path, as the
miner derives a parent's outline from its child's (``mining/outline.py``: the hunks between the two
versions, from libgit2's diff, leave runs of whole top-level statements and class members alike; only
the pieces around the changes are parsed). That gives what parsing the whole file gives, definition for
definition (``tests/test_mining_outline.py``, ``tests/test_entity_store.py``); a file that is not cut
(``sliceable``), or whose pieces do not parse, is parsed whole. Other languages are outlined as before.

The last version of each path is kept with its outline while their bytes fit :data:`KEPT_BYTES`, the
least recently outlined path dropped first.
"""

from __future__ import annotations

from collections import OrderedDict

from pytest_codesearch.mining.outline import Outline, derive_outline, parse_outline, sliceable
from pytest_codesearch.mining.spans import diff_hunks
from pytest_codesearch.outline import keep_outline, language_of, outline
from pytest_codesearch.outline.model import Definition, FileOutline

KEPT_BYTES = 1 << 26
"""Bytes of last versions kept to derive the next version's outline from (64 MB)."""

_KEPT: OrderedDict[str, tuple[bytes, Outline]] = OrderedDict()
_kept_bytes = [0]
derived = [0]
"""Python files outlined from a kept version so far (tests read it)."""


def file_definitions(path: str, data: bytes) -> tuple[Definition, ...]:
    """Return ``outline(path, data).definitions``; a Python file's derived from the last version outlined
    at ``path`` when one is kept (see the module)."""
    if language_of(path) != "python" or not sliceable(data):
        return outline(path, data).definitions
    kept = _KEPT.pop(path, None)
    if kept is not None:
        _kept_bytes[0] -= len(kept[0])
    if kept is None:
        found = parse_outline(data)
    elif kept[0] == data:
        found = kept[1]
    else:
        found = derive_outline(data, kept[0], kept[1], diff_hunks(data, kept[0]))
        derived[0] += 1
    if found is None:  # does not parse: what ``outline`` recovers (tree-sitter's reading)
        return outline(path, data).definitions
    _keep(path, data, found)
    keep_outline(path, data, FileOutline("python", found.definitions))  # scoring outlines the same files
    return found.definitions


def _keep(path: str, data: bytes, found: Outline) -> None:
    """Keep ``data`` and its outline as the last version of ``path``, within :data:`KEPT_BYTES`."""
    _KEPT[path] = (data, found)
    _kept_bytes[0] += len(data)
    while _kept_bytes[0] > KEPT_BYTES and len(_KEPT) > 1:
        _kept_bytes[0] -= len(_KEPT.popitem(last=False)[1][0])


def forget_outlines() -> None:
    """Drop every kept version (as a new process starts)."""
    _KEPT.clear()
    _kept_bytes[0] = 0
