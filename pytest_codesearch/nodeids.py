"""Node ids of benchmark items: ``<gold set>::<case id>[<agent>]``, built and read in one place.

pytest names an item ``<file>::<name>``; a case item's name is ``<case id>[<agent>]``, so ``-k``,
``--lf`` and JUnit XML see the case and the agent. ``--dist loadgroup`` appends ``@<group>`` to the id
it sends a worker (the snapshot group, letters, digits, ``_``, ``.`` and ``-`` only); every record,
journal line and resume key uses the id without it (``base_nodeid``)::

    case_nodeid("goldsets/self.jsonl", "c1", "bm25")        # 'goldsets/self.jsonl::c1[bm25]'
    parse_nodeid("goldsets/self.jsonl::c1[bm25]@g-1")       # CaseNodeId('goldsets/self.jsonl', 'c1', 'bm25')

An agent name may hold brackets of its own (``my-agent[k1=1.2]``, a grid of parameters): the agent
is the bracketed tail whose brackets balance, or one of the run's agent names when they are given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_GROUP = re.compile(r"\]@[\w.-]+\Z", re.ASCII)


@dataclass(frozen=True)
class CaseNodeId:
    """The parts of a case item's node id."""

    goldset: str
    case_id: str
    agent: str


def case_name(case_id: str, agent: str) -> str:
    """Return the item name of ``case_id`` run by ``agent``: ``<case id>[<agent>]``."""
    return f"{case_id}[{agent}]"


def case_nodeid(goldset: str, case_id: str, agent: str) -> str:
    """Return the node id of ``case_id`` of ``goldset`` run by ``agent``."""
    return f"{goldset}::{case_name(case_id, agent)}"


def base_nodeid(nodeid: str) -> str:
    """Return ``nodeid`` without the ``@group`` suffix ``--dist loadgroup`` appends."""
    match = _GROUP.search(nodeid)
    return nodeid[: match.start() + 1] if match else nodeid


def parse_nodeid(nodeid: str, agents: Iterable[str] = ()) -> CaseNodeId | None:
    """Return the parts of a case item's ``nodeid`` (with or without ``@group``), None for any other id.

    With ``agents`` (the run's agent names), the longest one the name ends with is the agent.
    """
    goldset, sep, name = base_nodeid(nodeid).partition("::")
    if not sep or not name.endswith("]") or "::" in name:
        return None
    for agent in sorted(agents, key=len, reverse=True):
        if name.endswith(f"[{agent}]") and len(name) > len(agent) + 2:
            return CaseNodeId(goldset, name[: -len(agent) - 2], agent)
    start = _opening_bracket(name)
    if start is None or start == 0:
        return None
    return CaseNodeId(goldset, name[:start], name[start + 1 : -1])


def is_case_nodeid(nodeid: str) -> bool:
    """Return True when ``nodeid`` names a case item (rather than a broken gold-set entry or a test)."""
    return parse_nodeid(nodeid) is not None


def _opening_bracket(name: str) -> int | None:
    """Return the position of the ``[`` that the final ``]`` of ``name`` closes, or None."""
    depth = 0
    for position in range(len(name) - 1, -1, -1):
        if name[position] == "]":
            depth += 1
        elif name[position] == "[":
            depth -= 1
            if depth == 0:
                return position
    return None
