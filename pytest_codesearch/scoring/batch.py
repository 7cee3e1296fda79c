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

from pytest_codesearch.scoring.case import scoring_plan, score_case
from pytest_codesearch.scoring.counts import Array


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
    f_beta=f_beta)``; like ``score_case`` it expects normalised answers (no duplicates) and runs
    the registry's formulas, here on ``BatchCounts``. Cases whose answer holds a directory are
    scored by ``score_case`` itself (partial credit needs the paths). Raises ValueError when the
    lengths differ or ``k`` or ``ks`` are invalid.
    """
    if len(runs) != len(relevances) or (directories is not None and len(directories) != len(runs)):
        raise ValueError("runs, relevances and directories must have one entry per case")
    if k is not None and k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    plan = scoring_plan(tuple(ks), f_beta is not None)
    names = [name for name, _ in plan]
    counts = BatchCounts(_collect(runs, relevances), k, 1.0 if f_beta is None else f_beta)
    columns = [formula(counts, cutoff) for _, (formula, cutoff) in plan]
    matrix = np.column_stack(columns) if columns else np.empty((len(runs), 0))
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


class BatchCounts:
    """``Counts`` of every case of a batch at once: each value is an array with one entry per case.

    Hit counts and gains are summed hit by hit in rank order (``np.bincount``), as ``Hits`` does,
    and cached per cut-off, so formulas that read the same count share one pass.
    """

    def __init__(self, batch: _Batch, k: int | None, beta: float) -> None:
        self._batch = batch
        self._found: dict[int, Array] = {}
        self.beta = beta
        self.n_relevant = batch.n_relevant
        if k is None:
            self.set_found = batch.count(np.ones(batch.case.size, dtype=bool))
            self.set_size = batch.length
        else:
            self.set_found = self.found_at(k)
            self.set_size = np.minimum(batch.length, float(k))

    def found_at(self, k: int) -> Array:
        """Return hits(k) of every case."""
        if k not in self._found:
            self._found[k] = self._batch.count(self._batch.rank <= k)
        return self._found[k]

    def found_at_r(self) -> Array:
        """Return hits(R) of every case."""
        batch = self._batch
        return batch.count(batch.rank <= batch.n_relevant[batch.case])

    def dcg_at(self, k: int) -> Array:
        """Return DCG@k of every case."""
        return self._batch.total(self._batch.rank <= k, self._batch.gain)

    def idcg_at(self, k: int) -> Array:
        """Return IDCG@k of every case."""
        batch = self._batch
        placed = batch.ideal_position <= k
        ideal = np.bincount(batch.ideal_case[placed], weights=batch.ideal_gain[placed], minlength=batch.n_cases)
        return ideal.astype(np.float64, copy=False)

    def reciprocal_rank(self) -> Array:
        """Return 1 / rank of the first relevant entry of every case, 0.0 where none."""
        batch = self._batch
        reciprocal = np.zeros(batch.n_cases, dtype=np.float64)
        first = batch.order == 1.0
        reciprocal[batch.case[first]] = 1.0 / batch.rank[first]
        return reciprocal

    def precision_sum(self) -> Array:
        """Return Σ over relevant ranks i of hits(i) / i, for every case."""
        batch = self._batch
        return batch.total(np.ones(batch.case.size, dtype=bool), batch.order / batch.rank)

    def partial_credit(self) -> tuple[Array, Array] | None:
        """Return None: rows whose answer holds a directory are rescored by ``score_case``."""
        return None

    def ratio(self, part: Array, whole: Array) -> Array:
        """Return part / whole elementwise, 0.0 where whole is 0."""
        safe = np.where(whole > 0, whole, 1.0)
        return np.where(whole > 0, part / safe, 0.0)

    def positive(self, value: Array) -> Array:
        """Return 1.0 where value > 0, else 0.0."""
        return (value > 0).astype(np.float64)

    def equal(self, left: Array, right: Array) -> Array:
        """Return 1.0 where left == right, else 0.0."""
        same: npt.NDArray[np.bool_] = np.equal(left, right)
        return same.astype(np.float64)

    def cap(self, k: int, value: Array) -> Array:
        """Return min(k, value) elementwise."""
        return np.minimum(float(k), value)


def _discounts(deepest: int) -> Array:
    """Return log2(rank + 1) for ranks 0..deepest, computed by ``math.log2`` as ``Hits`` does."""
    return np.asarray([math.log2(rank + 1) for rank in range(deepest + 1)], dtype=np.float64)


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
