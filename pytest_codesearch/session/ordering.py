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
