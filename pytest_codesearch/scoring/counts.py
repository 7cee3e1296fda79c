"""What a metric formula may read about an answer: ``CaseCounts``, read from the ranks of its hits.

Every formula of the metric registry (``scoring.registry``) is written once against ``CaseCounts``.
R is the number of ground-truth paths; hits(k) the relevant entries among the first k ranks. The
"set" counts describe the answer scored as a set: its first ``--codesearch-k`` entries, or all of it.
"""

from __future__ import annotations

from bisect import bisect_right

from pytest_codesearch.scoring.ranking import Hits


class CaseCounts:
    """The counts of one case, read from its ``Hits`` (ranks of the relevant entries)."""

    __slots__ = ("_hits", "_ranks", "beta", "n_relevant", "partial", "set_found", "set_size")

    def __init__(
        self,
        hits: Hits,
        set_found: int,
        set_size: int,
        partial: tuple[float, float] | None = None,
        beta: float = 1.0,
    ) -> None:
        self._hits = hits
        self._ranks = hits.ranks
        self.n_relevant: float = hits.n_relevant
        self.set_found: float = set_found
        self.set_size: float = set_size
        self.partial = partial
        self.beta = beta

    def found_at(self, k: int) -> float:
        """Return hits(k)."""
        return bisect_right(self._ranks, k)

    def found_at_r(self) -> float:
        """Return hits(R)."""
        return bisect_right(self._ranks, self.n_relevant)

    def dcg_at(self, k: int) -> float:
        """Return DCG@k."""
        return self._hits.dcg[bisect_right(self._ranks, k)]

    def idcg_at(self, k: int) -> float:
        """Return IDCG@k."""
        return self._hits.idcg[min(k, len(self._hits.idcg) - 1)]

    def reciprocal_rank(self) -> float:
        """Return 1 / rank of the first relevant entry, 0.0 if none."""
        return 1.0 / self._ranks[0] if self._ranks else 0.0

    def precision_sum(self) -> float:
        """Return Σ over relevant ranks i of hits(i) / i."""
        return sum(n / rank for n, rank in enumerate(self._ranks, 1))

    def partial_credit(self) -> tuple[float, float] | None:
        """Return the partial-credit pair computed by ``score_case``, None without directories."""
        return self.partial

    def ratio(self, part: float, whole: float) -> float:
        """Return part / whole, 0.0 when whole is 0."""
        return part / whole if whole else 0.0

    def positive(self, value: float) -> float:
        """Return 1.0 if value > 0, else 0.0."""
        return 1.0 if value > 0 else 0.0

    def equal(self, left: float, right: float) -> float:
        """Return 1.0 if left == right, else 0.0."""
        return 1.0 if left == right else 0.0

    def cap(self, k: int, value: float) -> float:
        """Return min(k, value)."""
        return min(k, value)
