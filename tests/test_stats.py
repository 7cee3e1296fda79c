"""Numeric summaries: exact values on small hand-checked samples, builtin floats out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_codesearch.stats import (
    best_positions,
    latency_percentiles,
    summarize,
    summarize_columns,
)


def test_summarize_uses_sample_std() -> None:
    # mean 0.5; squared deviations 0 + 0.25 + 0.25 over n - 1 = 2 -> variance 0.25
    assert summarize([0.5, 1.0, 0.0]) == {"mean": 0.5, "median": 0.5, "std": 0.5}


def test_summarize_single_value_has_zero_std() -> None:
    assert summarize([0.75]) == {"mean": 0.75, "median": 0.75, "std": 0.0}


def test_summarize_even_count_median_is_midpoint() -> None:
    assert summarize([0.0, 1.0, 0.25, 0.5])["median"] == 0.375


def test_summarize_rejects_empty_sample() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        summarize([])


def test_summarize_columns_matches_column_by_column() -> None:
    matrix = [[1.0, 0.5], [0.0, 1.0], [0.0, 0.0]]
    first, second = summarize_columns(matrix)
    assert first["mean"] == pytest.approx(1 / 3)
    assert first["median"] == 0.0
    assert first["std"] == pytest.approx(math.sqrt(1 / 3))
    assert second == summarize([0.5, 1.0, 0.0])


def test_summarize_columns_rejects_one_dimensional_input() -> None:
    with pytest.raises(ValueError, match="2-D"):
        summarize_columns([1.0, 2.0])


def test_summaries_are_builtin_floats() -> None:
    summary = summarize_columns(np.array([[1.0, 2.0], [3.0, 5.0]]))[1]
    assert {type(v) for v in summary.values()} == {float}


def test_latency_percentiles_interpolate_linearly() -> None:
    # sorted [1, 2, 3]: p90 sits at position 1.8 -> 2 + 0.8 * (3 - 2)
    result = latency_percentiles([1.0, 3.0, 2.0])
    assert result["p50"] == 2.0
    assert result["p90"] == pytest.approx(2.8)
    assert result["p99"] == pytest.approx(2.98)
    assert result["mean"] == 2.0


def test_latency_percentiles_of_two_values() -> None:
    result = latency_percentiles([10.0, 20.0])
    assert (result["p50"], result["mean"]) == (15.0, 15.0)
    assert result["p90"] == pytest.approx(19.0)
    assert result["p99"] == pytest.approx(19.9)


def test_latency_percentiles_agree_with_numpy() -> None:
    values = [0.4, 12.5, 3.25, 7.0, 7.0, 100.0, 1.5]
    result = latency_percentiles(values)
    expected = [float(np.percentile(values, q)) for q in (50, 90, 99)]
    assert [result["p50"], result["p90"], result["p99"]] == pytest.approx(expected)
    assert all(type(v) is float for v in result.values())


def test_latency_percentiles_of_nothing_are_none() -> None:
    assert latency_percentiles([]) == {"p50": None, "p90": None, "p99": None, "mean": None}


def test_best_positions_keeps_every_tie() -> None:
    assert best_positions([0.5, 0.7, 0.7, None], higher_is_better=True) == {1, 2}


def test_best_positions_lower_is_better_and_none_never_wins() -> None:
    assert best_positions([None, 3.0, 2.0, 2.5], higher_is_better=False) == {2}
    assert best_positions([None, None], higher_is_better=False) == set()
