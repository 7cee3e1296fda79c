"""Hybrid baseline: fusion of other agents' answers, by reciprocal rank or by normalised score.

Each member agent answers the query. With ``method="rrf"`` (the default) a file's fused score is
``sum over members m of weight_m / (k + rank_m(file))`` with ranks from 1, a file a member leaves out
adding nothing (Cormack, Clarke and Büttcher, "Reciprocal rank fusion outperforms Condorcet and
individual rank learning methods", SIGIR 2009, where ``k = 60``): it needs no calibration, so it joins
agents whose scores live on different scales. With ``method="score"`` it is ``sum of weight_m *
(s - min_m) / (max_m - min_m)`` over each member's own scores (a member that gives none scores
``1 / rank``): it keeps how far ahead a member's best answers are, which rank fusion forgets. Ties go
by path. Functions and modules are fused the same way, over the members that answer them (by rank).

Members may be any agents: contract objects, plain callables, a user's (``HybridAgent([("mine",
my_agent), ("bm25", BM25Agent())])`` in a conftest fixture). Fusion needs no score calibration, so it
joins agents whose scores live on different scales, such as ``bm25`` (content) and ``path``
(names the query mentions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytest_codesearch.agents.adapter import adapt_agent, coerce_result
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


def score_fusion(
    answers: Sequence[RetrievalResult], weights: Sequence[float], top_n: int = 100
) -> RetrievalResult:
    """Return the files of ``answers`` by the weighted sum of each member's min-max normalised scores."""
    fused: dict[str, float] = {}
    for answer, weight in zip(answers, weights):
        scores = answer.scores if len(answer.scores) == len(answer.files) else [1.0 / r for r in range(1, len(answer.files) + 1)]
        if not scores:
            continue
        low, high = min(scores), max(scores)
        for path, score in zip(answer.files, scores):
            share = (score - low) / (high - low) if high > low else 1.0
            fused[path] = fused.get(path, 0.0) + weight * share
    best = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:top_n]
    return RetrievalResult(files=[path for path, _ in best], scores=[score for _, score in best])


METHODS = ("rrf", "score")
"""How ``HybridAgent`` fuses files, by the name its ``method`` parameter takes."""


class HybridAgent:
    """Fuse the answers of ``members`` (name, agent) pairs by rank or by score (see the module)."""

    def __init__(
        self,
        members: Sequence[tuple[str, Any]],
        k: float = 60.0,
        top_n: int = 100,
        method: str = "rrf",
        weights: Sequence[float] | None = None,
    ) -> None:
        if not members or k < 0 or top_n < 1:
            raise ValueError(f"HybridAgent needs members, k >= 0 and top_n >= 1, got {len(members)}, {k}, {top_n}")
        if method not in METHODS:
            raise ValueError(f"HybridAgent method={method!r}: choose one of {', '.join(METHODS)}")
        if weights is not None and len(weights) != len(members):
            raise ValueError(f"HybridAgent weights: give one per member ({len(members)}), got {len(weights)}")
        self.members = [(name, adapt_agent(name, member)) for name, member in members]
        self.k = k
        self.top_n = top_n
        self.method = method
        self.weights = list(weights) if weights is not None else [1.0] * len(members)

    @property
    def needs_directory(self) -> bool:
        """Return whether any member needs the snapshot written to disk (``AgentHandle.needs_directory``)."""
        return any(member.needs_directory for _, member in self.members)

    @classmethod
    def of_names(cls, agents: str = "bm25+path", k: float = 60.0, top_n: int = 100, method: str = "rrf") -> HybridAgent:
        """Return the fusion of built-in agents named in ``agents``, joined by ``+`` (``"bm25+path"``)."""
        factories = _builtin_factories()
        names = [name for name in agents.split("+") if name]
        unknown = [name for name in names if name not in factories]
        if unknown or not names:
            raise ValueError(f"hybrid agents={agents!r}: unknown {unknown}; choose from {', '.join(factories)}")
        return cls([(name, factories[name]()) for name in names], k, top_n, method)

    def use_snapshot(self, view: Any) -> None:
        """Hand the harness's snapshot view to every member that takes one."""
        for _, member in self.members:
            hook = getattr(member.obj, "use_snapshot", None)
            if callable(hook):
                hook(view)

    def initialize(self, repo_path: str) -> None:
        """Hand ``repo_path`` to every member."""
        for _, member in self.members:
            member.initialize(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the fused answer of every member to ``query``: files, and functions and modules of the
        members that answer them, each level fused on its own."""
        answers = [coerce_result(name, member.retrieve(query)) for name, member in self.members]
        if self.method == "score":
            result = score_fusion(answers, self.weights, self.top_n)
        else:
            result = _weighted_rrf([a.files for a in answers], self.weights, self.k, self.top_n)
        result.functions = [e for e, _ in _fused([a.functions for a in answers if a.functions], self.k, self.top_n)]
        result.modules = [e for e, _ in _fused([a.modules for a in answers if a.modules], self.k, self.top_n)]
        return result

    def reset(self) -> None:
        """Reset every member."""
        for _, member in self.members:
            member.reset()


def _weighted_rrf(rankings: Sequence[Sequence[str]], weights: Sequence[float], k: float, top_n: int) -> RetrievalResult:
    """Return ``reciprocal_rank_fusion`` with each ranking's terms times its weight."""
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, path in enumerate(ranking, start=1):
            fused[path] = fused.get(path, 0.0) + weight / (k + rank)
    best = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:top_n]
    return RetrievalResult(files=[path for path, _ in best], scores=[score for _, score in best])


def _builtin_factories() -> dict[str, Callable[[], Any]]:
    """Return the built-in content agents a hybrid may name, by name (``embedding`` is built only when
    named: it needs the embeddings extra)."""
    from pytest_codesearch.agents.builtin.bm25 import BM25Agent
    from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent
    from pytest_codesearch.agents.builtin.keyword import KeywordAgent
    from pytest_codesearch.agents.builtin.path import PathAgent

    return {"bm25": BM25Agent, "embedding": EmbeddingAgent, "keyword": KeywordAgent, "path": PathAgent}
