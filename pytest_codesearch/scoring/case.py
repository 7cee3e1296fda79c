"""Every metric of one case, in report order, and which metrics apply to which case.

The names, their order and the formulas all come from the metric registry (``scoring.registry``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring.counts import CaseCounts
from pytest_codesearch.scoring.profiles import get_profile
from pytest_codesearch.scoring.ranking import Hits, hit_grades, ideal_grades
from pytest_codesearch.scoring.registry import Formula, names_of
from pytest_codesearch.scoring.sets import partial_credit

ALWAYS = frozenset({"always"})
WITH_F_BETA = frozenset({"always", "f_beta"})
OPTIONAL = frozenset({"lines", "symbols", "hard_negatives", "modules", "functions"})


def metric_names(ks: Sequence[int], f_beta: bool = False, profile: str = "native") -> list[str]:
    """Return the names of the metrics every scored case carries, in report order.

    The registry's metrics that apply to every case (and ``f_beta`` when ``f_beta`` is true), in
    registry order, each per-cut-off block repeated for each k of ``ks`` in the given order:
    ``precision, recall, f1, f1_partial, precision@1, recall@1, ..., mrr, map, r_precision``.
    Raises ValueError unless every k is a distinct positive integer. The scoring ``profile``'s own names
    follow (``scoring/profiles/``: CoSIL's ``top@k``, OrcaLoca's ``match``).
    """
    native = [name for name, _ in scoring_plan(tuple(ks), f_beta)]
    return [*native, *(n for n in get_profile(profile).metric_names(ks) if n not in native)]


def optional_metric_names(ks: Sequence[int]) -> list[str]:
    """Return the names of the metrics only some cases carry, in report order.

    Line metrics (cases whose ground truth gives ``lines``), then ``symbol_hit@k`` for each k,
    ``symbol_mrr`` (cases whose ground truth names ``symbols``) and ``hard_negative_rate`` (cases
    that also list ``hard_negatives``), then the ``module_*`` and ``function_*`` metrics (cases with
    ``ground_truth_modules`` / ``ground_truth_functions``).
    """
    return [name for name, _, _ in names_of(OPTIONAL, _checked(tuple(ks)))]


def applicable_metrics(case: TestCase, ks: Sequence[int], f_beta: bool, profile: str = "native") -> list[str]:
    """Return the names of the metrics that apply to ``case``, in report order.

    ``metric_names(ks, f_beta)``, then the line metrics if a ground-truth file gives ``lines``,
    the symbol metrics if one names ``symbols``, ``hard_negative_rate`` if the case also lists
    ``hard_negatives``, and the ``module_*`` / ``function_*`` metrics if it lists
    ``ground_truth_modules`` / ``ground_truth_functions``. A scored case carries exactly these; a
    case in error carries each as 0.0. Then the names the scoring ``profile`` adds (``metric_names``).
    """
    scopes = set(WITH_F_BETA if f_beta else ALWAYS)
    if any(entry.lines for entry in case.ground_truth_files):
        scopes.add("lines")
    if any(entry.symbols for entry in case.ground_truth_files):
        scopes.add("symbols")
        if case.hard_negatives:
            scopes.add("hard_negatives")
    if case.ground_truth_modules:
        scopes.add("modules")
    if case.ground_truth_functions:
        scopes.add("functions")
    names = [name for name, _, _ in names_of(frozenset(scopes), _checked(tuple(ks)))]
    return [*names, *(n for n in get_profile(profile).metric_names(ks) if n not in names)]


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
    ``f_beta`` is the beta of the ``f_beta`` metric, left out when None. The formulas are those of
    the registry (``scoring.registry.METRICS``), read from one scan of the list (``ranking.Hits``).
    """
    if k is not None and k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    ks = tuple(ks)
    scored = retrieved if k is None else retrieved[:k]
    partial = None
    if directories and not directories.isdisjoint(scored):
        partial = partial_credit(scored, relevance, directories)
    values = _score_hits(
        hit_grades(retrieved, relevance), ideal_grades(relevance), k, len(scored), partial, f_beta, ks
    )
    return dict(zip(_plan_names(ks, f_beta is not None), values))


@lru_cache(maxsize=4096)
def _score_hits(
    hits: tuple[tuple[int, int], ...],
    best: tuple[int, ...],
    k: int | None,
    set_size: int,
    partial: tuple[float, float] | None,
    f_beta: float | None,
    ks: tuple[int, ...],
) -> tuple[float, ...]:
    """Return the values of ``scoring_plan(ks, ...)`` for an answer whose relevant entries sit at
    ``hits`` (rank, grade); see ``score_case``.

    Everything a formula reads is in the arguments, so answers that place their hits alike (every miss
    of a one-file case, say) share one computation: the cache returns the very numbers it would compute.
    """
    found = Hits.of_grades(hits, best)
    counts = CaseCounts(
        found,
        len(found.ranks) if k is None else found.count_at(k),
        set_size,
        partial,
        1.0 if f_beta is None else f_beta,
    )
    return tuple(formula(counts, cutoff) for _, (formula, cutoff) in scoring_plan(ks, f_beta is not None))


@lru_cache(maxsize=32)
def _plan_names(ks: tuple[int, ...], f_beta: bool) -> tuple[str, ...]:
    return tuple(name for name, _ in scoring_plan(ks, f_beta))


@lru_cache(maxsize=32)
def scoring_plan(ks: tuple[int, ...], f_beta: bool) -> tuple[tuple[str, tuple[Formula, int]], ...]:
    """Return (name, (formula, k)) of every metric each case carries (cached per ks)."""
    named = names_of(WITH_F_BETA if f_beta else ALWAYS, _checked(ks))
    return tuple((name, (metric.formula, k)) for name, metric, k in named if metric.formula is not None)


def _checked(ks: tuple[int, ...]) -> tuple[int, ...]:
    """Return ``ks`` after checking that they are distinct positive integers."""
    if len(set(ks)) != len(ks) or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in ks):
        raise ValueError(f"ks must be distinct positive integers, got {list(ks)}")
    return ks
