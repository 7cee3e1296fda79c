"""Which cases run, in which order: the seeded shuffle, the first N or a seeded sample across strata, a shard,
what a resumed run still owes.

Everything works on keys alone, so every xdist worker and every shard, given the same collected items and
seed, keeps the same ones (workers must collect identical lists)::

    keep = first_cases([("a.jsonl", "c1"), ("a.jsonl", "c1"), ("a.jsonl", "c2")], limit=1)   # [0, 1]
"""

from __future__ import annotations

import random
from collections.abc import Collection, Hashable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pytest_codesearch.settings.model import Settings

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


def select_items(
    items: Sequence[T],
    settings: Settings,
    seed: int,
    *,
    skip: Collection[str] = (),
    universe: Collection[str] | None = None,
) -> tuple[list[T], list[T]]:
    """Return (kept, deselected): the run's items in run order, the same on every xdist worker and shard.

    In this order: the seeded shuffle (unless ``randomize`` is off), ``--codesearch-limit`` over the whole
    benchmark, ``--codesearch-shard`` of what the limit kept, then, when resuming, the items outside the
    interrupted run's ``universe`` and those whose records it already holds (``skip``, node ids without
    ``@group``). So a resumed run finishes the interrupted selection and never adds a case, and a limit
    split over shards totals the limit.
    """
    from pytest_codesearch.nodeids import base_nodeid
    from pytest_codesearch.session.ordering import order_items
    from pytest_codesearch.session.shard import select_shard

    kept = order_items(items, seed) if settings.randomize else list(items)
    dropped: list[T] = []
    if settings.limit is not None:
        kept, out = limit_items(kept, settings.limit, settings.sample, seed)
        dropped += out
    if settings.shard is not None:
        kept, out = select_shard(kept, *settings.shard, group_of=_shard_group, id_of=lambda i: base_nodeid(_id(i)))
        dropped += out
    if universe is not None or skip:
        out = [i for i in kept if base_nodeid(_id(i)) in skip or (universe is not None and _outside(i, universe))]
        chosen = set(map(id, out))
        kept, dropped = [i for i in kept if id(i) not in chosen], dropped + out
    return kept, dropped


def _id(item: object) -> str:
    return str(getattr(item, "nodeid"))


def _outside(item: object, universe: Collection[str]) -> bool:
    """Return True for a case item whose id the interrupted run did not select (broken entries always run)."""
    from pytest_codesearch.nodeids import base_nodeid

    return hasattr(item, "spec") and base_nodeid(_id(item)) not in universe


def _shard_group(item: object) -> str:
    """Return the snapshot an item searches (broken gold-set entries go with their file)."""
    spec = getattr(item, "spec", None)
    if spec is None:
        return f"file:{getattr(item, 'path')}"
    from pytest_codesearch.session.items import snapshot_group

    return snapshot_group(spec)
