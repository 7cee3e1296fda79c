"""Symbol-level scores: the fully qualified names an agent ranks, against those the gold set names.

They apply to a case whose ground truth names ``symbols``. Names are compared exactly (case
included): the gold set and the agent must spell a symbol the same way, e.g.
``shop.auth.hashing.hash_password``. A name the agent repeats keeps its first rank.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pytest_codesearch.goldset.model import TestCase

SYMBOL_CUTOFF_METRIC = "symbol_hit"
"""Reported once per cutoff of ``ks`` as ``symbol_hit@k``."""
SYMBOL_MRR_METRIC = "symbol_mrr"
HARD_NEGATIVE_METRIC = "hard_negative_rate"
"""Applies only to cases that list ``hard_negatives``."""


def symbol_metric_names(ks: Sequence[int]) -> list[str]:
    """Return ``symbol_hit@k`` for each k of ``ks`` in order, then ``symbol_mrr``."""
    return [*(f"{SYMBOL_CUTOFF_METRIC}@{k}" for k in ks), SYMBOL_MRR_METRIC]


def truth_symbols(case: TestCase) -> frozenset[str]:
    """Return every symbol the case's ground-truth files name."""
    return frozenset(symbol for entry in case.ground_truth_files for symbol in entry.symbols)


def score_symbols(
    returned: Sequence[str],
    positives: Collection[str],
    hard_negatives: Collection[str],
    ks: Sequence[int],
) -> dict[str, float]:
    """Return ``symbol_hit@k`` for each k, ``symbol_mrr`` and, when ``hard_negatives`` is not empty,
    ``hard_negative_rate`` of one ranked list of symbols.

    With r the rank of the first returned positive (after dropping repeated names):
    symbol_hit@k = 1.0 if r <= k, else 0.0; symbol_mrr = 1 / r, 0.0 if no positive was returned;
    hard_negative_rate = 1.0 if some hard negative is ranked above r (anywhere in the list when
    no positive was returned), else 0.0.
    """
    first_positive: int | None = None
    first_negative: int | None = None
    seen: set[str] = set()
    for name in returned:
        if name in seen:
            continue
        seen.add(name)
        if name in positives:
            first_positive = len(seen)
            break  # what follows the first positive changes no score
        if first_negative is None and name in hard_negatives:
            first_negative = len(seen)
    scores = {
        f"{SYMBOL_CUTOFF_METRIC}@{k}": 1.0 if first_positive is not None and first_positive <= k else 0.0 for k in ks
    }
    scores[SYMBOL_MRR_METRIC] = 1.0 / first_positive if first_positive is not None else 0.0
    if hard_negatives:
        above = first_negative is not None and (first_positive is None or first_negative < first_positive)
        scores[HARD_NEGATIVE_METRIC] = 1.0 if above else 0.0
    return scores
