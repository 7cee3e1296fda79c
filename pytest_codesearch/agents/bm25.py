"""BM25 baseline: Okapi BM25 over the text and the path of every file.

The scores are those of ``rank_bm25.BM25Okapi``, computed here with numpy over the postings of a
:class:`~pytest_codesearch.agents.corpus.TokenCorpus` instead of by ``BM25Okapi`` itself, whose
index build walks every token and whose ``get_scores`` walks every document in Python, once per
query token (``benchmarks/bench_bm25.py`` compares the two). For a term ``t`` in ``df`` of ``N``
documents, a document ``d`` of ``len(d)`` tokens in which ``t`` occurs ``tf`` times, and ``avgdl``
the mean document length::

    idf(t)      = ln(N - df + 0.5) - ln(df + 0.5), or epsilon * mean(idf) where that is negative
    score(q, d) = sum over query tokens t of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))

A query token repeated counts again, and unknown tokens add nothing, as in ``BM25Okapi``;
``tests/test_builtin_search_agents.py`` checks the scores equal ``BM25Okapi.get_scores`` on a
random corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.corpus import IndexCache, TokenCorpus, index_directory, rank_files
from pytest_codesearch.agents.tokenize import tokenize


@dataclass(frozen=True, eq=False)
class Bm25Index:
    """A corpus with its term idf and, for each posting, the BM25 weight of its count."""

    corpus: TokenCorpus
    idf: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]


def build_bm25_index(
    corpus: TokenCorpus, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25
) -> Bm25Index:
    """Return the idf of each term and the BM25 weight of each posting's count (module docstring)."""
    n_docs = len(corpus.paths)
    df = corpus.document_frequencies()
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    if len(idf):
        idf[idf < 0] = epsilon * idf.mean()
    total = int(corpus.doc_lengths.sum())
    # With no tokens at all there are no postings to weigh; avoid dividing by a zero avgdl.
    avgdl = total / n_docs if total else 1.0
    norm = k1 * (1 - b + b * corpus.doc_lengths / avgdl)
    tf = corpus.term_freqs
    weights = tf * (k1 + 1) / (tf + norm[corpus.doc_ids])
    return Bm25Index(corpus=corpus, idf=idf, weights=weights)


def bm25_scores(index: Bm25Index, query_tokens: Sequence[str]) -> npt.NDArray[np.float64]:
    """Return the BM25 score of every document of ``index`` for ``query_tokens``."""
    corpus = index.corpus
    scores = np.zeros(len(corpus.paths), dtype=np.float64)
    for token in query_tokens:
        term_id = corpus.vocabulary.get(token)
        if term_id is None:
            continue
        start, end = corpus.indptr[term_id], corpus.indptr[term_id + 1]
        scores[corpus.doc_ids[start:end]] += index.idf[term_id] * index.weights[start:end]
    return scores


class BM25Agent:
    """Rank the files of a directory by BM25 score of their text plus their path.

    A file is the document ``tokenize(text) + path_tokens(path) * path_weight``, so words of its
    path count ``path_weight`` times. Answers hold at most ``top_n`` files, all scoring above
    zero, best first, ties by path. Indexes are kept per directory for the life of the agent.
    """

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        path_weight: int = 3,
        top_n: int = 100,
        max_bytes: int = 1_000_000,
    ) -> None:
        if path_weight < 0 or top_n < 1:
            raise ValueError(
                f"BM25Agent needs path_weight >= 0 and top_n >= 1, got {path_weight} and {top_n}"
            )
        self.k1 = k1
        self.b = b
        self.path_weight = path_weight
        self.top_n = top_n
        self.max_bytes = max_bytes
        self._cache: IndexCache[Bm25Index] = IndexCache(self._build)
        self._index: Bm25Index | None = None

    def _build(self, directory: Path) -> Bm25Index:
        """Return the BM25 index of ``directory`` (the cache calls this once per directory)."""
        corpus = index_directory(directory, self.path_weight, self.max_bytes)
        return build_bm25_index(corpus, self.k1, self.b)

    @property
    def index(self) -> Bm25Index:
        """Return the index of the directory last passed to :meth:`initialize`."""
        if self._index is None:
            raise RuntimeError("BM25Agent: call initialize(repo_path) before retrieve()")
        return self._index

    def initialize(self, repo_path: str) -> None:
        """Search ``repo_path`` from now on, indexing it unless this agent already has."""
        self._index = self._cache.get(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the files of the current directory that best match ``query``."""
        index = self.index
        return rank_files(index.corpus.paths, bm25_scores(index, tokenize(query)), self.top_n)

    def reset(self) -> None:
        """Do nothing: answers depend on the query and the index only, and no query is cached."""
