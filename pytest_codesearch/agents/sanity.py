"""Sanity agents that bound every metric: ``oracle`` (perfect) and ``random`` (chance)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from pytest_codesearch.agents.contract import RetrievalResult


@dataclass(frozen=True)
class CaseInfo:
    """What the harness tells a sanity agent about the case it is about to answer."""

    case_id: str
    relevance: dict[str, int]
    seed: int


class OracleAgent:
    """Answers with the ground truth, most relevant first: every metric it can reach is 1.0.

    It proves the harness scores a perfect answer as perfect. The harness hands it the case through
    ``observe_case``; agents under test never receive the ground truth.
    """

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
    """Answers with ``top_n`` files of the snapshot in a random order seeded by run seed and case id."""

    def __init__(self, top_n: int = 10) -> None:
        self.top_n = top_n
        self._files: list[str] = []
        self._case: CaseInfo | None = None
        self._indexed: dict[str, list[str]] = {}

    def observe_case(self, case: CaseInfo) -> None:
        """Remember the case id and the run seed, which seed the shuffle."""
        self._case = case

    def initialize(self, repo_path: str) -> None:
        """List the files of the snapshot (cached per directory)."""
        if repo_path not in self._indexed:
            self._indexed[repo_path] = _list_files(repo_path)
        self._files = self._indexed[repo_path]

    def retrieve(self, query: str) -> RetrievalResult:
        """Return a seeded random sample of the snapshot's files."""
        seed = f"{self._case.seed}:{self._case.case_id}" if self._case else query
        rng = random.Random(seed)
        picked = rng.sample(self._files, min(self.top_n, len(self._files)))
        return RetrievalResult(files=picked)

    def reset(self) -> None:
        """Nothing to reset: the answer depends only on the seed and the case."""


def _list_files(root: str) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            path = name if rel == "." else f"{rel}/{name}"
            if not os.path.islink(os.path.join(dirpath, name)):
                found.append(path.replace(os.sep, "/"))
    return found
