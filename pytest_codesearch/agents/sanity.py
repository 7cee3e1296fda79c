"""Sanity agents that bound every metric: ``oracle`` (perfect) and ``random`` (chance)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_codesearch.agents.contract import RetrievalResult


@dataclass(frozen=True)
class CaseInfo:
    """What the harness tells a sanity agent about the case it is about to answer."""

    case_id: str
    relevance: dict[str, int]
    seed: int
    files: tuple[str, ...] = ()


class OracleAgent:
    """Answers with the ground truth, most relevant first: every metric it can reach is 1.0.

    It proves the harness scores a perfect answer as perfect. The harness hands it the case through
    ``observe_case``; agents under test never receive the ground truth.
    """

    needs_directory = False  # it reads no file: the snapshot need not be written to disk

    def __init__(self) -> None:
        self._case: CaseInfo | None = None

    def observe_case(self, case: CaseInfo) -> None:
        """Remember the ground truth of the case about to be asked."""
        self._case = case

    def initialize(self, repo_path: str) -> None:
        """Nothing to index."""

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the ground-truth paths in descending relevance (path order breaks ties)."""
        if self._case is None:
            return RetrievalResult(files=[])
        ranked = sorted(self._case.relevance.items(), key=lambda kv: (-kv[1], kv[0]))
        return RetrievalResult(files=[p for p, _ in ranked], scores=[float(r) for _, r in ranked])

    def reset(self) -> None:
        """Nothing to reset: the case stays until the next one is observed."""


class RandomAgent:
    """Answers with ``top_n`` files of the snapshot in a random order seeded by run seed and case id.

    The harness hands it the snapshot's file list with the case, so it needs no directory on disk.
    """

    needs_directory = False

    def __init__(self, top_n: int = 10) -> None:
        self.top_n = top_n
        self._case: CaseInfo | None = None

    def observe_case(self, case: CaseInfo) -> None:
        """Remember the case id, the run seed (which seed the shuffle) and the snapshot's files."""
        self._case = case

    def initialize(self, repo_path: str) -> None:
        """Nothing to index: the file list comes with each case."""

    def retrieve(self, query: str) -> RetrievalResult:
        """Return a seeded random sample of the snapshot's files."""
        if self._case is None:
            return RetrievalResult(files=[])
        rng = random.Random(f"{self._case.seed}:{self._case.case_id}")
        files = self._case.files
        return RetrievalResult(files=rng.sample(files, min(self.top_n, len(files))))

    def reset(self) -> None:
        """Nothing to reset: the answer depends only on the seed and the case."""

