"""Module- and function-level metrics: an answer's ranked entities against a case's entity truth.

An entity is ``path.py:Name`` (module level) or ``path.py:Class.method`` (function level). Each level
is scored like the ranked file list, every ground-truth entity at grade 1, with the formulas of the
registry entries whose ``applies`` is the level (``module_*``, ``function_*``): R is the number of
distinct ground-truth entities and hits(k) the ground-truth entities among the first k distinct
answered ones. A repeated entity keeps its first rank. At function level a constructor answers to its
class's name: ``path.py:Class.__init__`` and ``path.py:Class`` are one entity, as in LocAgent's gold sets
and outputs (a class is never a function-level entity of its own, so nothing else is merged).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring.counts import CaseCounts
from pytest_codesearch.scoring.ranking import Hits
from pytest_codesearch.scoring.registry import names_of

LEVELS = ("modules", "functions")
"""The entity levels, as registry scopes and as the suffix of the case's ``ground_truth_*`` fields."""


def level_metric_names(ks: Sequence[int]) -> list[str]:
    """Return the ``module_*`` then the ``function_*`` names, each level's per-cut-off block repeated per k."""
    return [name for level in LEVELS for name, _, _ in names_of(frozenset({level}), tuple(ks))]


def first_ranks(entities: Iterable[str]) -> list[str]:
    """Return ``entities`` without repeats, each at its first rank."""
    return list(dict.fromkeys(entities))


def score_level(level: str, retrieved: Sequence[str], truth: Iterable[str], ks: Sequence[int]) -> dict[str, float]:
    """Return the metrics of one level (``modules`` or ``functions``) for one ranked entity answer.

    ``{prefix}_acc@k`` = 1 if hits(k) = min(k, R) (R > 0), ``{prefix}_recall@k`` = hits(k) / R,
    ``{prefix}_ndcg@k`` = DCG@k / IDCG@k, ``{prefix}_mrr`` = 1 / first relevant rank and
    ``{prefix}_map`` = Σ_{relevant rank i} (hits(i) / i) / R, all 0.0 when R = 0.
    """
    if level == "functions":
        retrieved, truth = [constructor_as_class(e) for e in retrieved], [constructor_as_class(e) for e in truth]
    hits = Hits.find(first_ranks(retrieved), dict.fromkeys(truth, 1))
    counts = CaseCounts(hits, 0, 0)
    return {
        name: metric.formula(counts, k)
        for name, metric, k in names_of(frozenset({level}), tuple(ks))
        if metric.formula is not None
    }


def constructor_as_class(entity: str) -> str:
    """Return ``path.py:Class`` for ``path.py:Class.__init__``, any other entity as it is."""
    return entity.removesuffix(".__init__") if entity.endswith(".__init__") and ":" in entity else entity


def level_truth(case: TestCase) -> dict[str, list[str]]:
    """Return the case's ground truth at each entity level that has any, by level."""
    truth = {"modules": case.ground_truth_modules, "functions": case.ground_truth_functions}
    return {level: entities for level, entities in truth.items() if entities}


def score_levels(
    case: TestCase, modules: Sequence[str], functions: Sequence[str], ks: Sequence[int]
) -> dict[str, float]:
    """Return the ``module_*`` and ``function_*`` metrics of the levels at which ``case`` has ground truth."""
    answers = {"modules": modules, "functions": functions}
    metrics: dict[str, float] = {}
    for level, truth in level_truth(case).items():
        metrics.update(score_level(level, answers[level], truth, ks))
    return metrics
