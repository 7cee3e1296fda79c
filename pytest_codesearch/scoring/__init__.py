"""Scoring of one ranked answer against graded ground truth, as trec_eval would score it."""

from __future__ import annotations

from pytest_codesearch.scoring.case import (
    applicable_metrics,
    metric_names,
    optional_metric_names,
    score_case,
)
from pytest_codesearch.scoring.failures import FAILURE_CATEGORIES, classify_miss, is_miss, miss_cutoff
from pytest_codesearch.scoring.levels import first_ranks, level_metric_names, score_levels
from pytest_codesearch.scoring.ranking import (
    Hits,
    all_hit_at_k,
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
    recall_cap_at_k,
    reciprocal_rank,
)
from pytest_codesearch.scoring.sets import (
    SetScores,
    count_relevant,
    f1,
    f_beta,
    partial_credit,
    precision,
    recall,
    set_scores,
)
from pytest_codesearch.scoring.source import SourceFiles
from pytest_codesearch.scoring.spans import LINE_METRICS, locate_spans, score_lines, truth_lines
from pytest_codesearch.scoring.symbols import score_symbols, symbol_metric_names, truth_symbols

__all__ = [
    "first_ranks",
    "level_metric_names",
    "FAILURE_CATEGORIES",
    "LINE_METRICS",
    "Hits",
    "SetScores",
    "SourceFiles",
    "all_hit_at_k",
    "applicable_metrics",
    "average_precision",
    "classify_miss",
    "count_relevant",
    "f1",
    "f_beta",
    "hit_at_k",
    "is_miss",
    "locate_spans",
    "metric_names",
    "miss_cutoff",
    "ndcg_at_k",
    "optional_metric_names",
    "partial_credit",
    "precision",
    "precision_at_k",
    "r_precision",
    "recall",
    "recall_at_k",
    "recall_cap_at_k",
    "reciprocal_rank",
    "score_case",
    "score_lines",
    "score_levels",
    "score_symbols",
    "set_scores",
    "symbol_metric_names",
    "truth_lines",
    "truth_symbols",
]
