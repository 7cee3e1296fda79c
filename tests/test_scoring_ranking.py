"""Ranking metrics and score_case, against values worked out by hand, plus properties."""

from __future__ import annotations

import random
from math import log2
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_codesearch.scoring import (
    all_hit_at_k,
    average_precision,
    hit_at_k,
    metric_names,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
    recall_cap_at_k,
    reciprocal_rank,
    score_case,
)

GRADED = {"a.py": 3, "b.py": 2, "c.py": 1}
RELEVANT = frozenset(GRADED)
NOISY = ["x.py", "a.py", "y.py", "b.py"]  # relevant at ranks 2 and 4; c.py never returned

# ranked, k, (precision@k, recall@k, hit@k) against RELEVANT
CUTOFF_TABLE = [
    pytest.param(NOISY, 1, (0.0, 0.0, 0.0), id="first-rank-wrong"),
    pytest.param(NOISY, 2, (0.5, 1 / 3, 1.0), id="k-2"),
    pytest.param(NOISY, 4, (0.5, 2 / 3, 1.0), id="k-is-the-length"),
    pytest.param(NOISY, 10, (0.2, 2 / 3, 1.0), id="fewer-results-than-k"),
    pytest.param([], 5, (0.0, 0.0, 0.0), id="nothing-retrieved"),
    pytest.param(["x.py", "y.py"], 5, (0.0, 0.0, 0.0), id="nothing-relevant-retrieved"),
    pytest.param(["c.py", "b.py", "a.py"], 3, (1.0, 1.0, 1.0), id="all-found"),
]


@pytest.mark.parametrize(("ranked", "k", "expected"), CUTOFF_TABLE)
def test_cutoff_metrics_match_hand_values(ranked: list[str], k: int, expected: tuple[float, ...]) -> None:
    assert precision_at_k(ranked, RELEVANT, k) == expected[0]
    assert recall_at_k(ranked, RELEVANT, k) == expected[1]
    assert hit_at_k(ranked, RELEVANT, k) == expected[2]


IDEAL_DCG = 3 + 2 / log2(3) + 1 / 2  # grades 3, 2, 1 at ranks 1, 2, 3

# ranked, relevance, k, nDCG@k; approx only where a log2 makes the value irrational
NDCG_TABLE = [
    pytest.param(["c.py", "b.py", "a.py"], GRADED, 1, 1 / 3, id="grades-1-2-3-at-1"),
    pytest.param(
        ["c.py", "b.py", "a.py"],
        GRADED,
        2,
        pytest.approx((1 + 2 / log2(3)) / (3 + 2 / log2(3))),
        id="grades-1-2-3-at-2",
    ),
    pytest.param(
        ["c.py", "b.py", "a.py"],
        GRADED,
        3,
        pytest.approx((1 + 2 / log2(3) + 3 / 2) / IDEAL_DCG),
        id="grades-1-2-3-at-3",
    ),
    pytest.param(["a.py", "b.py", "c.py"], GRADED, 1, 1.0, id="ideal-order-at-1"),
    pytest.param(["a.py", "b.py", "c.py"], GRADED, 10, 1.0, id="ideal-order-at-10"),
    pytest.param(["a.py", "c.py", "b.py"], {"a.py": 2, "b.py": 1, "c.py": 1}, 3, 1.0, id="ties-in-any-order"),
    pytest.param(["a.py"], GRADED, 10, pytest.approx(3 / IDEAL_DCG), id="missing-relevant-still-in-ideal"),
    pytest.param(
        ["b.py", "x.py", "a.py"], GRADED, 3, pytest.approx((2 + 3 / 2) / IDEAL_DCG), id="noise-in-between"
    ),
    pytest.param(["x.py", "a.py"], {"a.py": 1}, 1, 0.0, id="binary-miss-at-1"),
    pytest.param(["x.py", "a.py"], {"a.py": 1}, 2, pytest.approx(1 / log2(3)), id="binary-at-2"),
    pytest.param([], GRADED, 5, 0.0, id="nothing-retrieved"),
    pytest.param(["x.py", "y.py"], GRADED, 5, 0.0, id="nothing-relevant-retrieved"),
]


@pytest.mark.parametrize(("ranked", "relevance", "k", "expected"), NDCG_TABLE)
def test_ndcg_matches_hand_values(
    ranked: list[str], relevance: dict[str, int], k: int, expected: Any
) -> None:
    assert ndcg_at_k(ranked, relevance, k) == expected


# ranked, relevant, (reciprocal rank, average precision); AP of hits at ranks 2 and 4 of R = 3 is
# (1/2 + 2/4) / 3, at ranks 1 and 4 of R = 2 it is (1/1 + 2/4) / 2, at rank 4 alone of R = 3 it is (1/4) / 3
LIST_TABLE = [
    pytest.param(NOISY, RELEVANT, (0.5, 1 / 3), id="ranks-2-and-4-of-3"),
    pytest.param(["a.py", "x.py", "y.py", "b.py"], {"a.py", "b.py"}, (1.0, 0.75), id="ranks-1-and-4-of-2"),
    pytest.param(["x.py", "y.py", "z.py", "c.py"], RELEVANT, (0.25, 1 / 12), id="only-rank-4"),
    pytest.param(["a.py", "b.py", "c.py"], RELEVANT, (1.0, 1.0), id="perfect"),
    pytest.param([], RELEVANT, (0.0, 0.0), id="nothing-retrieved"),
    pytest.param(["x.py", "y.py"], RELEVANT, (0.0, 0.0), id="nothing-relevant-retrieved"),
]


@pytest.mark.parametrize(("ranked", "relevant", "expected"), LIST_TABLE)
def test_list_metrics_match_hand_values(
    ranked: list[str], relevant: frozenset[str], expected: tuple[float, float]
) -> None:
    assert (reciprocal_rank(ranked, relevant), average_precision(ranked, relevant)) == expected


# ranked, k, (all_hit@k, recall_cap@k) against RELEVANT (R = 3)
COMPLETE_TABLE = [
    pytest.param(NOISY, 1, (0.0, 0.0), id="first-rank-wrong"),
    pytest.param(NOISY, 2, (0.0, 0.5), id="one-of-the-capped-two"),
    pytest.param(NOISY, 10, (0.0, 2 / 3), id="fewer-results-than-k"),
    pytest.param(["a.py", "b.py", "x.py"], 2, (0.0, 1.0), id="k-below-R-all-relevant"),
    pytest.param(["a.py", "b.py", "x.py", "c.py"], 3, (0.0, 2 / 3), id="last-relevant-just-outside"),
    pytest.param(["a.py", "b.py", "x.py", "c.py"], 4, (1.0, 1.0), id="every-relevant-in-top-k"),
    pytest.param(["c.py", "b.py", "a.py"], 3, (1.0, 1.0), id="all-found"),
    pytest.param([], 5, (0.0, 0.0), id="nothing-retrieved"),
    pytest.param(["x.py", "y.py"], 5, (0.0, 0.0), id="nothing-relevant-retrieved"),
]


@pytest.mark.parametrize(("ranked", "k", "expected"), COMPLETE_TABLE)
def test_all_hit_and_recall_cap_match_hand_values(ranked: list[str], k: int, expected: tuple[float, float]) -> None:
    assert (all_hit_at_k(ranked, RELEVANT, k), recall_cap_at_k(ranked, RELEVANT, k)) == expected
    scores = score_case(ranked, GRADED, ks=[k])
    assert (scores[f"all_hit@{k}"], scores[f"recall_cap@{k}"]) == expected


# ranked, relevant, R-precision = relevant in the top R / R
R_PRECISION_TABLE = [
    pytest.param(NOISY, RELEVANT, 1 / 3, id="one-in-the-top-3"),
    pytest.param(["a.py", "b.py", "x.py", "c.py"], RELEVANT, 2 / 3, id="third-relevant-at-rank-4"),
    pytest.param(["c.py", "b.py", "a.py"], RELEVANT, 1.0, id="all-in-the-top-3"),
    pytest.param(["x.py", "a.py"], {"a.py"}, 0.0, id="R-1-at-rank-2"),
    pytest.param(["a.py"], {"a.py", "b.py"}, 0.5, id="fewer-results-than-R"),
    pytest.param([], RELEVANT, 0.0, id="nothing-retrieved"),
]


@pytest.mark.parametrize(("ranked", "relevant", "expected"), R_PRECISION_TABLE)
def test_r_precision_matches_hand_values(ranked: list[str], relevant: frozenset[str], expected: float) -> None:
    assert r_precision(ranked, relevant) == expected
    assert score_case(ranked, dict.fromkeys(relevant, 2))["r_precision"] == expected


AT_K = ("precision", "recall", "f1", "hit", "ndcg", "all_hit", "recall_cap", "acc")


def test_metric_names_for_default_ks() -> None:
    at_k = [f"{name}@{k}" for k in (1, 5, 10) for name in AT_K]
    expected = ["precision", "recall", "f1", "f1_partial", *at_k, "mrr", "map", "r_precision"]
    assert metric_names((1, 5, 10)) == expected
    assert metric_names((1, 5, 10), f_beta=False) == expected
    assert metric_names((1, 5, 10), f_beta=True) == [*expected[:4], "f_beta", *expected[4:]]


def test_metric_names_keep_the_given_order_of_ks() -> None:
    at_20 = [f"{name}@20" for name in AT_K]
    assert metric_names([20, 3])[4:20] == [*at_20, *(f"{name}@3" for name in AT_K)]


@pytest.mark.parametrize("ks", [(5, 5), (0, 5), (-1,)])
def test_metric_names_reject_bad_ks(ks: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="distinct positive integers"):
        metric_names(ks)


def test_score_case_reports_every_name_as_a_plain_float() -> None:
    scores = score_case(NOISY, GRADED, ks=[3, 7])
    assert list(scores) == metric_names([3, 7])
    assert {type(value) for value in scores.values()} == {float}


@pytest.mark.parametrize("n_relevant", [1, 2, 5, 7, 12])
def test_perfect_ranking_scores_one_except_cutoff_ratios(n_relevant: int) -> None:
    relevance = {f"f{i:02d}.py": 3 - i * 3 // n_relevant for i in range(n_relevant)}  # grades 3 down to 1
    scores = score_case(list(relevance), relevance)
    for k in (1, 5, 10):
        assert scores.pop(f"precision@{k}") == min(1.0, n_relevant / k)
        assert scores.pop(f"recall@{k}") == min(1.0, k / n_relevant)
        p, r = min(1.0, n_relevant / k), min(1.0, k / n_relevant)
        assert scores.pop(f"f1@{k}") == 2 * p * r / (p + r)
        assert scores.pop(f"all_hit@{k}") == (1.0 if n_relevant <= k else 0.0)
    assert scores == dict.fromkeys(scores, 1.0)


def test_score_case_ranks_the_whole_list_and_ignores_directories() -> None:
    scores = score_case(["src", "x.py", "src/c.py"], {"src/c.py": 1}, k=1, directories=frozenset({"src"}))
    # the top 1 is the directory: half credit both ways; as a ranked entry it is simply not relevant
    got = (scores["precision"], scores["f1_partial"], scores["mrr"], scores["hit@1"])
    assert got == (0.0, 0.5, 1 / 3, 0.0)


# --- properties -------------------------------------------------------------------------------

POOL = ["a.py", "b.py", "src", "src/c.py", "src/d.py", "src/pkg", "src/pkg/e.py", "tests", "tests/t.py"]
DIRECTORIES = frozenset({"src", "src/pkg", "tests"})
FILES = [path for path in POOL if path not in DIRECTORIES]

rankings = st.lists(st.sampled_from(POOL), unique=True, max_size=len(POOL))
truths = st.dictionaries(st.sampled_from(FILES), st.integers(1, 3), min_size=1, max_size=len(FILES))
cutoffs = st.lists(st.integers(1, 12), unique=True, min_size=1, max_size=4)


@given(ranked=rankings, relevance=truths, ks=cutoffs, k=st.none() | st.integers(1, 12))
def test_every_metric_is_a_float_in_the_unit_interval(
    ranked: list[str], relevance: dict[str, int], ks: list[int], k: int | None
) -> None:
    scores = score_case(ranked, relevance, ks=ks, k=k, directories=DIRECTORIES, f_beta=2.0)
    assert list(scores) == metric_names(ks, f_beta=True)
    assert all(type(value) is float and 0.0 <= value <= 1.0 for value in scores.values())
    assert scores["f1_partial"] >= scores["f1"]  # partial credit only ever adds
    for cutoff in ks:
        assert scores[f"all_hit@{cutoff}"] <= scores[f"recall_cap@{cutoff}"] <= 1.0
        assert scores[f"recall@{cutoff}"] <= scores[f"recall_cap@{cutoff}"]
        assert scores[f"all_hit@{cutoff}"] <= scores[f"hit@{cutoff}"]


PROPERTY_KS = (1, 2, 3, 5, 10)
RANK_SENSITIVE = [
    "mrr",
    "map",
    "r_precision",
    *(f"{name}@{k}" for k in PROPERTY_KS for name in ("ndcg", "hit", "all_hit", "recall_cap", "precision", "recall")),
]


@given(ranked=rankings, relevance=truths, data=st.data())
def test_moving_a_relevant_entry_up_never_lowers_a_ranking_metric(
    ranked: list[str], relevance: dict[str, int], data: st.DataObject
) -> None:
    # a relevant entry jumps over one or more wrong entries just above it (never over another relevant
    # one: swapping two graded entries can rightly lower nDCG)
    ups = [i for i in range(1, len(ranked)) if ranked[i] in relevance and ranked[i - 1] not in relevance]
    assume(ups)
    i = data.draw(st.sampled_from(ups), label="index of the relevant entry moved up")
    lowest = i - 1
    while lowest > 0 and ranked[lowest - 1] not in relevance:
        lowest -= 1
    j = data.draw(st.integers(lowest, i - 1), label="index it moves to")
    better = [*ranked[:j], ranked[i], *ranked[j:i], *ranked[i + 1 :]]
    before = score_case(ranked, relevance, ks=PROPERTY_KS)
    after = score_case(better, relevance, ks=PROPERTY_KS)
    for name in RANK_SENSITIVE:
        assert after[name] >= before[name], name
    assert after["precision"] == before["precision"]  # set metrics ignore the order


@given(relevance=truths, ks=cutoffs, tail=st.lists(st.sampled_from(["x.py", "y.py", "src"]), unique=True))
def test_an_ideal_ranking_scores_one_on_every_rank_metric(
    relevance: dict[str, int], ks: list[int], tail: list[str]
) -> None:
    ideal = sorted(relevance, key=lambda path: -relevance[path]) + tail
    scores = score_case(ideal, relevance, ks=ks)
    n = len(relevance)
    assert (scores["mrr"], scores["map"], scores["r_precision"]) == (1.0, 1.0, 1.0)
    for k in ks:
        assert scores[f"ndcg@{k}"] == pytest.approx(1.0)
        assert (scores[f"hit@{k}"], scores[f"recall_cap@{k}"]) == (1.0, 1.0)
        assert scores[f"all_hit@{k}"] == (1.0 if n <= k else 0.0)
        assert scores[f"recall@{k}"] == min(k, n) / n


def test_the_worked_example_of_docs_metrics() -> None:
    scores = score_case(
        ["x.py", "a.py", "src", "b.py"],
        {"a.py": 2, "b.py": 1, "src/c.py": 1},
        directories=frozenset({"src"}),
        f_beta=2.0,
    )
    rounded = {name: round(value, 4) for name, value in scores.items()}
    assert rounded == {
        "precision": 0.5, "recall": 0.6667, "f1": 0.5714, "f1_partial": 0.7143, "f_beta": 0.625,
        **{f"{name}@1": 0.0 for name in AT_K},
        "precision@5": 0.4, "recall@5": 0.6667, "f1@5": 0.5, "hit@5": 1.0, "ndcg@5": 0.5406, "all_hit@5": 0.0,
        "recall_cap@5": 0.6667, "acc@5": 0.0,
        "precision@10": 0.2, "recall@10": 0.6667, "f1@10": 0.3077, "hit@10": 1.0, "ndcg@10": 0.5406, "all_hit@10": 0.0,
        "recall_cap@10": 0.6667, "acc@10": 0.0,
        "mrr": 0.5, "map": 0.3333, "r_precision": 0.3333,
    }  # fmt: skip


def _acc(ranked: list[str], truth: set[str], k: int) -> float:
    """LocAgent's Acc@k written from its definition: |truth ∩ top k| == min(|truth|, k)."""
    return float(bool(truth) and len(truth & set(ranked[:k])) == min(len(truth), k))


def test_acc_counts_min_of_k_and_r_by_hand_and_on_random_cases() -> None:
    relevance = dict.fromkeys(["a.py", "b.py", "c.py", "d.py"], 1)
    got = score_case(["a.py", "b.py", "x.py", "c.py"], relevance, ks=(2, 4, 5))
    assert (got["acc@2"], got["all_hit@2"], got["acc@4"], got["acc@5"]) == (1.0, 0.0, 0.0, 0.0)
    rng = random.Random(7)
    pool = [f"f{i}.py" for i in range(30)]
    for _ in range(500):
        truth = set(rng.sample(pool, rng.randint(0, 6)))
        ranked = rng.sample(pool, rng.randint(0, 15))
        scores = score_case(ranked, dict.fromkeys(truth, 1), ks=(1, 3, 5))
        assert [scores[f"acc@{k}"] for k in (1, 3, 5)] == [_acc(ranked, truth, k) for k in (1, 3, 5)]
