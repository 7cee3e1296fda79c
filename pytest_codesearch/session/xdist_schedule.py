"""``-n N --dist loadgroup`` for gold sets of many snapshots: xdist's group scheduling in linear time.

Every case of one snapshot carries the snapshot's ``xdist_group``, so a gold set mined from a history
has about as many groups as cases. pytest-xdist's ``LoadGroupScheduling`` keeps every group a worker
ever ran and, after each finished item, counts the pending items of all of them; it also finds each
item's position with ``list.index``. Both grow with the run, so the controller's work is quadratic:
scheduling 10,000 groups of 2 items costs it 21 s of CPU (``benchmarks/bench_xdist_schedule.py``).
This subclass forgets a group once all its items are done and looks positions up in a dict: the same
groups, sent in the same order, in constant time per item (0.12 s for those 10,000 groups). It also
keeps a worker two items ahead, which a worker needs to go on, and does not run again the item a
crashed worker died on (see ``_reschedule`` and ``remove_node``).
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler.loadgroup import LoadGroupScheduling  # type: ignore[import-untyped]


class SnapshotGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]  # xdist is untyped for mypy
    """``LoadGroupScheduling`` that drops finished groups and indexes each worker's collection once."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._positions: dict[Any, dict[str, int]] = {}

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        """Mark the item done; forget its group once every item of it is done, then refill the worker."""
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        assigned = self.assigned_work[node]
        unit = assigned[scope]
        unit[nodeid] = True
        if all(unit.values()):
            del assigned[scope]
        self._reschedule(node)

    def _assign_work_unit(self, node: Any) -> None:
        """Send the next group to ``node``, finding its items' positions by dict, not ``list.index``."""
        scope, unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = unit
        positions = self._positions.get(node)
        if positions is None:
            positions = {nodeid: i for i, nodeid in enumerate(self.registered_collections[node])}
            self._positions[node] = positions
        node.send_runtest_some([positions[nodeid] for nodeid, done in unit.items() if not done])

    def _reschedule(self, node: Any) -> None:
        """Keep ``node`` at least two items ahead, and tell it to stop once the queue is empty.

        A worker holds back its last item until it knows the next one (pytest's ``nextitem``), so a
        worker left with one item and no more coming waits for ever: xdist's version can leave a
        replacement worker so when the group it is given has one item left.
        """
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        if self._pending_of(self.assigned_work[node]) > 2:
            return
        self._assign_work_unit(node)
        while self.workqueue and self._pending_of(self.assigned_work[node]) < 2:
            self._assign_work_unit(node)
        if not self.workqueue:
            node.shutdown()

    def remove_node(self, node: Any) -> str | None:
        """Take a finished or crashed worker out; return the item it died on, which is not run again.

        xdist's own version puts the crashed item back in the queue with the rest of its group, so each
        replacement worker runs it first and dies too, until ``--max-worker-restart`` ends the run with
        the group's other cases unrun. Here the crashed item is reported once (by xdist, as a crash)
        and only the group's remaining items go back to the front of the queue.
        """
        self._positions.pop(node, None)
        workload: dict[str, dict[str, bool]] = self.assigned_work.pop(node)
        pending = [(scope, nodeid) for scope, unit in workload.items() for nodeid, done in unit.items() if not done]
        if not pending:
            return None
        scope, crashed = pending[0]  # a worker runs its items in the order they were sent
        workload[scope][crashed] = True
        unfinished = [(scope, unit) for scope, unit in workload.items() if not all(unit.values())]
        for scope, unit in reversed(unfinished):
            self.workqueue[scope] = unit
            self.workqueue.move_to_end(scope, last=False)
        for other in self.assigned_work:
            self._reschedule(other)
        return crashed
