"""Which commits of the walk each mining process examines: contiguous ranges, rebalanced by stealing.

Consecutive commits share trees, and a pack stores most objects as deltas against their neighbours in
history, so a process that examines a contiguous range reads and inflates each object once. Interleaved
blocks made every block start cold: on the benchmark history, blocks of 64 commits made the run about 7%
slower than one range per process. The number of commits to examine is only known once the whole walk has
been made, so process 1 walks, writing the id of every commit to examine to a file, and process 0 starts
at the newest commit as soon as the file holds it, reading its commits from the file as it grows and
claiming a short lease at a time; process 1 then splits what process 0 has not claimed yet
(``split_points``) and publishes the plan. The other processes read their range's ids from that file too
instead of walking the history again (issue 12: on git's history a walk costs 2.2 s of CPU, looking its
commits up by id 0.9 s; issue 23: process 0 no longer walks it as well).

Equal ranges do not take equal times: on git's history the newest half of the commits cost a third more
than the oldest half (larger trees and files), so one process idled for a quarter of the run. Every
process therefore claims its range a lease at a time, and a process whose range is done takes the second
half of what another has not claimed yet (``Share.steal``), as long as that is worth a cold start.
"""

from __future__ import annotations

from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any

WALK_COST = 0.0
"""What a process other than 0 pays before its range, per commit of the walk, as a fraction of examining one:
nothing since they read their commits by id (``parallel._listed_commits``)."""
LEASE = 32
"""Positions a process claims at a time: what another process may not take from it."""
SMALLEST_STEAL = 32
"""Fewest positions worth taking from another process: a new range starts with cold caches."""


@dataclass(frozen=True)
class Plan:
    """What the processes share: a lock, each one's claim and range end, and a "planned" event."""

    lock: Any
    claimed: Any
    """Shared integers: ``claimed[k]`` is where process ``k``'s lease ends (positions it may examine)."""
    ends: Any
    """Shared integers: ``ends[k]`` is where process ``k``'s current range ends; ``ends[0] < 0`` until the
    plan is made (process 0's first range is open-ended until then)."""
    starts: Any
    """Shared integers: ``starts[k]`` is where process ``k`` (``k > 0``) starts, set by the plan."""
    ready: Any
    total: Any = None
    """Shared integer: the commits examined, set by the plan (-1 before)."""


def new_plan(context: BaseContext, workers: int) -> Plan:
    """Return the shared state of a run of ``workers`` processes, not yet planned."""
    claimed = context.Array("q", [0] * workers, lock=False)
    ends = context.Array("q", [-1] * workers, lock=False)
    starts = context.Array("q", [0] * workers, lock=False)
    return Plan(context.Lock(), claimed, ends, starts, context.Event(), context.Value("q", -1, lock=False))


def split_points(claimed: int, total: int, workers: int, walk_cost: float = WALK_COST) -> list[int]:
    """Return ``[0, s1, ..., total]``: where each process's range starts, then the end, for equal shares.

    Process 0 has ``claimed`` positions already and goes on from there: it gets ``c`` more. Every other
    process starts when the plan is made; ``walk_cost * total`` commits examined is what each must pay
    before its range (nothing by default: they read their commits by id), and it gets ``c`` minus that.
    """
    if workers < 2:
        return [0, total]
    first = min(max(claimed, 0), total)
    walk = walk_cost * total
    share = max((total - first + (workers - 1) * walk) / workers, 0.0)
    points = [0]
    for index in range(1, workers):
        start = first + share + (index - 1) * (share - walk)
        points.append(min(max(round(start), points[-1], first), total))
    return [*points, total]


class Share:
    """The positions one process examines: its current range, claimed a lease at a time.

    ``lead`` (tests) makes process 0 wait for the plan once it reaches that position, so that the split
    does not depend on timing.
    """

    def __init__(self, plan: Plan, index: int, lease: int = LEASE, lead: int | None = None) -> None:
        self._plan = plan
        self._index = index
        self._lease = lease
        self._lead = lead
        self.start = 0
        """Where the current range starts: positions before it belong to other ranges."""
        self._claimed = 0
        if index > 0:
            plan.ready.wait()
            self.start = self._claimed = plan.starts[index]

    def covers(self, position: int) -> bool:
        """Return whether ``position`` (at least ``start``) is in this process's range; False ends the range."""
        if position < self._claimed:
            return True
        if self._lead is not None and position >= self._lead:
            self._plan.ready.wait()
        plan = self._plan
        with plan.lock:
            end = plan.ends[self._index]
            if 0 <= end <= position:
                return False
            self._claimed = position + self._lease if end < 0 else min(position + self._lease, end)
            plan.claimed[self._index] = self._claimed
        return True

    def steal(self) -> bool:
        """Take the second half of the most another process has left unclaimed; False when none is worth it.

        Call it once the current range is done; on True, ``start`` is where the new range starts.
        """
        plan = self._plan
        with plan.lock:
            plan.ends[self._index] = plan.claimed[self._index] = self._claimed  # nothing left here to take
            victim, left = -1, 2 * SMALLEST_STEAL - 1
            for index in range(len(plan.ends)):
                unclaimed = plan.ends[index] - plan.claimed[index]
                if index != self._index and plan.ends[index] >= 0 and unclaimed > left:
                    victim, left = index, unclaimed
            if victim < 0:
                return False
            end = plan.ends[victim]
            self.start = self._claimed = end - left // 2
            plan.ends[victim] = self.start
            plan.ends[self._index], plan.claimed[self._index] = end, self.start
        return True


def planned_total(plan: Plan) -> int | None:
    """Return the commits examined once the plan is made, else None (a process's lease may reach past the
    positions, so the ranges' ends do not say it)."""
    if not plan.ready.is_set() or plan.total is None:
        return None
    return int(plan.total.value)


def publish_plan(plan: Plan, total: int, workers: int, examined: int | None = None) -> None:
    """Split the ``total`` positions of the walk among ``workers`` processes and let them start.

    ``examined`` (``total`` by default) is how many commits are examined, positions and merge commits
    left out of them alike: what progress shows as the total.
    """
    with plan.lock:
        if plan.total is not None:
            plan.total.value = total if examined is None else examined
        points = split_points(plan.claimed[0], total, workers)
        plan.ends[0] = points[1]
        for index in range(1, workers):
            plan.starts[index] = plan.claimed[index] = points[index]
            plan.ends[index] = points[index + 1]
    plan.ready.set()
