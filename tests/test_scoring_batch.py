"""score_batch returns exactly what score_case returns, case by case, to the bit."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pytest_codesearch.scoring import metric_names, score_case
from pytest_codesearch.scoring.batch import score_batch

FILES = [f"src/m{i}.py" for i in range(40)]


def random_cases(seed: int, count: int) -> tuple[list[list[str]], list[dict[str, int]]]:
    """Return random answers (0 to 25 paths) and graded ground truths (0 to 6 paths)."""
    rng = random.Random(seed)
    runs, relevances = [], []
    for _ in range(count):
        relevances.append({p: rng.randint(1, 3) for p in rng.sample(FILES, rng.randint(0, 6))})
        runs.append(rng.sample(FILES, rng.randint(0, 25)))
    return runs, relevances


def expected_rows(
    runs: list[list[str]], relevances: list[dict[str, int]], **options: Any
) -> list[list[float]]:
    """Return score_case's values for every case, in metric order."""
    return [list(score_case(r, rel, **options).values()) for r, rel in zip(runs, relevances)]


@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("f_beta", [None, 0.5, 2.0])
def test_batch_equals_score_case_bit_for_bit(k: int | None, f_beta: float | None) -> None:
    runs, relevances = random_cases(seed=10 * (k or 0) + int(4 * (f_beta or 0)), count=1500)
    ks = (1, 3, 5, 10, 30)
    names, matrix = score_batch(runs, relevances, ks=ks, k=k, f_beta=f_beta)
    assert names == metric_names(ks, f_beta is not None)
    assert matrix.tolist() == expected_rows(runs, relevances, ks=ks, k=k, f_beta=f_beta)


def test_batch_edge_cases() -> None:
    runs = [[], ["a.py"], ["x.py", "a.py"], ["a.py", "b.py"], ["x.py"], ["a.py"]]
    relevances = [{"a.py": 1}, {"a.py": 2}, {"a.py": 1, "b.py": 3}, {}, {"a.py": 1}, {"a.py": 0}]
    names, matrix = score_batch(runs, relevances, ks=(1, 2))
    assert matrix.tolist() == expected_rows(runs, relevances, ks=(1, 2))
    assert dict(zip(names, matrix[2].tolist()))["mrr"] == 0.5


def test_batch_scores_directory_answers_with_partial_credit() -> None:
    runs = [["src", "x.py"], ["src/m1.py"], ["lib", "src"]]
    relevances = [{"src/m1.py": 1}, {"src/m1.py": 1}, {"src/m1.py": 1}]
    directories = [frozenset({"src"}), frozenset(), frozenset({"lib", "src"})]
    names, matrix = score_batch(runs, relevances, ks=(1,), k=1, directories=directories)
    expected = [
        list(score_case(r, rel, ks=(1,), k=1, directories=d).values())
        for r, rel, d in zip(runs, relevances, directories)
    ]
    assert matrix.tolist() == expected
    assert dict(zip(names, matrix[0].tolist()))["f1_partial"] > 0.0


def test_batch_of_nothing() -> None:
    names, matrix = score_batch([], [], ks=(1,))
    assert matrix.shape == (0, len(names))


def test_batch_rejects_mismatched_lengths_and_bad_k() -> None:
    with pytest.raises(ValueError, match="one entry per case"):
        score_batch([["a.py"]], [])
    with pytest.raises(ValueError, match="k must be a positive integer"):
        score_batch([["a.py"]], [{"a.py": 1}], k=0)
