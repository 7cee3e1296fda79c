"""The ``cosil`` profile: CoSIL's evaluator (``ZhonghaoJiang/CoSIL``, ``evaluation/FLEvalNew.py``).

Its rules, each as ``evaluate_accuracy`` applies them:

- files are compared as given, without the cleaning of ``docs/metrics.md`` (``./a.py`` is not ``a.py``);
- only the first 5 answered files count (``found_files[:5]``), and only the functions of the first 5 files
  the function answer names, in its order (``found_related_locs``'s first 5 files, which need not be
  those of ``found_files``);
- functions match by name alone, without the file: ``Class.method`` (``parse_gt_methods`` drops the path of
  ``path::Class.method``; ``extract_predicted_methods`` keeps what follows ``function:`` or ``class:``);
- Top-k is "any hit": 1 when one of the first k entries is relevant (``top_k_accuracy``);
- MAP sums hits(i) / i over the answered ranks holding a relevant entry (a repeated entry counts again) and
  divides by R; MRR is 1 / the first such rank;
- the denominator is every instance of the set: a case without function truth scores 0 at function level,
  a case with no file answered scores 0 everywhere (its ``continue``), an unanswered one too.

So under this profile every case carries ``top@k``, ``function_top@k``, ``map``, ``mrr``, ``function_map``
and ``function_mrr`` (the last four replace the native values of those names).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pytest_codesearch.scoring.profiles.base import Profile, ProfileInput

FILES_KEPT = 5
"""``found_files[:5]``: the files CoSIL's evaluator reads."""


def bare_name(entity: str) -> str:
    """Return ``Class.method`` for ``path.py:Class.method`` (an entity without a path as it is)."""
    return entity.rsplit(":", 1)[1] if ":" in entity else entity


def any_hit(truth: Collection[str], answer: Sequence[str], k: int) -> float:
    """Return 1.0 when one of ``answer[:k]`` is in ``truth``, else 0.0 (CoSIL's ``top_k_accuracy``)."""
    return 1.0 if any(item in truth for item in answer[:k]) else 0.0


def average_precision(truth: Collection[str], answer: Sequence[str]) -> float:
    """Return Σ_{i: answer[i] relevant} hits(i) / i, divided by |truth| (0.0 without truth); repeats count."""
    hits, total = 0, 0.0
    for rank, item in enumerate(answer, 1):
        if item in truth:
            hits += 1
            total += hits / rank
    return total / len(truth) if truth else 0.0


def reciprocal_rank(truth: Collection[str], answer: Sequence[str]) -> float:
    """Return 1 / the rank of the first relevant entry of ``answer``, 0.0 if there is none."""
    return next((1.0 / rank for rank, item in enumerate(answer, 1) if item in truth), 0.0)


def score(given: ProfileInput) -> dict[str, float]:
    """Return CoSIL's file and function Top-k, MAP and MRR of one answer (see the module docstring)."""
    files = list(given.given_files[:FILES_KEPT])
    located = list(dict.fromkeys(e.rsplit(":", 1)[0] for e in given.functions))[:FILES_KEPT]
    names = [bare_name(e) for e in given.functions if e.rsplit(":", 1)[0] in located] if files else []
    truth_names = {bare_name(e) for e in given.truth_functions}
    metrics: dict[str, float] = {}
    for k in given.ks:
        metrics[f"top@{k}"] = any_hit(given.truth_files, files, k)
        metrics[f"function_top@{k}"] = any_hit(truth_names, names, k)
    metrics["map"] = average_precision(given.truth_files, files)
    metrics["mrr"] = reciprocal_rank(given.truth_files, files)
    metrics["function_map"] = average_precision(truth_names, names)
    metrics["function_mrr"] = reciprocal_rank(truth_names, names)
    return metrics


PROFILE = Profile(
    name="cosil",
    summary="CoSIL's Top-k any-hit, MAP and MRR over the first 5 files, functions by bare name, every case",
    source="ZhonghaoJiang/CoSIL evaluation/FLEvalNew.py",
    always=("cosil",),
    also_always=("function_map", "function_mrr"),
    score=score,
)
