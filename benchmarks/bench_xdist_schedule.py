"""The controller's scheduling CPU under ``-n N --dist loadgroup``: xdist's own scheduler against ours.

A gold set mined from a history has about one snapshot group per case. This replays, without
workers, what the xdist controller does for such a run: both workers register the same collection
of ``--groups`` groups of ``--per-group`` items (one item per agent), then report their items done,
one at a time, as they are sent to them. It prints the CPU time of the whole replay for
``xdist.scheduler.LoadGroupScheduling`` and for ``pytest_codesearch.session.xdist_schedule``, and their ratio::

    python benchmarks/bench_xdist_schedule.py [--groups 1000 10000 30000] [--per-group 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import time
from collections import deque
from types import SimpleNamespace
from typing import Any

from xdist.remote import Producer
from xdist.scheduler.loadgroup import LoadGroupScheduling

from pytest_codesearch.session.xdist_schedule import SnapshotGroupScheduling


class Settings:
    """The part of ``pytest.Config`` a scheduler reads: ``getvalue`` and ``option``."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.option = SimpleNamespace(**values)

    def getvalue(self, name: str) -> Any:
        return getattr(self.option, name)


class Worker:
    """The part of xdist's ``WorkerController`` a scheduler talks to; it remembers what it was sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: deque[int] = deque()

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def replay(scheduler_class: Any, config: Settings, groups: int, per_group: int, workers: int) -> float:
    """Run one whole schedule; return its CPU seconds."""
    ids = [f"g.jsonl::c{g}[agent{a}]@snap{g}" for g in range(groups) for a in range(per_group)]
    started = time.process_time()
    scheduler = scheduler_class(config, Producer("bench", enabled=False))
    nodes = [Worker(f"gw{n}") for n in range(workers)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, ids)
    scheduler.schedule()
    done = 0
    while done < len(ids):
        for node in nodes:
            if node.sent:
                scheduler.mark_test_complete(node, node.sent.popleft())
                done += 1
    assert scheduler.tests_finished
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[1000, 10000, 30000])
    parser.add_argument("--per-group", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    config = Settings({"tx": [f"{args.workers}*popen"], "dist": "loadgroup", "loadscopereorder": True})
    print(f"{'groups':>8} {'items':>8} {'xdist s':>9} {'ours s':>8} {'ratio':>7}")
    for groups in args.groups:
        theirs = replay(LoadGroupScheduling, config, groups, args.per_group, args.workers)
        ours = replay(SnapshotGroupScheduling, config, groups, args.per_group, args.workers)
        print(f"{groups:>8} {groups * args.per_group:>8} {theirs:>9.3f} {ours:>8.3f} {theirs / ours:>6.1f}x")


if __name__ == "__main__":
    main()
