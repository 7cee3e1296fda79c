"""``--codesearch-resume``: finish the interrupted run, reusing the cases its journal completed.

A resumed run is the same run: its identity (the options that change results, the selection, the
plugin version; ``runs/identity.py``) must equal the interrupted one's, or it is refused with one line
naming the option and both values, and so is a run whose gold sets changed since (SHA-256 of each
file). It runs the interrupted selection (the node ids the journal collected, in the same seeded
order) and nothing else, reusing every case record the journal holds. The seed of that run is taken
again unless one is given.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pytest_codesearch.nodeids import base_nodeid
from pytest_codesearch.report.model import CaseResult, RunInfo
from pytest_codesearch.runs.identity import first_difference
from pytest_codesearch.runs.journal import (
    JournalError,
    RunRecords,
    read_journal,
    read_worker_journals,
    worker_journal_dir,
)


@dataclass(frozen=True)
class ResumePlan:
    """What a resumed run reuses: the earlier run, its completed records by node id, its selection."""

    earlier: RunRecords | None
    note: str
    records: dict[str, CaseResult] = field(default_factory=dict)
    universe: frozenset[str] | None = None
    """Node ids the interrupted run selected (None: no earlier run, select as usual)."""

    @property
    def seed(self) -> int | None:
        """Return the interrupted run's seed, None without one."""
        return None if self.earlier is None else self.earlier.header.run.seed


def file_digest(path: Path) -> str | None:
    """Return the SHA-256 of a file's bytes, or None when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def load_earlier(journal: Path) -> ResumePlan:
    """Return the interrupted run of ``journal``; a missing or unreadable one resumes nothing (the note says why)."""
    if not journal.exists():
        return ResumePlan(None, f"no earlier run in {journal}: running every case")
    try:
        earlier = read_journal(journal)
    except JournalError as exc:
        return ResumePlan(None, f"cannot resume ({exc}): running every case")
    if earlier.header.run_token:  # what its xdist workers answered after the controller stopped listening
        for case in read_worker_journals(worker_journal_dir(journal.parent, earlier.header.run_token)):
            earlier.cases.setdefault(case.nodeid, case)
    return ResumePlan(earlier, "")


def refusal(earlier: RunRecords, now: RunInfo, rootdir: Path) -> str | None:
    """Return the one line refusing to resume ``earlier`` as ``now``, None when they are the same run."""
    differ = first_difference(earlier.header.run, now)
    if differ is not None:
        label, before, after = differ
        return (
            f"--codesearch-resume: the interrupted run used {label} {before}, this one {after}; resume with the "
            "same options, or run without --codesearch-resume"
        )
    changed = [name for name, digest in sorted(earlier.goldsets.items()) if file_digest(rootdir / name) != digest]
    if changed:
        return (
            f"--codesearch-resume: {changed[0]} changed since the interrupted run; its cases are not the ones "
            "that run had: run without --codesearch-resume"
        )
    return None


def plan_resume(loaded: ResumePlan) -> ResumePlan:
    """Return ``loaded`` with the records it reuses and the selection to finish (after ``refusal`` said yes)."""
    earlier = loaded.earlier
    if earlier is None:
        return loaded
    reused = {base_nodeid(nodeid): case for nodeid, case in earlier.cases.items()}
    universe = frozenset(base_nodeid(n) for n in earlier.collected | set(earlier.cases))
    note = f"resuming the run of {earlier.header.run.started_at}: {len(reused)} completed case(s) reused"
    if earlier.skipped:
        note += f"; skipped {len(earlier.skipped)} garbled journal line(s), the first {earlier.skipped[0]}"
    return ResumePlan(earlier, note, reused, universe)
