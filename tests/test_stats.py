"""Numeric summaries: exact values on small hand-checked samples, builtin floats out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_codesearch.report.stats import (
    PERMUTATIONS,
    _resampled_means,
    best_positions,
    bootstrap_ci,
    bootstrap_ci_present,
    cases_needed,
    fewest_testable_cases,
    holm,
    latency_percentiles,
    presence_groups,
    seeded_rng,
    sign_flip_pvalues,
    summarize,
    summarize_columns,
    summarize_present,
)

NAN = math.nan


def test_summarize_uses_sample_std() -> None:
    # mean 0.5; squared deviations 0 + 0.25 + 0.25 over n - 1 = 2 -> variance 0.25
    assert summarize([0.5, 1.0, 0.0]) == {"mean": 0.5, "median": 0.5, "std": 0.5}


def test_summarize_single_value_has_zero_std() -> None:
    assert summarize([0.75]) == {"mean": 0.75, "median": 0.75, "std": 0.0}


def test_summarize_constant_is_exact() -> None:
    # numpy's mean of thirty 0.2s is 0.20000000000000007 and its std 5.6e-17
    assert summarize([0.2] * 30) == {"mean": 0.2, "median": 0.2, "std": 0.0}


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


# --- seeding ------------------------------------------------------------------------------


def test_seeded_rng_depends_on_seed_and_labels_only() -> None:
    first = seeded_rng(7, "agent", "bm25").random(3).tolist()
    assert seeded_rng(7, "agent", "bm25").random(3).tolist() == first
    assert seeded_rng(8, "agent", "bm25").random(3).tolist() != first
    assert seeded_rng(7, "agent", "grep").random(3).tolist() != first


# --- bootstrap intervals ------------------------------------------------------------------


def test_bootstrap_ci_of_a_constant_is_the_constant() -> None:
    # 0.1 is not exact in binary: resampled means drift by an ulp and are clipped back
    assert bootstrap_ci(np.full((50, 2), 0.1), 1000, seeded_rng(1)) == [(0.1, 0.1), (0.1, 0.1)]


def test_bootstrap_ci_is_reproducible_with_its_seed() -> None:
    data = np.random.default_rng(0).random((200, 3))
    first = bootstrap_ci(data, 500, seeded_rng(3, "x"))
    assert bootstrap_ci(data, 500, seeded_rng(3, "x")) == first
    assert bootstrap_ci(data, 500, seeded_rng(4, "x")) != first
    assert all(type(v) is float for interval in first for v in interval)


def test_bootstrap_ci_brackets_the_mean_and_stays_in_range() -> None:
    data = np.random.default_rng(5).random((300, 4))
    for (low, high), mean in zip(bootstrap_ci(data, 1000, seeded_rng(0)), data.mean(axis=0)):
        assert 0.0 <= low < mean < high <= 1.0
        # the standard error of a U(0, 1) mean over 300 cases is about 0.0167: 95% is +-0.033
        assert high - low == pytest.approx(2 * 1.96 * math.sqrt(1 / 12 / 300), rel=0.15)


def test_resampled_means_are_means_of_index_resamples() -> None:
    # counts @ data / n is the mean of data[indices] for the same draws of indices
    data = np.random.default_rng(2).random((40, 3))
    means = _resampled_means(data, 25, seeded_rng(9))
    indices = seeded_rng(9).integers(0, 40, size=(25, 40))
    assert means == pytest.approx(data[indices].mean(axis=1), abs=1e-12)


def test_bootstrap_intervals_are_those_of_the_seeded_draws_to_the_last_bit() -> None:
    # pinned before the counts were made a row at a time (issue 23): the same seed gives the same intervals;
    # 10,000 rows resample in four chunks, and the third column is absent from every seventh row
    data = np.random.default_rng(11).random((10_000, 3))
    data[::7, 2] = NAN
    assert bootstrap_ci_present(data, 1000, seeded_rng(7, "agent")) == [
        (0.49511638741178654, 0.5062273746666167),
        (0.48981453117456775, 0.5014861481515668),
        (0.49071849422119074, 0.5027606077481332),
    ]
    small = np.round(np.random.default_rng(12).random((9, 2)), 2)
    assert bootstrap_ci_present(small, 1000, seeded_rng(7, "b")) == [
        (0.2110000000000001, 0.5544722222222223),
        (0.30888888888888894, 0.697861111111111),
    ]


def test_bootstrap_ci_takes_the_percentiles_of_the_resampled_means() -> None:
    data = np.random.default_rng(4).random((30, 1))
    means = _resampled_means(data, 1000, seeded_rng(6))[:, 0]
    expected = (float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975)))
    assert bootstrap_ci(data, 1000, seeded_rng(6)) == [expected]


def test_bootstrap_ci_rejects_no_rows() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        bootstrap_ci(np.empty((0, 2)), 100, seeded_rng(0))


def test_presence_groups_group_columns_by_their_rows() -> None:
    matrix = [[1.0, NAN, 0.5, NAN], [0.0, 1.0, 0.5, NAN], [1.0, NAN, 0.0, NAN]]
    groups = presence_groups(matrix)
    assert [(rows.tolist(), columns) for rows, columns in groups] == [
        ([True, True, True], [0, 2]),
        ([False, True, False], [1]),
    ]


def test_absent_values_leave_summaries_and_intervals() -> None:
    matrix = [[1.0, NAN, NAN], [0.0, 0.5, NAN], [1.0, 0.5, NAN], [0.0, NAN, NAN]]
    first, second, third = summarize_present(matrix)
    assert first == {"mean": 0.5, "median": 0.5, "std": pytest.approx(math.sqrt(1 / 3))}
    assert second == {"mean": 0.5, "median": 0.5, "std": 0.0}
    assert third is None
    intervals = bootstrap_ci_present(matrix, 200, seeded_rng(1))
    assert intervals[1] == (0.5, 0.5) and intervals[2] is None
    assert intervals[0] is not None and 0.0 <= intervals[0][0] <= intervals[0][1] <= 1.0


# --- paired randomization test ------------------------------------------------------------


def test_sign_flip_pvalue_by_exact_enumeration() -> None:
    # sums of +-1 +-2 +-3: 6, 4, 2, 0, 0, -2, -4, -6; |sum| >= 6 for 2 of the 8 sign vectors
    # sums of +-1 +-2 +-4 (observed 1 - 2 + 4 = 3): +-7, +-5, +-3, +-1; |sum| >= 3 for 6 of 8
    assert sign_flip_pvalues([[1.0, 1.0], [2.0, -2.0], [3.0, 4.0]], seeded_rng(0)) == [0.25, 0.75]


def test_sign_flip_pvalue_of_identical_agents_is_one() -> None:
    assert sign_flip_pvalues(np.zeros((5, 2)), seeded_rng(0)) == [1.0, 1.0]
    assert sign_flip_pvalues(np.zeros((500, 1)), seeded_rng(0)) == [1.0]


def test_sign_flip_pvalue_by_random_signs_never_reaches_zero() -> None:
    # 40 equal positive differences: a random sign vector matches |sum| with chance 2 / 2**40
    assert sign_flip_pvalues(np.full((40, 1), 0.5), seeded_rng(0)) == [1 / (PERMUTATIONS + 1)]


def test_sign_flip_pvalue_by_random_signs_is_near_the_exact_one() -> None:
    # 14 cases is past exact enumeration; compare with the exact value computed here
    diffs = np.array([0.3, -0.1, 0.2, 0.5, -0.4, 0.1, 0.2, 0.0, 0.3, -0.2, 0.6, 0.1, -0.3, 0.2])
    bits = (np.arange(2**14)[:, None] >> np.arange(14)) & 1
    exact = float(np.mean(np.abs((1 - 2 * bits) @ diffs) >= abs(diffs.sum()) - 1e-12))
    (estimate,) = sign_flip_pvalues(diffs.reshape(-1, 1), seeded_rng(1))
    assert estimate == pytest.approx(exact, abs=0.015)


def test_holm_on_a_known_vector() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


def test_cases_needed_by_normal_approximation() -> None:
    # (z_0.975 + z_0.8) = 1.959964 + 0.841621 = 2.801585; (2.801585 * 0.3 / 0.05)^2 = 282.56
    assert cases_needed(0.3, 0.05) == 283
    assert cases_needed(0.0, 0.05) == 0
    assert cases_needed(0.3, 0.01) > 283


def test_fewest_testable_cases() -> None:
    # 2 / 2**5 = 0.0625 is not below 0.05; 2 / 2**6 = 0.03125 is
    assert fewest_testable_cases(0.05) == 6
    assert fewest_testable_cases(0.5) == 3
