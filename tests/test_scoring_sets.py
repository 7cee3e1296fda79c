"""Set metrics and directory partial credit, against values worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_codesearch.scoring import f1, f_beta, partial_credit, precision, recall, score_case, set_scores
from pytest_codesearch.scoring.sets import SetScores


def rounded(numerator: int, denominator: int) -> Any:
    """A rational the code reaches through several roundings: equal to within one ulp, not exactly."""
    return pytest.approx(numerator / denominator, rel=1e-15, abs=0.0)


TWO = {"a.py": 1, "b.py": 1}
FIVE = ("a.py", "b.py", "c.py", "d.py", "e.py")

# retrieved, relevance, (precision, recall, f1). Unless wrapped in rounded(), each value is exact in
# binary or the correctly rounded quotient of two exact numbers, so == holds.
SET_TABLE = [
    pytest.param([], TWO, (0.0, 0.0, 0.0), id="nothing-retrieved"),
    pytest.param(["x.py", "y.py"], TWO, (0.0, 0.0, 0.0), id="nothing-relevant-retrieved"),
    pytest.param(["a.py", "b.py"], TWO, (1.0, 1.0, 1.0), id="exact-answer"),
    pytest.param(["b.py", "a.py", "x.py", "y.py"], TWO, (0.5, 1.0, 2 / 3), id="all-found-with-noise"),
    pytest.param(["a.py", "x.py"], TWO, (0.5, 0.5, 0.5), id="half-and-half"),
    pytest.param(["a.py"], dict.fromkeys(FIVE, 1), (1.0, 0.2, rounded(1, 3)), id="one-of-five"),
    pytest.param(["x.py", "a.py"], {"a.py": 3, "b.py": 2}, (0.5, 0.5, 0.5), id="grades-do-not-count"),
]


@pytest.mark.parametrize(("retrieved", "relevance", "expected"), SET_TABLE)
def test_set_metrics_match_hand_values(
    retrieved: list[str], relevance: dict[str, int], expected: tuple[float, float, float]
) -> None:
    pair = (precision(retrieved, relevance), recall(retrieved, relevance))
    assert (*pair, f1(*pair)) == expected
    assert set_scores(retrieved, relevance) == SetScores(*expected, expected[2])


def test_f1_of_zero_precision_and_recall_is_zero() -> None:
    assert f1(0.0, 0.0) == 0.0


def test_recall_against_empty_ground_truth_is_zero() -> None:
    assert recall(["a.py"], {}) == 0.0


FLASK = {"src/flask/app.py": 1, "src/flask/cli.py": 1, "tests/test_app.py": 1}
DIRS = frozenset({"src/flask", "src/fl", "docs", "src", "tests/"})

# retrieved, (partial precision, partial recall, f1_partial) against FLASK, with DIRS listed as directories
PARTIAL_TABLE = [
    # entries 0.5 of 1; files 0.5 + 0.5 + 0 of 3; 2·(1/2)(1/3) / (5/6) = 2/5
    pytest.param(["src/flask"], (0.5, 1 / 3, 0.4), id="dir-holding-two-ground-truth-files"),
    # a directory that holds no ground-truth file earns 0, like any wrong entry
    pytest.param(["src/flask/app.py", "docs"], (0.5, 1 / 3, 0.4), id="dir-holding-none"),
    # entries (1 + 0.5) of 2; files app 1 + cli 0.5 of 3; 2·(3/4)(1/2) / (5/4) = 3/5
    pytest.param(["src/flask/app.py", "src/flask"], (0.75, 0.5, 0.6), id="file-and-its-dir"),
    # a file returned itself and through its directory earns 1, not 1.5
    pytest.param(
        ["src/flask", "src/flask/app.py", "src/flask/cli.py"],
        (5 / 6, 2 / 3, rounded(20, 27)),
        id="dir-then-its-files",
    ),
    # "src/fl" is a string prefix of "src/flask/app.py" but not its parent directory
    pytest.param(["src/fl"], (0.0, 0.0, 0.0), id="string-prefix-is-not-a-parent"),
    # "src" holds both src/flask files through src/flask
    pytest.param(["src", "tests/test_app.py"], (0.75, 2 / 3, 12 / 17), id="grandparent-dir"),
    # a trailing slash on a directory entry is ignored
    pytest.param(["tests/"], (0.5, 1 / 6, 0.25), id="trailing-slash"),
    pytest.param([], (0.0, 0.0, 0.0), id="nothing-retrieved"),
]


@pytest.mark.parametrize(("retrieved", "expected"), PARTIAL_TABLE)
def test_partial_credit_matches_hand_values(retrieved: list[str], expected: tuple[float, float, Any]) -> None:
    assert partial_credit(retrieved, FLASK, DIRS) == expected[:2]
    assert set_scores(retrieved, FLASK, DIRS).f1_partial == expected[2]


def test_directory_not_listed_earns_nothing() -> None:
    assert partial_credit(["src/flask"], FLASK, frozenset()) == (0.0, 0.0)


def test_f1_partial_is_f1_when_no_directory_is_returned() -> None:
    scores = set_scores(["src/flask/app.py", "x.py", "src/flask"], FLASK, frozenset({"docs"}))
    assert scores.f1_partial == scores.f1 == 1 / 3


SET_NAMES = ("precision", "recall", "f1", "f1_partial")
NOISY = ["x.py", "src/flask/app.py", "src/flask/cli.py", "y.py"]

# retrieved, k, (precision, recall, f1, f1_partial) of score_case against FLASK
TRUNCATION_TABLE = [
    pytest.param(NOISY, None, (0.5, 2 / 3, rounded(4, 7), rounded(4, 7)), id="no-k"),
    pytest.param(NOISY, 1, (0.0, 0.0, 0.0, 0.0), id="k-1"),
    pytest.param(NOISY, 3, (2 / 3, 2 / 3, 2 / 3, 2 / 3), id="k-3"),
    pytest.param(["src/flask/app.py"], 10, (1.0, 1 / 3, 0.5, 0.5), id="k-beyond-the-list"),
    pytest.param(["src/flask/app.py", "src/flask"], 1, (1.0, 1 / 3, 0.5, 0.5), id="k-cuts-off-a-dir"),
    pytest.param(["src/flask/app.py", "src/flask"], 2, (0.5, 1 / 3, 0.4, 0.6), id="k-keeps-a-dir"),
]


@pytest.mark.parametrize(("retrieved", "k", "expected"), TRUNCATION_TABLE)
def test_k_truncates_only_the_set_metrics(
    retrieved: list[str], k: int | None, expected: tuple[Any, ...]
) -> None:
    scores = score_case(retrieved, FLASK, k=k, directories=DIRS)
    untruncated = score_case(retrieved, FLASK, directories=DIRS)
    assert tuple(scores[name] for name in SET_NAMES) == expected
    for name in set(scores) - set(SET_NAMES):
        assert scores[name] == untruncated[name], name


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be a positive integer"):
        score_case(["a.py"], TWO, k=0)


# precision, recall, beta, F-beta = (1 + b^2) P R / (b^2 P + R)
F_BETA_TABLE = [
    pytest.param(0.5, 1 / 3, 1.0, rounded(2, 5), id="beta-1-is-f1"),
    pytest.param(0.5, 1 / 3, 2.0, rounded(5, 14), id="beta-2-leans-to-recall"),
    pytest.param(0.5, 1 / 3, 0.5, rounded(5, 11), id="beta-half-leans-to-precision"),
    pytest.param(0.5, 1 / 3, 0.0, 0.5, id="beta-0-is-precision"),
    pytest.param(1.0, 1.0, 3.0, 1.0, id="perfect"),
    pytest.param(0.0, 0.0, 2.0, 0.0, id="nothing-found"),
    pytest.param(0.0, 0.0, 0.0, 0.0, id="nothing-found-beta-0"),
]


@pytest.mark.parametrize(("p", "r", "beta", "expected"), F_BETA_TABLE)
def test_f_beta_matches_hand_values(p: float, r: float, beta: float, expected: Any) -> None:
    assert f_beta(p, r, beta) == expected


def test_score_case_adds_f_beta_over_the_same_list_as_f1() -> None:
    # top 2 of NOISY: x.py and src/flask/app.py, so P = 1/2 and R = 1/3 against the three FLASK files
    scores = score_case(NOISY, FLASK, k=2, directories=DIRS, f_beta=2.0)
    assert (scores["precision"], scores["recall"], scores["f_beta"]) == (0.5, 1 / 3, rounded(5, 14))
    assert list(scores)[:5] == [*SET_NAMES, "f_beta"]
    assert "f_beta" not in score_case(NOISY, FLASK, k=2, directories=DIRS)
