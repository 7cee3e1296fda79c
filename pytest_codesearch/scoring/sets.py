"""Set metrics of one answer: the retrieved paths taken as an unordered set.

A retrieved path is relevant when it is one of the ground-truth paths. ``f1_partial`` also gives
half credit to a retrieved directory that holds ground-truth files (see ``partial_credit``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

#: Credit of a retrieved directory that holds at least one ground-truth file, and of a
#: ground-truth file found only through such a directory.
DIRECTORY_CREDIT = 0.5


class SetScores(NamedTuple):
    """The four set metrics of one answer, each in [0, 1]."""

    precision: float
    recall: float
    f1: float
    f1_partial: float


def count_relevant(retrieved: Sequence[str], relevant: Collection[str]) -> int:
    """Return how many retrieved entries are relevant: |retrieved ∩ relevant|."""
    return sum(1 for path in retrieved if path in relevant)


def precision(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Return the set precision |retrieved ∩ relevant| / |retrieved|; 0.0 if nothing is retrieved.

    This is trec_eval's ``set_P``.
    """
    return _ratio(count_relevant(retrieved, relevant), len(retrieved))


def recall(retrieved: Sequence[str], relevant: Collection[str]) -> float:
    """Return the set recall |retrieved ∩ relevant| / |relevant|; 0.0 if nothing is relevant.

    This is trec_eval's ``set_recall``.
    """
    return _ratio(count_relevant(retrieved, relevant), len(relevant))


def f1(precision: float, recall: float) -> float:
    """Return the harmonic mean 2·P·R / (P + R) of precision and recall; 0.0 if both are 0.

    With set precision and recall this is trec_eval's ``set_F`` (beta = 1).
    """
    total = precision + recall
    return 2.0 * precision * recall / total if total > 0.0 else 0.0


def f_beta(precision: float, recall: float, beta: float) -> float:
    """Return (1 + β²)·P·R / (β²·P + R); 0.0 if the denominator is 0.

    β > 1 weighs recall higher, β < 1 precision; β = 1 gives ``f1``. trec_eval writes the same
    measure as ``set_F.x`` with x = β² (its parameter multiplies P directly).
    """
    weight = beta * beta
    total = weight * precision + recall
    return (1.0 + weight) * precision * recall / total if total > 0.0 else 0.0


def partial_credit(
    retrieved: Sequence[str], relevant: Collection[str], directories: AbstractSet[str]
) -> tuple[float, float]:
    """Return (partial precision, partial recall) with half credit for directories.

    An entry earns 1 if it is a ground-truth path, 0.5 if it is listed in ``directories`` and is a
    proper prefix (``dir + "/"``) of at least one ground-truth path, else 0; partial precision =
    Σ entry credit / |retrieved|. A ground-truth path earns 1 if retrieved itself, else 0.5 if a
    retrieved directory holds it, else 0; partial recall = Σ path credit / |relevant|.
    """
    entry_credit = 0.0
    found: set[str] = set()
    covered: set[str] = set()
    for entry in retrieved:
        if entry in relevant:
            entry_credit += 1.0
            found.add(entry)
        elif entry in directories:
            inside = _inside(entry, relevant)
            if inside:
                entry_credit += DIRECTORY_CREDIT
                covered.update(inside)
    path_credit = len(found) + DIRECTORY_CREDIT * len(covered - found)
    return _ratio(entry_credit, len(retrieved)), _ratio(path_credit, len(relevant))


def set_scores(
    retrieved: Sequence[str],
    relevant: Collection[str],
    directories: AbstractSet[str] = frozenset(),
    *,
    found: int | None = None,
) -> SetScores:
    """Return precision, recall, f1 and f1_partial of ``retrieved`` as a ``SetScores``.

    P = found / |retrieved|, R = found / |relevant|, f1 = 2·P·R / (P + R), where ``found`` is
    |retrieved ∩ relevant| (counted here unless the caller passes it). f1_partial is the same mean
    of the ``partial_credit`` pair; it equals f1 when no retrieved entry is in ``directories``.
    """
    if found is None:
        found = count_relevant(retrieved, relevant)
    set_p = _ratio(found, len(retrieved))
    set_r = _ratio(found, len(relevant))
    set_f = f1(set_p, set_r)
    if not directories or directories.isdisjoint(retrieved):
        return SetScores(set_p, set_r, set_f, set_f)
    return SetScores(set_p, set_r, set_f, f1(*partial_credit(retrieved, relevant, directories)))


def _inside(directory: str, paths: Collection[str]) -> list[str]:
    """Return the paths that lie below ``directory`` (a trailing slash on it is ignored)."""
    prefix = directory.rstrip("/") + "/"
    return [path for path in paths if path.startswith(prefix)]


def _ratio(part: float, whole: int) -> float:
    """Return part / whole as a float, or 0.0 when whole is 0."""
    return part / whole if whole else 0.0
