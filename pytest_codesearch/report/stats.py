"""Numeric summaries for benchmark results (numpy inside, plain Python floats out).

Nothing here knows about cases or agents: functions take arrays of numbers and return builtins,
so their results can go straight into JSON or across pytest-xdist (PITFALLS 2).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from statistics import NormalDist
from typing import TypedDict

import numpy as np
import numpy.typing as npt

PERCENTILES = (50.0, 90.0, 99.0)
"""The latency percentiles reported, as p50 / p90 / p99."""
CONFIDENCE = 0.95
"""Coverage of the bootstrap intervals."""
PERMUTATIONS = 10_000
"""Random sign vectors of a randomization test; fewer cases than log2 of this are enumerated exactly."""
DETECTABLE_DIFFERENCE = 0.05
"""The difference in a mean metric the power check asks the run to be able to detect."""
POWER = 0.8
"""The power of that check."""
_CHUNK_ELEMENTS = 2_500_000
"""Resamples or permutations are drawn in chunks of about this many (cases x draws) entries."""


class Summary(TypedDict):
    """Centre and spread of a sample."""

    mean: float
    median: float
    std: float


class Percentiles(TypedDict):
    """Latency percentiles and mean; all None for an empty sample."""

    p50: float | None
    p90: float | None
    p99: float | None
    mean: float | None


def summarize(values: Sequence[float]) -> Summary:
    """Return mean, median and sample std (ddof=1, 0.0 for one value) of a non-empty sample."""
    column = np.asarray(values, dtype=np.float64).reshape(-1, 1)
    return summarize_columns(column)[0]


def summarize_columns(matrix: npt.ArrayLike) -> list[Summary]:
    """Summarise each column of a 2-D array (rows are cases, columns are metrics) at once.

    Raises ``ValueError`` when the array is not 2-D or has no rows.
    """
    data = np.asarray(matrix, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] == 0:
        raise ValueError(f"need a 2-D array with at least one row, got shape {data.shape}")
    lows, highs = data.min(axis=0), data.max(axis=0)
    # a constant column has mean c and std 0 exactly, not c + 1 ulp and 1e-17 from rounding
    means = np.clip(data.mean(axis=0), lows, highs).tolist()
    medians = np.median(data, axis=0).tolist()
    if data.shape[0] > 1:
        stds = np.where(highs > lows, data.std(axis=0, ddof=1), 0.0).tolist()
    else:
        stds = [0.0] * data.shape[1]
    return [
        Summary(mean=float(m), median=float(md), std=float(s))
        for m, md, s in zip(means, medians, stds)
    ]


def latency_percentiles(values: Sequence[float]) -> Percentiles:
    """Return p50, p90, p99 (linear interpolation) and the mean; all None for no values."""
    if len(values) == 0:
        return Percentiles(p50=None, p90=None, p99=None, mean=None)
    data = np.asarray(values, dtype=np.float64)
    p50, p90, p99 = np.percentile(data, PERCENTILES, method="linear").tolist()
    return Percentiles(p50=float(p50), p90=float(p90), p99=float(p99), mean=float(data.mean()))


def best_positions(values: Sequence[float | None], *, higher_is_better: bool) -> set[int]:
    """Return the indices holding the best value (all of them on a tie); None never wins.

    Callers pass values rounded as they display them, so that equal-looking cells tie.
    """
    present = [v for v in values if v is not None]
    if not present:
        return set()
    best = max(present) if higher_is_better else min(present)
    return {i for i, v in enumerate(values) if v is not None and v == best}


def seeded_rng(seed: int, *labels: str) -> np.random.Generator:
    """Return a generator determined by the run seed and ``labels`` alone.

    Labels are hashed with CRC-32 (stable across processes, unlike ``hash``), so the interval of one
    agent does not depend on which other agents ran or in which order they were aggregated.
    """
    words = [seed] + [zlib.crc32(label.encode("utf-8")) for label in labels]
    return np.random.default_rng(np.random.SeedSequence(words))


def summarize_present(matrix: npt.ArrayLike) -> list[Summary | None]:
    """Summarise each column over its finite entries (NaN marks "absent"); None for an empty column."""
    data = np.asarray(matrix, dtype=np.float64)
    found: list[Summary | None] = [None] * data.shape[1]
    for rows, columns in presence_groups(data):
        for column, summary in zip(columns, summarize_columns(data[rows][:, columns])):
            found[column] = summary
    return found


def bootstrap_ci(
    matrix: npt.ArrayLike,
    resamples: int,
    rng: np.random.Generator,
    confidence: float = CONFIDENCE,
) -> list[tuple[float, float]]:
    """Return the percentile bootstrap interval ``(low, high)`` of each column's mean.

    Every column is resampled with the same row indices. A resample is drawn as a row of counts
    (how often each case was picked, from ``n`` uniform indices), so the resampled means of all
    columns are one matrix product ``counts @ matrix / n``; this is the ordinary bootstrap, done in
    chunks to bound memory. Bounds are the (1 - confidence)/2 and (1 + confidence)/2 quantiles
    (linear interpolation) of the resampled means, clipped to the column's range so that a
    constant column gets [c, c] despite rounding. Raises ``ValueError`` on an empty matrix.
    """
    data = np.asarray(matrix, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] == 0:
        raise ValueError(f"need a 2-D array with at least one row, got shape {data.shape}")
    if resamples < 1:
        raise ValueError(f"need at least one resample, got {resamples}")
    means = _resampled_means(data, resamples, rng)
    tail = (1.0 - confidence) / 2.0
    bounds = np.quantile(means, [tail, 1.0 - tail], axis=0, method="linear").T
    clipped = np.clip(bounds, data.min(axis=0)[:, None], data.max(axis=0)[:, None])
    return [(float(low), float(high)) for low, high in clipped.tolist()]


def bootstrap_ci_present(
    matrix: npt.ArrayLike,
    resamples: int,
    rng: np.random.Generator,
    confidence: float = CONFIDENCE,
) -> list[tuple[float, float] | None]:
    """Return each column's bootstrap interval over its finite entries; None for an empty column.

    Columns present on the same rows (the usual case: every metric on every case) share one
    resampling; each other presence pattern is resampled on its own rows, in column order.
    """
    data = np.asarray(matrix, dtype=np.float64)
    found: list[tuple[float, float] | None] = [None] * data.shape[1]
    for rows, columns in presence_groups(data):
        bounds = bootstrap_ci(data[rows][:, columns], resamples, rng, confidence)
        for column, interval in zip(columns, bounds):
            found[column] = interval
    return found


def presence_groups(matrix: npt.ArrayLike) -> list[tuple[npt.NDArray[np.bool_], list[int]]]:
    """Return the columns grouped by the rows on which they are finite (NaN means absent).

    Each group is (row mask, column indices), in the order of each group's first column; columns
    with no finite entry are left out.
    """
    present = ~np.isnan(np.asarray(matrix, dtype=np.float64))
    groups: dict[bytes, tuple[npt.NDArray[np.bool_], list[int]]] = {}
    for column in range(present.shape[1]):
        rows = present[:, column]
        if rows.any():
            groups.setdefault(rows.tobytes(), (rows, []))[1].append(column)
    return list(groups.values())


def _resampled_means(
    data: npt.NDArray[np.float64], resamples: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """Return a (resamples x columns) array of the column means of bootstrap resamples of rows."""
    n = data.shape[0]
    chunk = max(1, min(resamples, _CHUNK_ELEMENTS // n))
    means = np.empty((resamples, data.shape[1]), dtype=np.float64)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        picks = rng.integers(0, n, size=(size, n))
        picks += (np.arange(size) * n)[:, None]  # one bincount for the whole chunk
        counts = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n)
        means[start : start + size] = counts.astype(np.float64) @ data / n
    return means


def sign_flip_pvalues(
    differences: npt.ArrayLike,
    rng: np.random.Generator,
    permutations: int = PERMUTATIONS,
) -> list[float]:
    """Return the two-sided p-value of a paired sign-flip (randomization) test for each column.

    Under the null hypothesis that two agents are exchangeable on each case, the sign of every
    paired difference is a fair coin. The statistic is |Σ d|. With n paired cases, when 2**n is
    at most ``permutations`` all 2**n sign vectors are enumerated and p is the exact share with
    |Σ s·d| >= |Σ d|; otherwise ``permutations`` random sign vectors are drawn and
    p = (1 + hits) / (permutations + 1), which never reports 0. All-zero differences give 1.0.
    """
    data = np.asarray(differences, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] == 0:
        raise ValueError(f"need a 2-D array with at least one row, got shape {data.shape}")
    n = data.shape[0]
    observed = np.abs(data.sum(axis=0))
    # sums of the same numbers in another order differ by rounding: never let that decide
    tolerance = 1e-9 * np.maximum(1.0, np.abs(data).sum(axis=0))
    if n <= math.log2(permutations):
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        hits = (np.abs((1 - 2 * bits) @ data) >= observed - tolerance).sum(axis=0)
        return [float(h) / 2**n for h in hits.tolist()]
    hits = np.zeros(data.shape[1], dtype=np.int64)
    chunk = max(1, min(permutations, _CHUNK_ELEMENTS // n))
    for start in range(0, permutations, chunk):
        size = min(chunk, permutations - start)
        flipped = rng.random((size, n)) < 0.5
        sums = data.sum(axis=0) - 2.0 * (flipped.astype(np.float64) @ data)
        hits += (np.abs(sums) >= observed - tolerance).sum(axis=0)
    return [(1.0 + float(h)) / (permutations + 1.0) for h in hits.tolist()]


def holm(pvalues: Sequence[float]) -> list[float]:
    """Return Holm's step-down adjusted p-values, in the input order.

    Sorted ascending, the i-th smallest (0-based) becomes max over j <= i of min(1, (m - j)·p_j),
    so adjusted values keep the order of the raw ones and rejecting ``p_holm < alpha`` controls
    the family-wise error rate at alpha across all ``m`` tests.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def cases_needed(
    sd: float, alpha: float, difference: float = DETECTABLE_DIFFERENCE, power: float = POWER
) -> int:
    """Return the paired cases needed to detect a mean difference ``difference`` (normal approximation).

    n = ceil(((z_{1 - alpha/2} + z_{power}) · sd / difference)²), with ``sd`` the standard
    deviation of the paired differences: the two-sided z-test of a mean with known spread.
    Returns 0 when ``sd`` is 0 (no spread: any difference would show at once).
    """
    normal = NormalDist()
    z = normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)
    return math.ceil((z * sd / difference) ** 2 - 1e-9)


def fewest_testable_cases(alpha: float) -> int:
    """Return the fewest paired cases with which a two-sided sign-flip test can give p < ``alpha``.

    With n cases the smallest exact p-value is 2 / 2**n (all signs agree, either way), so this is
    the smallest n with 2 / 2**n < alpha: 6 for alpha = 0.05.
    """
    n = 1
    while 2.0 / 2**n >= alpha:
        n += 1
    return n
