"""Sanity agents that bound every metric: ``oracle`` (perfect) and ``random`` (chance)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.repo.reader import SnapshotView


@dataclass(frozen=True)
class CaseInfo:
    """What the harness tells a sanity agent about the case it is about to answer."""

    case_id: str
    relevance: dict[str, int]
    seed: int


class _CaseAwareAgent:
    """What the sanity agents share: the harness hands them each case and the snapshot's view; they read no file."""

    needs_directory = False  # the snapshot need not be written to disk for them

    def __init__(self) -> None:
        self._case: CaseInfo | None = None
        self._files: tuple[str, ...] = ()

    def use_snapshot(self, view: SnapshotView) -> None:
        """Remember the paths of the snapshot about to be searched (the agent hook; no file is read)."""
        self._files = view.paths

    def observe_case(self, case: CaseInfo) -> None:
        """Remember the case about to be asked: its ground truth and the run seed."""
        self._case = case

    def initialize(self, repo_path: str) -> None:
        """Nothing to index: everything comes with each case."""

    def reset(self) -> None:
        """Nothing to reset: the answer depends only on the case."""


class OracleAgent(_CaseAwareAgent):
    """Answers with the ground truth, most relevant first: every metric it can reach is 1.0.

    It proves the harness scores a perfect answer as perfect. The harness hands it the case through
    ``observe_case``; agents under test never receive the ground truth.
    """

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the ground-truth paths in descending relevance (path order breaks ties).

        An entry that is no file of the snapshot (a ``substring`` gold set's ``collision.cpp``) is
        answered with the first snapshot file, in path order, that contains it and is not yet answered.
        """
        if self._case is None:
            return RetrievalResult(files=[])
        ranked = sorted(self._case.relevance.items(), key=lambda kv: (-kv[1], kv[0]))
        files: list[str] = []
        scores: list[float] = []
        known = frozenset(self._files)
        for entry, relevance in ranked:
            found = entry if entry in known or not known else self._containing(entry, files)
            if found is not None:
                files.append(found)
                scores.append(float(relevance))
        return RetrievalResult(files=files, scores=scores)

    def _containing(self, entry: str, taken: list[str]) -> str | None:
        return next((path for path in self._files if entry in path and path not in taken), entry)  # sorted paths


class RandomAgent(_CaseAwareAgent):
    """Answers with ``top_n`` files of the snapshot in a random order seeded by run seed and case id."""

    def __init__(self, top_n: int = 10) -> None:
        super().__init__()
        self.top_n = top_n

    def retrieve(self, query: str) -> RetrievalResult:
        """Return a seeded random sample of the snapshot's files."""
        if self._case is None:
            return RetrievalResult(files=[])
        rng = random.Random(f"{self._case.seed}:{self._case.case_id}")
        files = self._files
        return RetrievalResult(files=rng.sample(files, min(self.top_n, len(files))))
