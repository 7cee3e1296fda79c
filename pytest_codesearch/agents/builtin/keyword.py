"""Keyword baseline: rank files by which of the query's words they contain, rare words first, like grep -l.

A file's score is the sum, over the distinct tokens of the query that occur in the file (its text
and, once, its path), of ``ln(N / df)``: ``N`` files, ``df`` of them holding the token. How often a
token occurs does not count, as for ``grep -l``: a file matching more of the query's words ranks
higher, and a rare identifier outweighs many common words. Counting occurrences instead (the first
version, ``grep -c``) let the longest files win on long, issue-style queries (Acc@5 9.9 on SWE-bench
Lite, see ``docs/agents.md``). Test files (:func:`~pytest_codesearch.filekinds.is_test_path`)
are left out when ``exclude_tests``. Files scoring zero are left out; the rest come best first, ties
by path. Indexing reuses earlier work as the BM25 agent does
(:func:`~pytest_codesearch.agents.index.corpus.index_snapshot`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.repo.reader import SnapshotView
from pytest_codesearch.agents.index.corpus import IndexCache, SnapshotIndexer, path_order, rank_files
from pytest_codesearch.agents.index.indexstore import stored_index
from pytest_codesearch.agents.index.postings import TokenCorpus
from pytest_codesearch.agents.index.tokencache import TokenCache, shared_token_cache
from pytest_codesearch.agents.index.tokenize import tokenize
from pytest_codesearch.filekinds import is_test_path


def keyword_scores(corpus: TokenCorpus, query_tokens: Sequence[str]) -> npt.NDArray[np.float64]:
    """Return, for every document, ``sum ln(N / df(t))`` over the distinct ``query_tokens`` it holds."""
    scores = np.zeros(len(corpus.paths), dtype=np.float64)
    n_docs = corpus.size
    for token in dict.fromkeys(query_tokens):
        doc_ids, _ = corpus.postings(token)
        if len(doc_ids):
            scores[doc_ids] += np.log(n_docs / len(doc_ids))
    return scores


class KeywordAgent:
    """Rank the files of a directory by the rarity of the query's tokens they contain (see the module)."""

    needs_directory: ClassVar[bool] = False
    """The harness may hand this agent a snapshot whose directory is not written yet (see ``BM25Agent``)."""

    def __init__(
        self,
        exclude_tests: bool = True,
        top_n: int = 50,
        max_bytes: int = 1_000_000,
        cached_indexes: int = 4,
        token_cache: TokenCache | None = None,
    ) -> None:
        if top_n < 1:
            raise ValueError(f"KeywordAgent needs top_n >= 1, got {top_n}")
        self.exclude_tests = exclude_tests
        self.top_n = top_n
        self.max_bytes = max_bytes
        self.token_cache = shared_token_cache() if token_cache is None else token_cache
        self._indexer = SnapshotIndexer(1, max_bytes, self.token_cache)
        self._cache: IndexCache[TokenCorpus] = IndexCache(self._build, cached_indexes)
        self._index: TokenCorpus | None = None

    def _build(self, directory: Path) -> TokenCorpus:
        """Return the token postings of ``directory`` (the cache calls this once per directory), loaded
        from the shared index store when another run saved those of the same commit."""
        return stored_index(
            self._indexer.tree_id(directory),
            sys.modules[__name__],
            (self.max_bytes,),
            lambda: self._indexer.index(directory),
            lambda corpus: [(corpus, path_order(corpus))],
            lambda corpora: corpora[0],
        )

    @property
    def index(self) -> TokenCorpus:
        """Return the postings of the directory last passed to :meth:`initialize`."""
        if self._index is None:
            raise RuntimeError("KeywordAgent: call initialize(repo_path) before retrieve()")
        return self._index

    def use_snapshot(self, view: SnapshotView) -> None:
        """Take the snapshot's listing and reader from the harness (called before ``initialize``)."""
        self._indexer.use_snapshot(view)

    def initialize(self, repo_path: str) -> None:
        """Search ``repo_path`` from now on, indexing it unless this agent already has."""
        self._index = self._cache.get(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the files of the current directory where the query's tokens occur most."""
        index = self.index
        scores = keyword_scores(index, tokenize(query))
        if self.exclude_tests:
            scores[[is_test_path(path) for path in index.paths]] = 0.0
        return rank_files(index, scores, self.top_n)

    def reset(self) -> None:
        """Do nothing: answers depend on the query and the index only, and no query is cached."""
