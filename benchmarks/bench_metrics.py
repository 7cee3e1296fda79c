"""Time per-case scoring and aggregation with bootstrap intervals against pytrec_eval.

Makes synthetic cases (a ranked list of 100 paths drawn from 10,000 files; 1 to 5 relevant
paths graded 1 to 3, each planted in the list with probability 0.6), then times, on the same
input in the same process:

1. ``scoring.score_case`` called once per case (the path every benchmark item takes);
2. aggregation of every metric over all cases: mean, median, std and a 95% percentile bootstrap
   interval (``stats.summarize_present`` and ``stats.bootstrap_ci_present`` on the metric matrix
   directly, as ``report.table.summarize_metrics`` calls them; building CaseResult records is
   left out);
3. ``pytrec_eval`` (RelevanceEvaluator construction plus evaluate) on P_1,5,10, recall_1,5,10,
   success_1,5,10, ndcg_cut_1,5,10, recip_rank, map and Rprec.

It checks that our scores equal pytrec_eval's, then prints the timings (CPU time of the process,
or wall time with ``--wall``) and ratios. Run it from the repository root::

    python benchmarks/bench_metrics.py [--cases 100000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytrec_eval  # type: ignore[import-untyped, unused-ignore]

from pytest_codesearch.scoring import metric_names, score_case
from pytest_codesearch.report.stats import bootstrap_ci_present, seeded_rng, summarize_present

T = TypeVar("T")
KS = (1, 5, 10)
TREC_MEASURES = {
    "P_1,5,10", "recall_1,5,10", "success_1,5,10", "ndcg_cut_1,5,10", "recip_rank", "map", "Rprec",
}
OURS_FOR_TREC = {
    "P_5": "precision@5",
    "recall_10": "recall@10",
    "success_1": "hit@1",
    "ndcg_cut_10": "ndcg@10",
    "recip_rank": "mrr",
    "map": "map",
    "Rprec": "r_precision",
}


def make_cases(
    n_cases: int, depth: int, n_files: int, seed: int
) -> tuple[list[list[str]], list[dict[str, int]]]:
    """Return ranked lists (no duplicates) and graded relevance maps for ``n_cases`` cases."""
    rng = random.Random(seed)
    files = [f"src/pkg{i // 100}/module_{i}.py" for i in range(n_files)]
    runs: list[list[str]] = []
    relevances: list[dict[str, int]] = []
    for _ in range(n_cases):
        relevant = rng.sample(files, rng.randint(1, 5))
        ranked = rng.sample(files, depth)
        for path in relevant:
            if path not in ranked and rng.random() < 0.6:
                ranked[rng.randrange(depth)] = path
        runs.append(ranked)
        relevances.append({path: rng.randint(1, 3) for path in relevant})
    return runs, relevances


CLOCK = time.process_time
"""CPU time of this process: on a shared machine wall time mostly measures the neighbours."""


def timed(function: Callable[[], T]) -> tuple[T, float]:
    """Return the function's result and the CPU time it took in seconds (garbage collection paused)."""
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        result = function()
        return result, CLOCK() - start
    finally:
        gc.enable()


def aggregate(matrix: np.ndarray[Any, Any], resamples: int, seed: int) -> list[Any]:
    """Summarise every column and bootstrap its mean: what one agent's report entry needs."""
    rng = seeded_rng(seed, "agent", "bench")
    return [summarize_present(matrix), bootstrap_ci_present(matrix, resamples, rng)]


def check_against_trec(
    names: list[str], matrix: np.ndarray[Any, Any], trec: dict[str, dict[str, float]]
) -> float:
    """Return the largest absolute difference between our scores and pytrec_eval's."""
    worst = 0.0
    for measure, ours in OURS_FOR_TREC.items():
        column = matrix[:, names.index(ours)]
        theirs = np.array([trec[f"q{i}"][measure] for i in range(matrix.shape[0])])
        worst = max(worst, float(np.abs(column - theirs).max()))
    return worst


def main() -> None:
    """Parse options, run the three timings and print them with their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20240501)
    parser.add_argument("--wall", action="store_true", help="time wall clock instead of CPU time")
    args = parser.parse_args()
    if args.wall:
        global CLOCK
        CLOCK = time.perf_counter

    runs, relevances = make_cases(args.cases, args.depth, args.files, args.seed)
    names = metric_names(KS)
    print(f"{args.cases:,} cases x {args.depth} ranked paths over {args.files:,} files; "
          f"{len(names)} metrics; {args.resamples:,} bootstrap resamples")

    per_case, t_case = timed(lambda: [score_case(r, rel, ks=KS) for r, rel in zip(runs, relevances)])
    matrix = np.array([list(scores.values()) for scores in per_case])
    assert list(per_case[0]) == names
    _, t_aggregate = timed(lambda: aggregate(matrix, args.resamples, args.seed))

    qrels = {f"q{i}": rel for i, rel in enumerate(relevances)}
    # trec_eval sorts by score: strictly decreasing scores keep our list order (PITFALLS 27)
    trec_run, t_convert = timed(lambda: {
        f"q{i}": {path: float(args.depth - rank) for rank, path in enumerate(ranked)}
        for i, ranked in enumerate(runs)
    })
    trec, t_trec = timed(lambda: pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(trec_run))
    worst = check_against_trec(names, matrix, trec)

    per_query = 1e6 / args.cases
    print(f"score_case loop      {t_case:7.3f} s  ({t_case * per_query:5.1f} us/case)")
    print(f"aggregation + CI95   {t_aggregate:7.3f} s  (every metric: mean, median, std, bootstrap interval)")
    print(f"pytrec_eval          {t_trec:7.3f} s  ({t_trec * per_query:5.1f} us/case; "
          f"building its run dict took {t_convert:.3f} s more)  max |ours - trec| = {worst:.1e}")
    print(f"pytrec_eval / score_case loop   {t_trec / t_case:6.2f}x")
    print(f"score_case loop + aggregation   {t_case + t_aggregate:6.3f} s")


if __name__ == "__main__":
    main()
