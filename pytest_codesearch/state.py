"""What one pytest process knows about the benchmark run, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pytest_codesearch.agents.registry import AgentChoice, AgentRegistry
from pytest_codesearch.evaluate import EvalSettings
from pytest_codesearch.repo.snapshot import SnapshotStore
from pytest_codesearch.settings import Settings


@dataclass
class RunState:
    """The run's settings, its agents and the per-process snapshot cache."""

    settings: Settings
    registry: AgentRegistry
    choices: list[AgentChoice]
    seed: int
    snapshots: SnapshotStore
    worker_id: str | None

    @property
    def eval_settings(self) -> EvalSettings:
        """Return how each case is run and scored."""
        s = self.settings
        return EvalSettings(runs=s.runs, ks=s.ks, k=s.k, seed=self.seed)


STATE = pytest.StashKey[RunState]()
