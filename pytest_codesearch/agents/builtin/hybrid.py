"""Hybrid baseline: reciprocal rank fusion of other agents' answers.

Each member agent answers the query; a file's fused score is ``sum over members m of
1 / (k + rank_m(file))`` with ranks from 1, a file a member leaves out adding nothing (Cormack,
Clarke and Büttcher, "Reciprocal rank fusion outperforms Condorcet and individual rank learning
methods", SIGIR 2009, where ``k = 60``). Ties go by path. Functions and modules are fused the same
way, over the members that answer them. Fusion needs no score calibration, so it
joins agents whose scores live on different scales, such as ``bm25`` (content) and ``path``
(names the query mentions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_codesearch.agents.contract import RetrievalResult


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: float = 60.0, top_n: int = 100) -> RetrievalResult:
    """Return the files of ``rankings`` ordered by ``sum 1 / (k + rank)``, ties by path, at most ``top_n``."""
    best = _fused(rankings, k, top_n)
    return RetrievalResult(files=[path for path, _ in best], scores=[score for _, score in best])


def _fused(rankings: Sequence[Sequence[str]], k: float, top_n: int) -> list[tuple[str, float]]:
    """Return (entry, fused score) of ``rankings`` by ``sum 1 / (k + rank)``, best first, ties by name."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, entry in enumerate(ranking, start=1):
            fused[entry] = fused.get(entry, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:top_n]


class HybridAgent:
    """Fuse the answers of ``members`` (name, agent) pairs by reciprocal rank fusion (see the module)."""

    def __init__(self, members: Sequence[tuple[str, Any]], k: float = 60.0, top_n: int = 100) -> None:
        if not members or k < 0 or top_n < 1:
            raise ValueError(f"HybridAgent needs members, k >= 0 and top_n >= 1, got {len(members)}, {k}, {top_n}")
        self.members = list(members)
        self.k = k
        self.top_n = top_n

    @property
    def needs_directory(self) -> bool:
        """Return whether any member needs the snapshot written to disk (an agent that does not say, does)."""
        return any(getattr(member, "needs_directory", True) for _, member in self.members)

    @classmethod
    def of_names(cls, agents: str = "bm25+path", k: float = 60.0, top_n: int = 100) -> HybridAgent:
        """Return the fusion of built-in agents named in ``agents``, joined by ``+`` (``"bm25+path"``)."""
        factories = _builtin_factories()
        names = [name for name in agents.split("+") if name]
        unknown = [name for name in names if name not in factories]
        if unknown or not names:
            raise ValueError(f"hybrid agents={agents!r}: unknown {unknown}; choose from {', '.join(factories)}")
        return cls([(name, factories[name]()) for name in names], k, top_n)

    def use_snapshot(self, view: Any) -> None:
        """Hand the harness's snapshot view to every member that takes one."""
        for _, member in self.members:
            hook = getattr(member, "use_snapshot", None)
            if callable(hook):
                hook(view)

    def initialize(self, repo_path: str) -> None:
        """Hand ``repo_path`` to every member."""
        for _, member in self.members:
            member.initialize(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the fused answer of every member to ``query``: files, and functions and modules of the
        members that answer them, each level fused on its own."""
        answers = [member.retrieve(query) for _, member in self.members]
        result = reciprocal_rank_fusion([_files(a) for a in answers], self.k, self.top_n)
        entities = [a for a in answers if isinstance(a, RetrievalResult)]
        result.functions = [e for e, _ in _fused([a.functions for a in entities if a.functions], self.k, self.top_n)]
        result.modules = [e for e, _ in _fused([a.modules for a in entities if a.modules], self.k, self.top_n)]
        return result

    def reset(self) -> None:
        """Reset every member."""
        for _, member in self.members:
            member.reset()


def _files(answer: RetrievalResult | Sequence[str]) -> Sequence[str]:
    return answer.files if isinstance(answer, RetrievalResult) else answer


def _builtin_factories() -> dict[str, Callable[[], Any]]:
    """Return the built-in content agents a hybrid may name, by name."""
    from pytest_codesearch.agents.builtin.bm25 import BM25Agent
    from pytest_codesearch.agents.builtin.keyword import KeywordAgent
    from pytest_codesearch.agents.builtin.path import PathAgent

    return {"bm25": BM25Agent, "keyword": KeywordAgent, "path": PathAgent}
