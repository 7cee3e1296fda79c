"""Numeric summaries for benchmark results (numpy inside, plain Python floats out).

Nothing here knows about cases or agents: functions take arrays of numbers and return builtins,
so their results can go straight into JSON or across pytest-xdist (PITFALLS 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np
import numpy.typing as npt

PERCENTILES = (50.0, 90.0, 99.0)
"""The latency percentiles reported, as p50 / p90 / p99."""


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
    means = data.mean(axis=0).tolist()
    medians = np.median(data, axis=0).tolist()
    if data.shape[0] > 1:
        stds = data.std(axis=0, ddof=1).tolist()
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
