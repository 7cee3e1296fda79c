"""Every metric of one case, in report order, and which metrics apply to which case."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring.ranking import Hits
from pytest_codesearch.scoring.sets import f_beta as f_beta_score
from pytest_codesearch.scoring.sets import set_scores
from pytest_codesearch.scoring.spans import LINE_METRICS
from pytest_codesearch.scoring.symbols import HARD_NEGATIVE_METRIC, symbol_metric_names

SET_METRICS = ("precision", "recall", "f1", "f1_partial")
"""Set metrics, computed on the top ``k`` entries when ``k`` is given, else on all of them."""
F_BETA_METRIC = "f_beta"
"""The set metric added after ``f1_partial`` when a beta is given (``--codesearch-f-beta``)."""
CUTOFF_METRICS = ("precision", "recall", "hit", "ndcg", "all_hit", "recall_cap")
"""Metrics reported once per cutoff of ``ks`` as ``name@k``."""
LIST_METRICS = ("mrr", "map", "r_precision")
"""Metrics of the whole ranked list."""


def metric_names(ks: Sequence[int], f_beta: bool = False) -> list[str]:
    """Return the names of the metrics every scored case carries, in report order.

    The set metrics (with ``f_beta`` after ``f1_partial`` when ``f_beta`` is true), then
    ``precision@k``, ``recall@k``, ``hit@k``, ``ndcg@k``, ``all_hit@k``, ``recall_cap@k`` for each k
    of ``ks`` in the given order, then ``mrr``, ``map`` and ``r_precision``. Raises ValueError
    unless every k is a distinct positive integer.
    """
    return list(_names(tuple(ks), f_beta))


def optional_metric_names(ks: Sequence[int]) -> list[str]:
    """Return the names of the metrics only some cases carry, in report order.

    Line metrics (cases whose ground truth gives ``lines``), then ``symbol_hit@k`` for each k,
    ``symbol_mrr`` (cases whose ground truth names ``symbols``) and ``hard_negative_rate`` (cases
    that also list ``hard_negatives``).
    """
    _names(tuple(ks), False)  # validates ks
    return [*LINE_METRICS, *symbol_metric_names(ks), HARD_NEGATIVE_METRIC]


def applicable_metrics(case: TestCase, ks: Sequence[int], f_beta: bool) -> list[str]:
    """Return the names of the metrics that apply to ``case``, in report order.

    ``metric_names(ks, f_beta)``, then the line metrics if a ground-truth file gives ``lines``,
    the symbol metrics if one names ``symbols``, and ``hard_negative_rate`` if the case also lists
    ``hard_negatives``. A scored case carries exactly these; a case in error carries each as 0.0.
    """
    names = metric_names(ks, f_beta)
    if any(entry.lines for entry in case.ground_truth_files):
        names += LINE_METRICS
    if any(entry.symbols for entry in case.ground_truth_files):
        names += symbol_metric_names(ks)
        if case.hard_negatives:
            names.append(HARD_NEGATIVE_METRIC)
    return names


def score_case(
    retrieved: Sequence[str],
    relevance: Mapping[str, int],
    *,
    ks: Sequence[int] = (1, 5, 10),
    k: int | None = None,
    directories: AbstractSet[str] = frozenset(),
    f_beta: float | None = None,
) -> dict[str, float]:
    """Return every metric of ``metric_names(ks, f_beta is not None)`` for one ranked answer.

    Each value is a float in [0, 1]. ``retrieved`` is the normalised ranked answer (no
    duplicates), ``relevance`` maps each ground-truth path to its grade (>= 1), and
    ``directories`` lists the entries of ``retrieved`` that are directories. Set metrics read
    ``retrieved[:k]`` (all of it when ``k`` is None); ranking metrics always read the whole list.
    ``f_beta`` is the beta of the ``f_beta`` metric, left out when None. Formulas:
    ``sets.set_scores``, ``sets.f_beta`` and ``ranking.Hits``.
    """
    if k is not None and k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    names = _names(tuple(ks), f_beta is not None)
    hits = Hits.find(retrieved, relevance)
    if k is None:
        scores = set_scores(retrieved, relevance, directories, found=len(hits.ranks))
    else:
        scores = set_scores(retrieved[:k], relevance, directories, found=hits.count_at(k))
    values = list(scores)
    if f_beta is not None:
        values.append(f_beta_score(scores.precision, scores.recall, f_beta))
    values += _cutoff_values(hits, ks)
    values += (hits.reciprocal_rank(), hits.average_precision(), hits.r_precision())
    return dict(zip(names, values, strict=True))


def _cutoff_values(hits: Hits, ks: Sequence[int]) -> list[float]:
    """Return the CUTOFF_METRICS of every k, in order.

    The formulas are those of ``Hits.precision_at`` ... ``Hits.recall_cap_at``, written out so
    that the relevant entries in the top k are counted once per k (this loop runs for every case).
    """
    n_relevant = hits.n_relevant
    values: list[float] = []
    for cutoff in ks:
        found = hits.count_at(cutoff)
        cap = min(cutoff, n_relevant)
        ideal = hits.idcg[cap]
        values += (
            found / cutoff,
            found / n_relevant if n_relevant else 0.0,
            1.0 if found else 0.0,
            hits.dcg[found] / ideal if ideal > 0.0 else 0.0,
            1.0 if n_relevant and found == n_relevant else 0.0,
            found / cap if cap else 0.0,
        )
    return values


@lru_cache(maxsize=32)
def _names(ks: tuple[int, ...], f_beta: bool) -> tuple[str, ...]:
    """Return the metric names for the cutoffs ``ks`` after checking them (cached per ks)."""
    if len(set(ks)) != len(ks) or any(not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"ks must be distinct positive integers, got {list(ks)}")
    at_k = tuple(f"{name}@{k}" for k in ks for name in CUTOFF_METRICS)
    sets = (*SET_METRICS, F_BETA_METRIC) if f_beta else SET_METRICS
    return sets + at_k + LIST_METRICS
