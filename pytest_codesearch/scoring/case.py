"""Every metric of one case, in report order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from pytest_codesearch.scoring.ranking import Hits
from pytest_codesearch.scoring.sets import set_scores

SET_METRICS = ("precision", "recall", "f1", "f1_partial")
"""Set metrics, computed on the top ``k`` entries when ``k`` is given, else on all of them."""
CUTOFF_METRICS = ("precision", "recall", "hit", "ndcg")
"""Metrics reported once per cutoff of ``ks`` as ``name@k``."""
LIST_METRICS = ("mrr", "map")
"""Metrics of the whole ranked list."""


def metric_names(ks: Sequence[int]) -> list[str]:
    """Return the per-case metric names in report order.

    The set metrics, then ``precision@k``, ``recall@k``, ``hit@k``, ``ndcg@k`` for each k of ``ks``
    in the given order, then ``mrr`` and ``map``. Raises ValueError unless every k is a distinct
    positive integer.
    """
    return list(_names(tuple(ks)))


def score_case(
    retrieved: Sequence[str],
    relevance: Mapping[str, int],
    *,
    ks: Sequence[int] = (1, 5, 10),
    k: int | None = None,
    directories: AbstractSet[str] = frozenset(),
) -> dict[str, float]:
    """Return every metric of metric_names(ks) for one ranked answer, each a float in [0, 1].

    ``retrieved`` is the normalised ranked answer (no duplicates), ``relevance`` maps each
    ground-truth path to its grade (>= 1), and ``directories`` lists the entries of ``retrieved``
    that are directories. Set metrics read ``retrieved[:k]`` (all of it when ``k`` is None);
    ranking metrics always read the whole list. Formulas: ``sets.set_scores`` and ``ranking.Hits``.
    """
    if k is not None and k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    names = _names(tuple(ks))
    hits = Hits.find(retrieved, relevance)
    if k is None:
        values = list(set_scores(retrieved, relevance, directories, found=len(hits.ranks)))
    else:
        values = list(set_scores(retrieved[:k], relevance, directories, found=hits.count_at(k)))
    for cutoff in ks:
        values += (
            hits.precision_at(cutoff),
            hits.recall_at(cutoff),
            hits.hit_at(cutoff),
            hits.ndcg_at(cutoff),
        )
    values += (hits.reciprocal_rank(), hits.average_precision())
    return dict(zip(names, values, strict=True))


@lru_cache(maxsize=32)
def _names(ks: tuple[int, ...]) -> tuple[str, ...]:
    """Return the metric names for the cutoffs ``ks`` after checking them (cached per ks)."""
    if len(set(ks)) != len(ks) or any(not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"ks must be distinct positive integers, got {list(ks)}")
    at_k = tuple(f"{name}@{k}" for k in ks for name in CUTOFF_METRICS)
    return SET_METRICS + at_k + LIST_METRICS
