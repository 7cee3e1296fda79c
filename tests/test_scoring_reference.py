"""Our metrics equal trec_eval's (through pytrec_eval) on thousands of random cases."""

from __future__ import annotations

import random

import pytest

from pytest_codesearch.scoring import (
    average_precision,
    f_beta,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    recall_at_k,
    reciprocal_rank,
    score_case,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

N_CASES = 3000
KS = (1, 5, 10)
POOL = [f"pkg/module_{i:02d}.py" for i in range(60)]

# our name -> trec_eval measure; trec_eval's set_* measures read the whole run, as we do with k=None
TREC_NAMES = {
    "precision": "set_P",
    "recall": "set_recall",
    "f1": "set_F",
    **{f"precision@{k}": f"P_{k}" for k in KS},
    **{f"recall@{k}": f"recall_{k}" for k in KS},
    **{f"hit@{k}": f"success_{k}" for k in KS},
    **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in KS},
    "mrr": "recip_rank",
    "map": "map",
    "r_precision": "Rprec",
}
# our f_beta with beta = 2 is trec_eval's set_F with its parameter 4 = beta^2 (it multiplies P by it)
F_BETA = 2.0
TREC_F_BETA = "set_F.4"

# pytrec_eval returns doubles computed with the same operations in the same order as ours: on these
# cases the largest difference is exactly 0. 1e-15 (about 9 ulps at 1.0) only absorbs a trec_eval build
# that sums or takes logarithms differently; a real disagreement (a wrong rank, cutoff or grade) moves a
# value by far more than that.
TOLERANCE = 1e-15

Case = tuple[list[str], dict[str, int]]


def random_cases(seed: int, n: int) -> dict[str, Case]:
    """Ranked lists of 0..30 docs and 1..5 graded relevant docs, some of them never retrieved."""
    rng = random.Random(seed)
    cases = {}
    for number in range(n):
        ranked = rng.sample(POOL, rng.randint(0, 30))
        # about half the relevant docs come from the top of the list, so hits at small ranks are common
        relevant = {
            rng.choice(ranked[:12] if ranked and rng.random() < 0.5 else POOL)
            for _ in range(rng.randint(1, 5))
        }
        cases[f"q{number}"] = (ranked, {doc: rng.randint(1, 3) for doc in relevant})
    return cases


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return random_cases(seed=20240611, n=N_CASES)


@pytest.fixture(scope="module")
def trec(cases: dict[str, Case]) -> dict[str, dict[str, float]]:
    """trec_eval's measures for every case; an empty run (which pytrec_eval may omit) scores 0."""
    qrels = {qid: relevance for qid, (_, relevance) in cases.items()}
    # trec_eval re-sorts a run by score (ties by doc id, descending): strictly falling scores keep our order
    run = {
        qid: {doc: float(len(ranked) - rank) for rank, doc in enumerate(ranked)}
        for qid, (ranked, _) in cases.items()
    }
    evaluated = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES.values())).evaluate(run)
    # a parameterised measure comes back under its bare name: ask for it on its own
    weighted = pytrec_eval.RelevanceEvaluator(qrels, {TREC_F_BETA}).evaluate(run)
    zeros = dict.fromkeys(TREC_NAMES.values(), 0.0)
    return {
        qid: {**evaluated.get(qid, zeros), TREC_F_BETA: weighted.get(qid, {"set_F": 0.0})["set_F"]}
        for qid in cases
    }


def test_cases_cover_the_edges(cases: dict[str, Case]) -> None:
    assert sum(not ranked for ranked, _ in cases.values()) >= 30
    assert sum(bool(ranked) and ranked[0] in relevance for ranked, relevance in cases.values()) >= 300
    assert sum(any(doc not in ranked for doc in relevance) for ranked, relevance in cases.values()) >= 1000
    assert sum(len(set(relevance.values())) == 3 for _, relevance in cases.values()) >= 300


def test_score_case_equals_trec_eval(cases: dict[str, Case], trec: dict[str, dict[str, float]]) -> None:
    for qid, (ranked, relevance) in cases.items():
        ours = score_case(ranked, relevance, ks=KS, f_beta=F_BETA)
        theirs = {name: trec[qid][measure] for name, measure in TREC_NAMES.items()}
        theirs["f_beta"] = trec[qid][TREC_F_BETA]
        assert {name: ours[name] for name in theirs} == pytest.approx(theirs, abs=TOLERANCE, rel=0), qid


def test_trec_eval_has_no_all_hit_or_recall_cap_but_they_follow_from_recall(
    cases: dict[str, Case], trec: dict[str, dict[str, float]]
) -> None:
    # all_hit@k is recall_k == 1; recall_cap@k rescales recall_k by R / min(k, R)
    for qid, (ranked, relevance) in cases.items():
        ours = score_case(ranked, relevance, ks=KS)
        n = len(relevance)
        for k in KS:
            recall_k = trec[qid][f"recall_{k}"]
            assert ours[f"all_hit@{k}"] == (1.0 if recall_k == 1.0 else 0.0), qid
            assert ours[f"recall_cap@{k}"] == pytest.approx(recall_k * n / min(k, n), abs=TOLERANCE), qid


def test_metric_functions_equal_trec_eval(cases: dict[str, Case], trec: dict[str, dict[str, float]]) -> None:
    for qid, (ranked, relevance) in cases.items():
        ours = {
            "recip_rank": reciprocal_rank(ranked, relevance),
            "map": average_precision(ranked, relevance),
            "Rprec": r_precision(ranked, relevance),
        }
        for k in KS:
            ours[f"P_{k}"] = precision_at_k(ranked, relevance, k)
            ours[f"recall_{k}"] = recall_at_k(ranked, relevance, k)
            ours[f"success_{k}"] = hit_at_k(ranked, relevance, k)
            ours[f"ndcg_cut_{k}"] = ndcg_at_k(ranked, relevance, k)
        theirs = {measure: trec[qid][measure] for measure in ours}
        assert ours == pytest.approx(theirs, abs=TOLERANCE, rel=0), qid
        found = sum(1 for doc in ranked if doc in relevance)
        weighted = f_beta(found / len(ranked) if ranked else 0.0, found / len(relevance), F_BETA)
        assert weighted == pytest.approx(trec[qid][TREC_F_BETA], abs=TOLERANCE, rel=0), qid


def test_f1_at_k_is_the_harmonic_mean_of_trec_evals_p_and_recall(
    cases: dict[str, Case], trec: dict[str, dict[str, float]]
) -> None:
    # trec_eval has no F@k: the reference is 2·P_k·recall_k / (P_k + recall_k) of its own P_k and recall_k
    for qid, (ranked, relevance) in cases.items():
        ours = score_case(ranked, relevance, ks=KS)
        for k in KS:
            p, r = trec[qid][f"P_{k}"], trec[qid][f"recall_{k}"]
            expected = 2 * p * r / (p + r) if p + r > 0 else 0.0
            assert ours[f"f1@{k}"] == pytest.approx(expected, abs=TOLERANCE, rel=0), (qid, k)


@pytest.mark.parametrize(
    ("ranked", "k", "expected"),
    [
        (["x.py", "a.py", "src", "b.py"], 1, 0.0),  # nothing relevant in the top 1
        (["x.py", "a.py", "src", "b.py"], 5, 0.5),  # P@5 = 2/5, R@5 = 2/3: 2·(2/5)(2/3) / (16/15) = 1/2
        (["x.py", "a.py", "src", "b.py"], 10, 4 / 13),  # P@10 = 1/5, R@10 = 2/3
        (["a.py", "b.py", "src/c.py"], 3, 1.0),  # the whole truth, nothing else
    ],
)
def test_f1_at_k_by_hand(ranked: list[str], k: int, expected: float) -> None:
    scores = score_case(ranked, {"a.py": 2, "b.py": 1, "src/c.py": 1}, ks=(k,))
    assert scores[f"f1@{k}"] == pytest.approx(expected, abs=1e-15)
