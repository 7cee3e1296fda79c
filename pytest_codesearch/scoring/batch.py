"""Score many ranked answers at once: ``score_case`` for a batch, vectorised with numpy.

``score_batch`` returns the same numbers as calling ``score_case`` on every case (the tests check
it bit for bit), for re-scoring large runs and for ``benchmarks/bench_metrics.py``. One Python
pass per case finds where the relevant paths sit (a set intersection and ``list.index``, both in
C); every metric is then computed for all cases together from the flat list of hits. Sums are
taken hit by hit in rank order, exactly as ``ranking.Hits`` does, so results agree to the bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pytest_codesearch.scoring.case import metric_names, score_case

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class _Batch:
    """The hits of every case, sorted by (case, rank), and each case's size figures."""

    n_cases: int
    case: npt.NDArray[np.intp]
    rank: npt.NDArray[np.intp]
    gain: Array
    order: Array
    n_relevant: Array
    length: Array
    ideal_case: npt.NDArray[np.intp]
    ideal_position: npt.NDArray[np.intp]
    ideal_gain: Array

    def count(self, mask: npt.NDArray[np.bool_]) -> Array:
        """Return, per case, how many of its hits ``mask`` keeps."""
        return np.bincount(self.case[mask], minlength=self.n_cases).astype(np.float64)

    def total(self, mask: npt.NDArray[np.bool_], weights: Array) -> Array:
        """Return, per case, the sum of ``weights`` over the hits ``mask`` keeps, in rank order."""
        sums = np.bincount(self.case[mask], weights=weights[mask], minlength=self.n_cases)
        return sums.astype(np.float64, copy=False)


def score_batch(
    runs: Sequence[Sequence[str]],
    relevances: Sequence[Mapping[str, int]],
    *,
    ks: Sequence[int] = (1, 5, 10),
    k: int | None = None,
    directories: Sequence[AbstractSet[str]] | None = None,
    f_beta: float | None = None,
) -> tuple[list[str], Array]:
    """Return ``metric_names(ks, f_beta is not None)`` and a (cases x metrics) array of scores.

    Row i equals ``score_case(runs[i], relevances[i], ks=ks, k=k, directories=directories[i],
    f_beta=f_beta)``; like ``score_case`` it expects normalised answers (no duplicates). Cases
    whose answer holds a directory are scored by ``score_case`` itself (partial credit needs the
    paths). Raises ValueError when the lengths differ or ``k`` or ``ks`` are invalid.
    """
    if len(runs) != len(relevances) or (directories is not None and len(directories) != len(runs)):
        raise ValueError("runs, relevances and directories must have one entry per case")
    if k is not None and k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    names = metric_names(ks, f_beta is not None)
    batch = _collect(runs, relevances)
    columns = _set_columns(batch, k, f_beta)
    columns.update(_cutoff_columns(batch, ks))
    columns.update(_list_columns(batch))
    missing = [name for name in names if name not in columns]
    if missing:
        raise ValueError(f"score_batch has no formula for {', '.join(missing)} (scoring/batch.py)")
    matrix = np.column_stack([columns[name] for name in names]) if names else np.empty((len(runs), 0))
    for row in _rows_with_directories(runs, directories, k):
        dirs = directories[row] if directories is not None else frozenset()
        scores = score_case(runs[row], relevances[row], ks=ks, k=k, directories=dirs, f_beta=f_beta)
        matrix[row] = [scores[name] for name in names]
    return names, matrix


def _collect(runs: Sequence[Sequence[str]], relevances: Sequence[Mapping[str, int]]) -> _Batch:
    """Return the batch's hits (case, rank, grade) and ideal grades, sorted for summation."""
    hit_case: list[int] = []
    hit_rank: list[int] = []
    hit_grade: list[int] = []
    grades: list[int] = []
    sizes: list[int] = []
    for i, (ranked, relevance) in enumerate(zip(runs, relevances)):
        for path in relevance.keys() & ranked:
            hit_case.append(i)
            hit_rank.append(ranked.index(path) + 1)
            hit_grade.append(relevance[path])
        grades.extend(relevance.values())
        sizes.append(len(relevance))
    n_cases = len(runs)
    case = np.asarray(hit_case, dtype=np.intp)
    rank = np.asarray(hit_rank, dtype=np.intp)
    by_rank = np.lexsort((rank, case))
    case, rank = case[by_rank], rank[by_rank]
    grade = np.asarray(hit_grade, dtype=np.float64)[by_rank]
    n_relevant = np.asarray(sizes, dtype=np.intp)
    ideal_case = np.repeat(np.arange(n_cases, dtype=np.intp), n_relevant)
    ideal_grade = np.asarray(grades, dtype=np.float64)
    ideal_grade = ideal_grade[np.lexsort((-ideal_grade, ideal_case))]
    starts = np.concatenate(([0], np.cumsum(n_relevant)[:-1])).astype(np.intp)
    ideal_position = np.arange(ideal_case.size, dtype=np.intp) - starts[ideal_case] + 1
    first_hit = np.concatenate(([0], np.flatnonzero(np.diff(case)) + 1)) if case.size else case
    order = np.arange(case.size, dtype=np.float64) + 1.0
    if case.size:
        order -= np.repeat(first_hit.astype(np.float64), np.diff(np.append(first_hit, case.size)))
    discount = _discounts(max(int(rank.max(initial=0)), int(n_relevant.max(initial=0))))
    return _Batch(
        n_cases=n_cases,
        case=case,
        rank=rank,
        gain=grade / discount[rank],
        order=order,
        n_relevant=n_relevant.astype(np.float64),
        length=np.asarray([len(r) for r in runs], dtype=np.float64),
        ideal_case=ideal_case,
        ideal_position=ideal_position,
        ideal_gain=ideal_grade / discount[ideal_position],
    )


def _discounts(deepest: int) -> Array:
    """Return log2(rank + 1) for ranks 0..deepest, computed by ``math.log2`` as ``Hits`` does."""
    return np.asarray([math.log2(rank + 1) for rank in range(deepest + 1)], dtype=np.float64)


def _ratio(part: Array, whole: Array) -> Array:
    """Return part / whole elementwise, 0.0 where whole is 0."""
    safe = np.where(whole > 0, whole, 1.0)
    return np.where(whole > 0, part / safe, 0.0)


def _set_columns(batch: _Batch, k: int | None, f_beta: float | None) -> dict[str, Array]:
    """Return precision, recall, f1, f1_partial (and f_beta) of the top k, or of every answer."""
    if k is None:
        found = batch.count(np.ones(batch.case.size, dtype=bool))
        size = batch.length
    else:
        found = batch.count(batch.rank <= k)
        size = np.minimum(batch.length, float(k))
    precision = _ratio(found, size)
    recall = _ratio(found, batch.n_relevant)
    f1 = _ratio(2.0 * precision * recall, precision + recall)
    columns = {"precision": precision, "recall": recall, "f1": f1, "f1_partial": f1}
    if f_beta is not None:
        weight = f_beta * f_beta
        columns["f_beta"] = _ratio((1.0 + weight) * precision * recall, weight * precision + recall)
    return columns


def _cutoff_columns(batch: _Batch, ks: Sequence[int]) -> dict[str, Array]:
    """Return precision, recall, hit, ndcg, all_hit and recall_cap at every cutoff of ``ks``."""
    columns: dict[str, Array] = {}
    n_relevant = batch.n_relevant
    for cutoff in ks:
        kept = batch.rank <= cutoff
        found = batch.count(kept)
        cap = np.minimum(float(cutoff), n_relevant)
        placed = batch.ideal_position <= cutoff
        ideal = np.bincount(
            batch.ideal_case[placed], weights=batch.ideal_gain[placed], minlength=batch.n_cases
        ).astype(np.float64, copy=False)
        columns[f"precision@{cutoff}"] = found / cutoff
        columns[f"recall@{cutoff}"] = _ratio(found, n_relevant)
        columns[f"hit@{cutoff}"] = (found > 0).astype(np.float64)
        columns[f"ndcg@{cutoff}"] = _ratio(batch.total(kept, batch.gain), ideal)
        columns[f"all_hit@{cutoff}"] = ((n_relevant > 0) & (found == n_relevant)).astype(np.float64)
        columns[f"recall_cap@{cutoff}"] = _ratio(found, cap)
    return columns


def _list_columns(batch: _Batch) -> dict[str, Array]:
    """Return mrr, map and r_precision of every case."""
    reciprocal = np.zeros(batch.n_cases, dtype=np.float64)
    first = batch.order == 1.0
    reciprocal[batch.case[first]] = 1.0 / batch.rank[first]
    every = np.ones(batch.case.size, dtype=bool)
    precisions = batch.order / batch.rank
    in_top_r = batch.rank <= batch.n_relevant[batch.case]
    return {
        "mrr": reciprocal,
        "map": _ratio(batch.total(every, precisions), batch.n_relevant),
        "r_precision": _ratio(batch.count(in_top_r), batch.n_relevant),
    }


def _rows_with_directories(
    runs: Sequence[Sequence[str]], directories: Sequence[AbstractSet[str]] | None, k: int | None
) -> list[int]:
    """Return the cases whose scored answer (its top k, if k is given) holds a directory."""
    if directories is None:
        return []
    return [
        row
        for row, (ranked, dirs) in enumerate(zip(runs, directories))
        if dirs and not dirs.isdisjoint(ranked if k is None else ranked[:k])
    ]
