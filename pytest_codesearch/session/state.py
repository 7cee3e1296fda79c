"""What one pytest process knows about the benchmark run, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from pytest_codesearch.agents.registry import AgentChoice, AgentRegistry
from pytest_codesearch.settings.model import Settings

if TYPE_CHECKING:  # kept out of the import path: a run that selects no agent pays nothing for them
    from pytest_codesearch.goldset.truthfile import GivenTruth
    from pytest_codesearch.repo.snapshot import SnapshotStore


@dataclass
class RunState:
    """The run's settings, its agents and the per-process snapshot cache."""

    settings: Settings
    registry: AgentRegistry
    choices: list[AgentChoice]
    seed: int
    snapshots: SnapshotStore
    worker_id: str | None
    resumed: dict[str, Any] = field(default_factory=dict)
    """Controller: records of the earlier run's completed cases (``--codesearch-resume``), by node id."""
    skip: frozenset[str] = frozenset()
    """Node ids (without xdist's ``@group``) that this process deselects because they are resumed."""
    universe: frozenset[str] | None = None
    """Resuming: the node ids the interrupted run selected; nothing else runs (None: not resuming)."""
    local_results: dict[str, Any] = field(default_factory=dict)
    """Case records made in this process with their JSON text, by node id: the controller of a serial run
    takes them from here (reports carry no record; under xdist the controller reads the workers' journals)."""
    given_truth: dict[str, GivenTruth] = field(default_factory=dict)
    """``--codesearch-truth``: the truth that replaces each named case's own, by case id."""
    run_token: str | None = None
    """The run's token (the controller's, handed to workers): names where xdist workers journal their cases."""
    pool: Any = None
    """This process's ``AgentPool`` (the session fixture), taken by the first case that runs."""
    worker_journal: Any = None
    """A worker's ``WorkerJournal``, opened with its first case (None on the controller)."""
    goldset_cases: dict[str, int] = field(default_factory=dict)
    """Valid cases of each gold-set file this process collected, by path relative to the rootdir: the
    controller counts a run's selection against them without reading the files again (under xdist, the
    workers' counts: ``session/records.hand_over_goldset_counts``)."""


STATE = pytest.StashKey[RunState]()
