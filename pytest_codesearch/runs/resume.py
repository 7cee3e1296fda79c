"""``--codesearch-resume``: reuse the completed cases of the last run, so only the rest run again.

A case record is reused when the last run's journal holds it with an end state (any status but
``not_run``), for the same node id (gold set, case, agent with its parameter), the same gold-set
content (SHA-256 of the file) and the same plugin version. The seed of that run is taken again
unless one is given, so the run order and the random agent's answers are those of the first run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.runs.journal import JournalError, read_journal
from pytest_codesearch.report.model import CaseResult


@dataclass(frozen=True)
class ResumePlan:
    """What a resumed run reuses: the earlier seed and the records of its completed cases by node id."""

    seed: int | None
    records: dict[str, CaseResult]
    note: str


def base_nodeid(nodeid: str) -> str:
    """Return ``nodeid`` without the ``@group`` suffix ``--dist loadgroup`` appends."""
    return nodeid.split("]@", 1)[0] + "]" if "]@" in nodeid else nodeid


def file_digest(path: Path) -> str | None:
    """Return the SHA-256 of a file's bytes, or None when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def plan_resume(journal: Path, rootdir: Path, version: str, agents: dict[str, str | None]) -> ResumePlan:
    """Return what can be reused from ``journal`` for agents ``name -> param repr`` at plugin ``version``.

    A missing or unreadable journal reuses nothing (the note says why); it never fails the run.
    """
    if not journal.exists():
        return ResumePlan(None, {}, f"no earlier run in {journal}: running every case")
    try:
        earlier = read_journal(journal)
    except JournalError as exc:
        return ResumePlan(None, {}, f"cannot resume ({exc}): running every case")
    run = earlier.header.run
    if run.versions.get("pytest-codesearch") != version:
        return ResumePlan(None, {}, "the earlier run used another pytest-codesearch version: running every case")
    digests = {name: file_digest(rootdir / name) for name in earlier.goldsets}
    reused = {}
    for nodeid, case in earlier.cases.items():
        info = run.agents.get(case.agent)
        same_agent = case.agent in agents and (info is None or info.param == agents[case.agent])
        same_goldset = earlier.goldsets.get(case.goldset) is not None and (
            earlier.goldsets.get(case.goldset) == digests.get(case.goldset)
        )
        if same_agent and same_goldset:
            reused[base_nodeid(nodeid)] = case
    note = f"resuming the run of {run.started_at}: {len(reused)} completed case(s) reused"
    return ResumePlan(run.seed, reused, note)
