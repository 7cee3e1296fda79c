"""Why an agent missed a case: one category per missed case, by rules checked in a fixed order.

A case is *missed* when no ground-truth path is among the first ``miss_cutoff(ks)`` results
(hit@10 = 0). Its query terms are the distinct tokens of the query (``agents.tokenize``: stop words
and one-letter tokens dropped, identifiers also cut into parts); a file's terms are the tokens of
its text and of its path. The first rule that holds names the category:

1. ``vocabulary_mismatch``: the query has terms, and none of them is a term of any ground-truth file.
2. ``distractor_overlap``: a wrong file in the top ``cutoff`` shares more query terms than the
   ground-truth file that shares the most.
3. ``specificity_gap``: the query has fewer than ``MIN_SPECIFIC_TERMS`` distinct terms.
4. ``other``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize
from pytest_codesearch.scoring.source import SourceFiles, SourceReader

FAILURE_CATEGORIES = ("vocabulary_mismatch", "distractor_overlap", "specificity_gap", "other")
"""Every category, in the order the rules are checked."""
MISS_CUTOFF = 10
"""A case is missed when hit@10 = 0; without 10 in ``ks``, the largest k is used instead."""
MIN_SPECIFIC_TERMS = 3
"""A query with fewer distinct terms than this is too short or generic to pin a file down."""
MAX_TEXT_CHARS = 1 << 20
"""Only the first MiB of characters of a file is tokenised."""


def miss_cutoff(ks: Sequence[int]) -> int:
    """Return the k of the hit@k that decides a miss: 10 if it is one of ``ks``, else max(ks)."""
    return MISS_CUTOFF if MISS_CUTOFF in ks else max(ks)


def is_miss(retrieved: Sequence[str], ground_truth: Collection[str], cutoff: int) -> bool:
    """Return True when no ground-truth path is among the first ``cutoff`` retrieved entries."""
    return not any(path in ground_truth for path in retrieved[:cutoff])


@lru_cache(maxsize=4096)
def query_terms(query: str) -> frozenset[str]:
    """Return the distinct terms of ``query`` (cached: every agent of a case asks the same)."""
    return frozenset(tokenize(query))


def classify_miss(
    query: str,
    ground_truth: Collection[str],
    retrieved: Sequence[str],
    directories: AbstractSet[str],
    source: SourceReader,
    cutoff: int,
) -> str:
    """Return the failure category of a missed case (rules in the module docstring).

    ``retrieved`` is the normalised ranked answer and ``directories`` its directory entries (they
    are never distractors); ``source`` reads a snapshot file's text (None if unreadable, then the
    path alone gives the file's terms).
    """
    terms = query_terms(query)
    if terms:
        best = max(len(terms & _file_terms(path, source)) for path in ground_truth)
        if best == 0:
            return "vocabulary_mismatch"
        for path in retrieved[:cutoff]:
            if path not in directories and path not in ground_truth:
                if len(terms & _file_terms(path, source)) > best:
                    return "distractor_overlap"
    if len(terms) < MIN_SPECIFIC_TERMS:
        return "specificity_gap"
    return "other"


def _file_terms(path: str, source: SourceReader) -> frozenset[str]:
    """Return the terms of a file: those of its path and of the start of its text (kept by ``SourceFiles``)."""
    cache = source.terms if isinstance(source, SourceFiles) else {}
    terms = cache.get(path)
    if terms is None:
        text = source(path)
        found = set(path_tokens(path))
        if text:
            found.update(tokenize(text[:MAX_TEXT_CHARS]))
        terms = cache[path] = frozenset(found)
    return terms
