"""Which cases run: the first N after the seeded shuffle, or a seeded sample across strata.

Both work on keys alone and return positions, so every xdist worker, given the same collected items and
seed, keeps the same ones (workers must collect identical lists)::

    keep = first_cases([("a.jsonl", "c1"), ("a.jsonl", "c1"), ("a.jsonl", "c2")], limit=1)   # [0, 1]
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")

def first_cases(cases: Sequence[Hashable], limit: int) -> list[int]:
    """Return the positions of the entries of the first ``limit`` distinct cases, in order.

    A case appears once per agent; all its entries are kept or dropped together.
    """
    kept: set[Hashable] = set()
    positions: list[int] = []
    for position, case in enumerate(cases):
        if case not in kept and len(kept) < limit:
            kept.add(case)
        if case in kept:
            positions.append(position)
    return positions


def stratified_cases(cases: Sequence[Hashable], strata: Sequence[Hashable], limit: int, seed: int) -> list[int]:
    """Return the positions of the entries of ``limit`` cases taken in turn from each stratum, in order.

    Strata (e.g. (repository, complexity)) come in a seeded order, the cases of each in a seeded order;
    one case is taken from each stratum in turn until ``limit`` are taken, so small strata are all
    represented before large ones give a second case. The same inputs and seed give the same positions.
    """
    rng = random.Random(seed)
    groups: dict[Hashable, list[Hashable]] = {}
    for case, stratum in zip(cases, strata):
        members = groups.setdefault(stratum, [])
        if case not in members:
            members.append(case)
    order = sorted(groups, key=repr)
    rng.shuffle(order)
    queues = [sorted(groups[s], key=repr) for s in order]
    for queue in queues:
        rng.shuffle(queue)
    chosen: set[Hashable] = set()
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.add(queue.pop(0))
    return [position for position, case in enumerate(cases) if case in chosen]


def limit_items(items: Sequence[T], limit: int, sample: str, seed: int) -> tuple[list[T], list[T]]:
    """Return (kept, dropped): the entries of ``limit`` benchmark cases of ``items`` and the rest.

    ``sample`` is ``first`` (the first cases in the current order) or ``stratified`` (strata are
    (repository, complexity)). Items that are not cases (broken gold-set entries) are always kept.
    """
    slots = [i for i, item in enumerate(items) if hasattr(item, "spec") and hasattr(item, "choice")]
    specs = [getattr(items[i], "spec") for i in slots]
    cases = [(spec.goldset, spec.case.id) for spec in specs]
    if sample == "stratified":
        strata = [(str(spec.repo), spec.case.complexity or "") for spec in specs]
        chosen = stratified_cases(cases, strata, limit, seed)
    else:
        chosen = first_cases(cases, limit)
    dropped_slots = set(slots).difference(slots[p] for p in chosen)
    kept = [item for i, item in enumerate(items) if i not in dropped_slots]
    return kept, [items[i] for i in sorted(dropped_slots)]
