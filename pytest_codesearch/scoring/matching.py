"""How returned paths and symbols match ground truth: ``exact`` (the default) or ``substring``.

A gold set chooses its rule with ``match`` in its metadata (YAML query files use ``substring``). Matching
maps an answer onto the ground-truth entries before scoring, so every metric keeps its definition::

    match_paths(["src/physics/collision.cpp", "README.md"], ["collision.cpp"], "substring")
    # -> ["collision.cpp", "README.md"]: the first path is credited to the entry it contains

Under ``substring`` an entry is found by a returned path that contains it; each entry is credited once,
at the first rank that finds it, so a metric never exceeds its value for a perfect answer.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Literal

MatchMode = Literal["exact", "substring"]
"""The matching rules a gold set may choose."""


def match_paths(returned: Sequence[str], truth: Iterable[str], mode: MatchMode) -> list[str]:
    """Return ``returned`` with each path that finds a ground-truth entry replaced by that entry.

    ``exact``: unchanged. ``substring``: a path equal to an entry keeps it; then, in rank order, each
    other path takes the longest not yet credited entry it contains. Paths that find none stay as they
    are (and score as misses).
    """
    if mode == "exact":
        return list(returned)
    entries = frozenset(truth)
    open_entries = entries.difference(returned)
    by_length = sorted(open_entries, key=lambda entry: (-len(entry), entry))
    mapped = list(returned)
    for index, path in enumerate(returned):
        if path in entries:
            continue
        found = next((entry for entry in by_length if entry in open_entries and entry in path), None)
        if found is not None:
            open_entries = open_entries - {found}
            mapped[index] = found
    return mapped


def match_symbols(
    returned: Sequence[str], positives: Collection[str], hard_negatives: Collection[str], mode: MatchMode
) -> list[str]:
    """Return ``returned`` with each symbol that finds a positive (else a hard negative) replaced by it.

    ``exact``: unchanged. ``substring``: a returned name finds an expected one that it contains, ignoring
    case (``Physics::DetectCollision`` finds ``detectcollision``).
    """
    if mode == "exact":
        return list(returned)
    lowered = [(name.lower(), name) for group in (positives, hard_negatives) for name in sorted(group)]
    return [next((name for low, name in lowered if low in symbol.lower()), symbol) for symbol in returned]


def files_matching(entry: str, files: Collection[str], mode: MatchMode) -> list[str]:
    """Return the files of the tree that ``entry`` can be found by, in name order (none: a broken case).

    ``exact``: the entry itself when the tree holds it. ``substring``: the same, else every file whose
    path contains the entry (``hashing.py`` is found by ``auth/hashing.py``).
    """
    if entry in files:
        return [entry]
    if mode == "exact":
        return []
    return sorted(path for path in files if entry in path)


def unmatched_truth(truth: Iterable[str], files: Collection[str], mode: MatchMode) -> list[str]:
    """Return the ground-truth entries no file of the tree can match (a broken case under either rule)."""
    return [entry for entry in truth if not files_matching(entry, files, mode)]
