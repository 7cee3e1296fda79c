"""Ranking metrics of one ranked answer, equal to trec_eval's on the same qrels and list.

Each metric exists twice: as a function of the ranked paths (``precision_at_k(ranked, relevant,
k)``), and as a method of ``Hits``, the ranks and grades of the relevant entries. ``score_case``
builds one ``Hits`` per case and reads every metric from it, so the ranked list is scanned once.
Ranks are 1-based; R is the number of ground-truth paths.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from itertools import accumulate
from typing import NamedTuple


class Hits(NamedTuple):
    """Where the relevant entries of one ranked list sit, with running gains for nDCG.

    ``ranks`` are the 1-based ranks of the relevant entries, ascending. ``dcg[j]`` is the DCG of the
    first j of them, Σ grade / log2(rank + 1) (``dcg[0] = 0``); ``idcg[j]`` is the DCG of the j best
    ground-truth grades placed at ranks 1..j, so ``len(idcg) = R + 1``.
    """

    ranks: list[int]
    dcg: list[float]
    idcg: list[float]

    @classmethod
    def find(cls, ranked: Sequence[str], relevance: Mapping[str, int]) -> Hits:
        """Return the hits of ``ranked`` against ``relevance`` (path -> grade >= 1)."""
        return cls.of_grades(hit_grades(ranked, relevance), ideal_grades(relevance))

    @classmethod
    def of_grades(cls, hits: Sequence[tuple[int, int]], best: Sequence[int]) -> Hits:
        """Return the hits whose (rank, grade) pairs are ``hits`` (ranks ascending), against ground-truth
        grades ``best`` (highest first): ``find`` once the list has been scanned."""
        gains = (grade / math.log2(rank + 1) for rank, grade in hits)
        ideal = (grade / math.log2(rank + 1) for rank, grade in enumerate(best, 1))
        ranks = [rank for rank, _ in hits]
        return cls(ranks, list(accumulate(gains, initial=0.0)), list(accumulate(ideal, initial=0.0)))

    @property
    def n_relevant(self) -> int:
        """Return R, the number of ground-truth paths."""
        return len(self.idcg) - 1

    def count_at(self, k: int) -> int:
        """Return the number of relevant entries among the first k ranks."""
        return bisect_right(self.ranks, k)

    def precision_at(self, k: int) -> float:
        """Return P@k = (relevant in top k) / k, dividing by k even if fewer were returned (``P_k``)."""
        return self.count_at(k) / k

    def recall_at(self, k: int) -> float:
        """Return recall@k = (relevant in top k) / R; 0.0 when R = 0 (``recall_k``)."""
        return self.count_at(k) / self.n_relevant if self.n_relevant else 0.0

    def hit_at(self, k: int) -> float:
        """Return hit@k = 1.0 if a relevant entry is in the top k, else 0.0 (``success_k``)."""
        return 1.0 if self.ranks and self.ranks[0] <= k else 0.0

    def all_hit_at(self, k: int) -> float:
        """Return all_hit@k = 1.0 if every ground-truth path is in the top k, else 0.0 (Acc@k).

        0.0 when R = 0. Not a trec_eval measure: it is the "Acc@k" of code-localisation papers.
        """
        return 1.0 if self.n_relevant and self.count_at(k) == self.n_relevant else 0.0

    def recall_cap_at(self, k: int) -> float:
        """Return recall_cap@k = (relevant in top k) / min(k, R); 0.0 when R = 0 (BEIR's ``R_cap@k``).

        Unlike recall@k it reaches 1.0 when k < R and the top k are all relevant.
        """
        cap = min(k, self.n_relevant)
        return self.count_at(k) / cap if cap else 0.0

    def ndcg_at(self, k: int) -> float:
        """Return nDCG@k = DCG@k / IDCG@k (``ndcg_cut_k``); 0.0 when IDCG@k = 0.

        DCG@k = Σ_{i ≤ k} rel_i / log2(i + 1) over the ranked list; IDCG@k is the same sum over the
        ground-truth grades sorted from highest, so relevant paths never returned still count.
        """
        ideal = self.idcg[min(k, self.n_relevant)]
        return self.dcg[self.count_at(k)] / ideal if ideal > 0.0 else 0.0

    def reciprocal_rank(self) -> float:
        """Return 1 / (rank of the first relevant entry), or 0.0 if none is relevant (``recip_rank``)."""
        return 1.0 / self.ranks[0] if self.ranks else 0.0

    def average_precision(self) -> float:
        """Return AP = Σ_{relevant rank i} (relevant in top i / i) / R; 0.0 when R = 0 (``map``)."""
        if not self.n_relevant:
            return 0.0
        return sum(n / rank for n, rank in enumerate(self.ranks, 1)) / self.n_relevant


    def r_precision(self) -> float:
        """Return R-precision = (relevant in top R) / R; 0.0 when R = 0 (``Rprec``)."""
        n_relevant = self.n_relevant
        return self.count_at(n_relevant) / n_relevant if n_relevant else 0.0


def hit_grades(ranked: Sequence[str], relevance: Mapping[str, int]) -> tuple[tuple[int, int], ...]:
    """Return (rank, grade) of each relevant entry of ``ranked``, ranks 1-based and ascending."""
    return tuple((rank, relevance[path]) for rank, path in enumerate(ranked, 1) if path in relevance)


def ideal_grades(relevance: Mapping[str, int]) -> tuple[int, ...]:
    """Return the ground-truth grades from highest to lowest: the ideal ranking's gains."""
    return tuple(sorted(relevance.values(), reverse=True))


def precision_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return P@k = |relevant ∩ ranked[:k]| / k, even when fewer than k were returned (``P_k``)."""
    return _binary(ranked, relevant).precision_at(k)


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return recall@k = |relevant ∩ ranked[:k]| / |relevant|, 0.0 if that is empty (``recall_k``)."""
    return _binary(ranked, relevant).recall_at(k)


def hit_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return hit@k = 1.0 if ranked[:k] holds a relevant path, else 0.0 (``success_k``)."""
    return _binary(ranked, relevant).hit_at(k)


def ndcg_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    """Return nDCG@k = Σ_{i ≤ k} rel_i / log2(i + 1) divided by its ideal value (``ndcg_cut_k``).

    ``relevance`` maps each ground-truth path to its grade (>= 1); the ideal ranking lists every
    grade, highest first, so a relevant path that was never returned lowers the score.
    """
    return Hits.find(ranked, relevance).ndcg_at(k)


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """Return 1 / (rank of the first relevant path), or 0.0 if none is returned (``recip_rank``)."""
    return _binary(ranked, relevant).reciprocal_rank()


def average_precision(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """Return AP = Σ over relevant ranks i of P@i, divided by |relevant| (``map``)."""
    return _binary(ranked, relevant).average_precision()


def all_hit_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return all_hit@k = 1.0 if every relevant path is in ranked[:k], else 0.0 ("Acc@k")."""
    return _binary(ranked, relevant).all_hit_at(k)


def recall_cap_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Return recall_cap@k = |relevant ∩ ranked[:k]| / min(k, |relevant|), 0.0 if that is empty."""
    return _binary(ranked, relevant).recall_cap_at(k)


def r_precision(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """Return R-precision = |relevant ∩ ranked[:R]| / R with R = |relevant|, 0.0 if R = 0 (``Rprec``)."""
    return _binary(ranked, relevant).r_precision()


def _binary(ranked: Sequence[str], relevant: Collection[str]) -> Hits:
    """Return the hits of ``ranked`` with every relevant path (or mapping key) at grade 1."""
    return Hits.find(ranked, dict.fromkeys(relevant, 1))
