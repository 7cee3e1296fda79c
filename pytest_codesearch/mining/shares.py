"""Which commits of the walk each mining process examines: one contiguous range each.

Consecutive commits share trees, and a pack stores most objects as deltas against their neighbours in
history, so a process that examines a contiguous range reads and inflates each object once. Interleaved
blocks made every block start cold: on the benchmark history, blocks of 64 commits made the run about 7%
slower than one range per process. The number of commits to examine is only known once the whole walk has
been made, so process 0 starts at the newest commit at once, claiming a short lease at a time, while
process 1 counts, writing the id of every commit to examine to a file; process 1 then splits what process 0
has not claimed yet (``split_points``) and publishes the plan, which every process follows. The other
processes read their range's ids from that file instead of walking the history again (issue 12: on git's
history a walk costs 2.2 s of CPU, looking its commits up by id 0.9 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any

WALK_COST = 0.0
"""What a process other than 0 pays before its range, per commit of the walk, as a fraction of examining one:
nothing since they read their commits by id (``parallel.CommitIds``)."""
LEASE = 32
"""Positions process 0 claims at a time until the plan is made."""


@dataclass(frozen=True)
class Plan:
    """What the processes share: a lock, process 0's claim, where each range starts, and a "planned" event."""

    lock: Any
    claimed: Any
    """Positions process 0 may examine before the plan (a shared integer)."""
    bounds: Any
    """Shared integers: ``bounds[k]`` is where process ``k`` starts, ``bounds[-1]`` the end; ``bounds[1] < 0``
    until the plan is made."""
    ready: Any


def new_plan(context: BaseContext, workers: int) -> Plan:
    """Return the shared state of a run of ``workers`` processes, not yet planned."""
    bounds = context.Array("q", [0] + [-1] * workers, lock=False)
    claimed = context.Value("q", 0, lock=False)
    return Plan(context.Lock(), claimed, bounds, context.Event())


def split_points(claimed: int, total: int, workers: int, walk_cost: float = WALK_COST) -> list[int]:
    """Return ``[0, s1, ..., total]``: where each process's range starts, then the end, for equal finishing times.

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
    """The positions one process examines: a fixed range, or for process 0 a lease renewed until the plan.

    ``lead`` (tests) makes process 0 wait for the plan once it reaches that position, so that the split
    does not depend on timing.
    """

    def __init__(self, plan: Plan, index: int, lease: int = LEASE, lead: int | None = None) -> None:
        self._plan = plan
        self._lease = lease
        self._lead = lead
        self.start = 0
        """Positions before this one belong to other processes."""
        self._end = 0
        self._final = False
        if index > 0:
            plan.ready.wait()
            self.start, self._end, self._final = plan.bounds[index], plan.bounds[index + 1], True

    def covers(self, position: int) -> bool:
        """Return whether ``position`` (at least ``start``) is this process's to examine; False ends its walk."""
        if position < self._end:
            return True
        if self._final:
            return False
        if self._lead is not None and position >= self._lead:
            self._plan.ready.wait()
        with self._plan.lock:
            if self._plan.bounds[1] >= 0:
                self._end, self._final = self._plan.bounds[1], True
            else:
                self._end = position + self._lease
                self._plan.claimed.value = self._end
        return position < self._end


def publish_plan(plan: Plan, total: int, workers: int) -> None:
    """Split the ``total`` positions of the walk among ``workers`` processes and let them start."""
    with plan.lock:
        points = split_points(plan.claimed.value, total, workers)
        for index in range(1, workers + 1):
            plan.bounds[index] = points[index]
    plan.ready.set()
