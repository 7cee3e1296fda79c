"""``--codesearch-shard I/N``: a deterministic, snapshot-balanced 1/N of the items, the same on every machine.

Items are grouped by the snapshot they search (their xdist group), so a snapshot is listed and
indexed on one shard only; a group larger than a fair share (ceil(items / N)) is cut into chunks of
that size, by item id, so one big snapshot still spreads over the shards. Groups are dealt largest
first to the shard with the fewest items so far (ties: the lower shard number, then the group
name), which depends only on the collected items, not on the seed, the machine or the order pytest
found the files in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def assign_shards(groups: dict[str, int], count: int) -> dict[str, int]:
    """Return group -> shard (1-based) dealing the groups, largest first, to the least-loaded shard."""
    loads = [0] * count
    assigned: dict[str, int] = {}
    for name, size in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])):
        shard = min(range(count), key=lambda s: (loads[s], s))
        loads[shard] += size
        assigned[name] = shard + 1
    return assigned


def select_shard(
    items: Sequence[T], index: int, count: int, group_of: Callable[[T], str], id_of: Callable[[T], str]
) -> tuple[list[T], list[T]]:
    """Return (kept, deselected): the items whose chunk ``assign_shards`` gives to shard ``index``."""
    groups: dict[str, list[str]] = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(id_of(item))
    fair = max(1, -(-len(items) // count))
    chunk_of: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for group, ids in groups.items():
        for start in range(0, len(ids), fair):
            chunk = f"{group}#{start // fair}"
            members = sorted(ids)[start : start + fair]
            sizes[chunk] = len(members)
            chunk_of.update(dict.fromkeys(members, chunk))
    shard_of = assign_shards(sizes, count)
    kept = [item for item in items if shard_of[chunk_of[id_of(item)]] == index]
    dropped = [item for item in items if shard_of[chunk_of[id_of(item)]] != index]
    return kept, dropped
