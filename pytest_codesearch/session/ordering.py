"""The run order: a seeded shuffle of snapshots, then of the cases within each snapshot."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def shuffled_order(keys: Sequence[tuple[Any, Any]], seed: int) -> list[int]:
    """Return positions of ``keys`` ((snapshot, case) pairs) in run order.

    Snapshots come in a seeded random order, cases in a seeded random order within their snapshot,
    and the entries of one case (one per agent) stay together in their original order. The same
    keys and seed always give the same order, on every xdist worker.
    """
    rng = random.Random(seed)
    groups: dict[Any, dict[Any, list[int]]] = {}
    for position, (snapshot, case) in enumerate(keys):
        groups.setdefault(snapshot, {}).setdefault(case, []).append(position)
    snapshots = sorted(groups, key=repr)
    rng.shuffle(snapshots)
    order: list[int] = []
    for snapshot in snapshots:
        cases = sorted(groups[snapshot], key=repr)
        rng.shuffle(cases)
        for case in cases:
            order.extend(groups[snapshot][case])
    return order


def order_items(items: Sequence[T], seed: int) -> list[T]:
    """Return ``items`` with the benchmark cases reordered in place of each other; others keep their slots."""
    slots = [i for i, item in enumerate(items) if hasattr(item, "spec") and hasattr(item, "choice")]
    keys = [
        (items[i].spec.snapshot_key, (items[i].spec.goldset, items[i].spec.case.id))  # type: ignore[attr-defined]
        for i in slots
    ]
    result = list(items)
    for slot, position in zip(slots, shuffled_order(keys, seed)):
        result[slot] = items[slots[position]]
    return result


def history_order(items: Sequence[T], seed: int) -> list[T]:
    """Return ``items`` with the snapshots of each repository in commit-time order, repositories in a
    seeded order; the cases of one snapshot keep their order, other items their slots.

    The run executes in this order (its selection is taken from the seeded shuffle before): consecutive
    snapshots of one history share most of their files, so a built-in agent derives each index from the
    one before instead of building it anew. A snapshot whose commit cannot be dated goes first.
    """
    slots = [i for i, item in enumerate(items) if hasattr(item, "spec") and hasattr(item, "choice")]
    keys = [items[i].spec.snapshot_key for i in slots]  # type: ignore[attr-defined]
    times = commit_times(keys)
    repos = sorted({repo for repo, _ in keys})
    random.Random(seed).shuffle(repos)
    place = {repo: n for n, repo in enumerate(repos)}
    first_seen = {key: n for n, key in reversed(list(enumerate(keys)))}
    order = sorted(range(len(slots)), key=lambda n: (place[keys[n][0]], times[keys[n]], first_seen[keys[n]], n))
    result = list(items)
    for slot, position in zip(slots, order):
        result[slot] = items[slots[position]]
    return result


def commit_times(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Return the commit time of each (repository, revision); 0 for a working tree or an unknown revision."""
    import pygit2

    times: dict[tuple[str, str], int] = {}
    opened: dict[str, Any] = {}
    for repo, revision in set(keys):
        times[(repo, revision)] = 0
        if not revision:
            continue
        try:
            if repo not in opened:
                found = pygit2.discover_repository(repo)
                opened[repo] = None if found is None else pygit2.Repository(found)
            if opened[repo] is not None:
                times[(repo, revision)] = int(opened[repo].revparse_single(revision).peel(pygit2.Commit).commit_time)
        except (pygit2.GitError, KeyError, ValueError):
            continue
    return times
