"""The function and module documents of blobs, by blob id, in memory and on disk (issue 23 item 1).

bm25's function-level answers outline and tokenise the best files of every case
(:func:`~pytest_codesearch.agents.index.functions.entity_shapes`): parsing a large file costs tens of
milliseconds, and a gold set asks for the same blobs at many commits, in every run. A blob's shapes (each
definition's qualified name, kind, token counts and module) depend only on its content, the outline's language
(the file's extension) and the name weight, so they are kept by that key: in this process (the last
:data:`CACHED_BLOBS`), and in the shared index store's folder (``<cache_dir>/indexes/e3-<code digest>/``,
:func:`~pytest_codesearch.agents.index.indexstore.shared_index_store`), where a later run or another
xdist worker finds them. Files there are written atomically, never changed, and pruned with the indexes;
they hold the shapes in :mod:`marshal`'s format (counts as plain dicts), which loads without building
anything in Python, and a file that does not load as a list of 4-tuples is made again.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path

from pytest_codesearch import outline as outline_package
from pytest_codesearch.agents.index import tokenize
from pytest_codesearch.agents.index.filestore import FileStore, source_digest

FORMAT = "e3"
CACHED_BLOBS = 8192
"""Blobs whose shapes a process keeps in memory, least recently used dropped first."""

Shape = tuple[str, bool, Mapping[str, int], str]
"""What a file's entity document owes to its content alone: qualified name, whether a function, counts,
and the qualified name of its module."""
Key = tuple[str, str, int]
"""(blob id, language key of the file's extension, name weight)."""

_MEMORY: OrderedDict[Key, list[Shape]] = OrderedDict()


@lru_cache(maxsize=1)
def entity_digest() -> str:
    """Return a hash of the code that makes shapes: the outline package, the tokenizer, the functions module
    and the outlines derived from a file's last version (``pyoutlines.py``, ``mining/outline.py``)."""
    from pytest_codesearch.agents.index import functions, pyoutlines
    from pytest_codesearch.mining import outline as derived

    modules = (tokenize, functions, pyoutlines, derived, sys.modules[__name__])
    digest = hashlib.sha1(source_digest(*modules).encode(), usedforsecurity=False)
    digest.update(b"marshal %d python %d.%d" % (marshal.version, *sys.version_info[:2]))  # its file format
    for source in sorted(Path(outline_package.__file__ or "").parent.glob("*.py")):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def blob_shapes(key: Key, make: Callable[[], list[Shape] | None]) -> list[Shape] | None:
    """Return the shapes of ``key``: from memory, else the shared store, else ``make()`` (saved; None: the
    blob could not be read, nothing is remembered)."""
    found = _MEMORY.pop(key, None)
    if found is None:
        found = _load(key)
    if found is None:
        found = make()
        if found is None:
            return None
        _save(key, found)
    _MEMORY[key] = found
    while len(_MEMORY) > CACHED_BLOBS:
        _MEMORY.popitem(last=False)
    return found


def _path(root: Path, key: Key) -> Path:
    blob, language, weight = key
    return root / f"{FORMAT}-{entity_digest()}" / blob[:2] / f"{blob[2:]}-{language}-{weight}"


_STORES: dict[int, tuple[object, FileStore]] = {}


def entity_store() -> FileStore | None:
    """Return the store of shapes: files in the shared index store's folder, counted apart from its
    indexes (``loaded`` and ``saved``); None when there is no shared index store."""
    from pytest_codesearch.agents.index.indexstore import shared_index_store

    indexes = shared_index_store()
    if indexes is None:
        return None
    found = _STORES.get(id(indexes))
    if found is None or found[0] is not indexes:
        _STORES.clear()
        found = _STORES[id(indexes)] = (indexes, FileStore(indexes.root, indexes.limit))
    return found[1]


def _load(key: Key) -> list[Shape] | None:
    """Return the stored shapes of ``key``, or None when there are none (or they are unreadable)."""
    store = entity_store()
    if store is None:
        return None
    data = store.read(_path(store.root, key))
    if data is None:
        return None
    try:
        rows = marshal.loads(data)
    except (ValueError, EOFError, TypeError):  # cut short, or not ours: make it again
        return None
    if not isinstance(rows, list) or not all(isinstance(row, tuple) and len(row) == 4 for row in rows):
        return None
    store.loaded += 1
    return rows


def _save(key: Key, shapes: list[Shape]) -> None:
    """Store ``shapes`` under ``key`` in the shared index store's folder, atomically; errors are ignored."""
    store = entity_store()
    if store is None:
        return
    rows = [(name, function, dict(counts), module) for name, function, counts, module in shapes]
    store.write(_path(store.root, key), marshal.dumps(rows))
