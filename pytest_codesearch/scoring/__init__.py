"""Scoring of one ranked answer against graded ground truth, as trec_eval would score it."""

from __future__ import annotations

from pytest_codesearch.scoring.case import metric_names, score_case
from pytest_codesearch.scoring.ranking import (
    Hits,
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from pytest_codesearch.scoring.sets import (
    SetScores,
    count_relevant,
    f1,
    partial_credit,
    precision,
    recall,
    set_scores,
)

__all__ = [
    "Hits",
    "SetScores",
    "average_precision",
    "count_relevant",
    "f1",
    "hit_at_k",
    "metric_names",
    "ndcg_at_k",
    "partial_credit",
    "precision",
    "precision_at_k",
    "recall",
    "recall_at_k",
    "reciprocal_rank",
    "score_case",
    "set_scores",
]
