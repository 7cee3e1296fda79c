"""Symbol scores, hard negatives, and which metrics apply to which case."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring import (
    applicable_metrics,
    metric_names,
    optional_metric_names,
    score_symbols,
    truth_symbols,
)

POSITIVES = frozenset({"shop.auth.hash_password", "shop.auth.Hasher.hash"})
NEGATIVES = frozenset({"shop.auth.check_password", "shop.crypto.hash"})

# returned symbols, (symbol_hit@1, symbol_hit@3, symbol_mrr, hard_negative_rate)
SYMBOL_TABLE = [
    pytest.param(["shop.auth.hash_password"], (1.0, 1.0, 1.0, 0.0), id="first"),
    pytest.param(["x", "y", "shop.auth.Hasher.hash"], (0.0, 1.0, 1 / 3, 0.0), id="third"),
    pytest.param(["x", "shop.crypto.hash", "shop.auth.Hasher.hash"], (0.0, 1.0, 1 / 3, 1.0), id="negative-above"),
    pytest.param(["shop.auth.hash_password", "shop.crypto.hash"], (1.0, 1.0, 1.0, 0.0), id="negative-below"),
    pytest.param(["x", "x", "x", "shop.auth.hash_password"], (0.0, 1.0, 0.5, 0.0), id="repeats-keep-first-rank"),
    pytest.param(["Shop.Auth.Hash_Password"], (0.0, 0.0, 0.0, 0.0), id="case-sensitive"),
    pytest.param(["hash_password"], (0.0, 0.0, 0.0, 0.0), id="unqualified-is-not-equal"),
    pytest.param(["shop.auth.check_password"], (0.0, 0.0, 0.0, 1.0), id="negative-and-no-positive"),
    pytest.param([], (0.0, 0.0, 0.0, 0.0), id="no-symbols"),
]


@pytest.mark.parametrize(("returned", "expected"), SYMBOL_TABLE)
def test_symbol_scores_match_hand_values(returned: list[str], expected: tuple[float, ...]) -> None:
    scores = score_symbols(returned, POSITIVES, NEGATIVES, ks=(1, 3))
    assert list(scores) == ["symbol_hit@1", "symbol_hit@3", "symbol_mrr", "hard_negative_rate"]
    assert tuple(scores.values()) == expected


def test_hard_negative_rate_is_absent_without_hard_negatives() -> None:
    assert score_symbols(["a.b"], {"a.b"}, frozenset(), ks=(5,)) == {"symbol_hit@5": 1.0, "symbol_mrr": 1.0}


def case(**fields: Any) -> TestCase:
    return TestCase.model_validate({"id": "c", "query": "hash a password", **fields})


PLAIN = case(ground_truth_files=["a.py"])
LINES = case(ground_truth_files=[{"path": "a.py", "lines": [[1, 3]]}, "b.py"])
SYMBOLS = case(ground_truth_files=[{"path": "a.py", "symbols": ["a.f"]}])
BOTH = case(
    ground_truth_files=[{"path": "a.py", "lines": [[1, 3]], "symbols": ["a.f"]}], hard_negatives=["a.g", "b.f"]
)


def test_truth_symbols_unites_every_file() -> None:
    two = case(ground_truth_files=[{"path": "a.py", "symbols": ["a.f", "a.g"]}, {"path": "b.py", "symbols": ["b.h"]}])
    assert truth_symbols(two) == {"a.f", "a.g", "b.h"}


def test_applicable_metrics_follow_the_ground_truth() -> None:
    base = metric_names((1, 5))
    assert applicable_metrics(PLAIN, (1, 5), f_beta=False) == base
    assert applicable_metrics(PLAIN, (1, 5), f_beta=True) == metric_names((1, 5), f_beta=True)
    lines = ["line_coverage", "line_precision", "function_hit_rate", "quality_score"]
    assert applicable_metrics(LINES, (1, 5), f_beta=False) == [*base, *lines]
    symbols = ["symbol_hit@1", "symbol_hit@5", "symbol_mrr"]
    assert applicable_metrics(SYMBOLS, (1, 5), f_beta=False) == [*base, *symbols]
    assert applicable_metrics(BOTH, (1, 5), f_beta=False) == [*base, *lines, *symbols, "hard_negative_rate"]


def test_optional_metric_names_list_every_metric_some_case_may_carry() -> None:
    assert optional_metric_names([10, 1]) == [
        "line_coverage", "line_precision", "function_hit_rate", "quality_score",
        "symbol_hit@10", "symbol_hit@1", "symbol_mrr", "hard_negative_rate",
        "module_acc@10", "module_recall@10", "module_ndcg@10", "module_acc@1", "module_recall@1", "module_ndcg@1",
        "module_mrr", "module_map",
        "function_acc@10", "function_recall@10", "function_ndcg@10", "function_acc@1", "function_recall@1",
        "function_ndcg@1", "function_mrr", "function_map",
    ]  # fmt: skip
    assert not set(optional_metric_names([10, 1])) & set(metric_names([10, 1], f_beta=True))
    with pytest.raises(ValueError, match="distinct positive integers"):
        optional_metric_names([0])


def test_hard_negatives_default_to_empty_and_are_kept() -> None:
    assert PLAIN.hard_negatives == []
    assert BOTH.hard_negatives == ["a.g", "b.f"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param(
            {"ground_truth_files": ["a.py"], "hard_negatives": ["a.g"]},
            "needs symbols in ground_truth_files",
            id="no-symbols-to-rank-against",
        ),
        pytest.param(
            {"ground_truth_files": [{"path": "a.py", "symbols": ["a.f"]}], "hard_negatives": ["a.f"]},
            "'a.f' is also a ground-truth symbol",
            id="negative-is-positive",
        ),
        pytest.param(
            {"ground_truth_files": [{"path": "a.py", "symbols": ["a.f"]}], "hard_negatives": [" "]},
            "must not be empty",
            id="blank",
        ),
    ],
)
def test_bad_hard_negatives_are_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message) as info:
        case(**fields)
    assert info.value.errors()[0]["loc"][0] == "hard_negatives"
