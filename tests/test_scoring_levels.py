"""Module- and function-level metrics: hand values, trec_eval (pytrec_eval) and the acc@k definition."""

from __future__ import annotations

import math
import random

import pytest

from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring import applicable_metrics
from pytest_codesearch.scoring.levels import first_ranks, score_level, score_levels

pytrec_eval = pytest.importorskip("pytrec_eval")

KS = (1, 3, 5)
FUNCTIONS = ["pkg/shop.py:Cart.add", "pkg/shop.py:Cart.total", "pkg/util.py:round_price"]
ANSWER = [
    "pkg/shop.py:Cart.add", "pkg/shop.py:Order.save", "pkg/shop.py:Cart.add",
    "pkg/util.py:round_price", "pkg/shop.py:Cart.total",
]


def _acc(ranked: list[str], truth: set[str], k: int) -> float:
    """LocAgent's Acc@k written from its definition: |truth ∩ top k| == min(|truth|, k)."""
    top = list(dict.fromkeys(ranked))[:k]
    return float(bool(truth) and len(truth & set(top)) == min(len(truth), k))


def test_function_level_hand_values_of_the_docs_example() -> None:
    got = score_level("functions", ANSWER, FUNCTIONS, KS)
    ndcg5 = (1 + 1 / math.log2(4) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert [got[f"function_acc@{k}"] for k in KS] == [1.0, 0.0, 1.0]
    assert [got[f"function_recall@{k}"] for k in KS] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert got["function_ndcg@5"] == pytest.approx(ndcg5)
    assert (got["function_mrr"], got["function_map"]) == pytest.approx((1.0, (1 + 2 / 3 + 3 / 4) / 3))


def test_module_level_hand_values_of_the_docs_example() -> None:
    modules = ["pkg/shop.py:Cart", "pkg/shop.py:Order", "pkg/util.py:round_price"]
    got = score_level("modules", modules, ["pkg/shop.py:Cart", "pkg/util.py:round_price"], KS)
    assert [got[f"module_acc@{k}"] for k in KS] == [1.0, 1.0, 1.0]
    assert [got[f"module_recall@{k}"] for k in KS] == [0.5, 1.0, 1.0]
    assert got["module_ndcg@3"] == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert (got["module_mrr"], got["module_map"]) == pytest.approx((1.0, (1 + 2 / 3) / 2))


def test_repeated_entities_keep_their_first_rank() -> None:
    assert first_ranks(["a:x", "b:y", "a:x", "c:z", "b:y"]) == ["a:x", "b:y", "c:z"]


def test_levels_apply_only_where_the_case_has_entity_truth() -> None:
    case = TestCase.model_validate(
        {"id": "c", "query": "q", "ground_truth_files": ["pkg/shop.py"], "ground_truth_functions": FUNCTIONS}
    )
    names = applicable_metrics(case, KS, False)
    assert "function_acc@5" in names and "function_map" in names and "acc@5" in names
    assert not [name for name in names if name.startswith("module_")]
    assert sorted(score_levels(case, [], ANSWER, KS)) == sorted(n for n in names if n.startswith("function_"))


def _random_case(rng: random.Random, pool: list[str]) -> tuple[list[str], set[str]]:
    truth = set(rng.sample(pool, rng.randint(0, 6)))
    ranked = [rng.choice(pool) for _ in range(rng.randint(0, 15))]  # with repeats
    return ranked, truth


@pytest.mark.parametrize("level", ["modules", "functions"])
def test_entity_metrics_equal_trec_eval_and_the_acc_definition(level: str) -> None:
    rng = random.Random(level)
    prefix = level[:-1]
    pool = [f"pkg/m{i % 7}.py:C{i}.f" for i in range(40)]
    cases = {f"q{i}": _random_case(rng, pool) for i in range(500)}
    qrels = {qid: dict.fromkeys(truth, 1) for qid, (_, truth) in cases.items() if truth}
    run = {qid: {e: 100.0 - r for r, e in enumerate(first_ranks(ranked))} or {"none": 0.0}
           for qid, (ranked, _) in cases.items()}
    measures = {"recall_1", "recall_3", "recall_5", "ndcg_cut_1", "ndcg_cut_3", "ndcg_cut_5", "map", "recip_rank"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for qid, (ranked, truth) in cases.items():
        ours = score_level(level, ranked, truth, KS)
        for k in KS:
            assert ours[f"{prefix}_acc@{k}"] == _acc(ranked, truth, k), qid
        if qid not in reference:  # trec_eval skips a query without relevant entities: ours are 0
            assert set(ours.values()) == {0.0}, qid
            continue
        trec = reference[qid]
        for k in KS:
            assert ours[f"{prefix}_recall@{k}"] == pytest.approx(trec[f"recall_{k}"]), qid
            assert ours[f"{prefix}_ndcg@{k}"] == pytest.approx(trec[f"ndcg_cut_{k}"]), qid
        assert ours[f"{prefix}_mrr"] == pytest.approx(trec["recip_rank"]), qid
        assert ours[f"{prefix}_map"] == pytest.approx(trec["map"]), qid

