"""Okapi BM25 over token corpora, and the two-field (text and path) index ``BM25Agent`` ranks files with.

The scores of each field are those of ``rank_bm25.BM25Okapi``, computed here with numpy over the
postings of a :class:`~pytest_codesearch.agents.index.corpus.TokenCorpus` instead of by ``BM25Okapi``
itself, whose index build walks every token and whose ``get_scores`` walks every document in Python,
once per query token (``benchmarks/bench_bm25.py`` compares the two). For a term ``t`` in ``df`` of
``N`` documents, a document ``d`` of ``len(d)`` tokens in which ``t`` occurs ``tf`` times, and
``avgdl`` the mean document length::

    idf(t)      = ln(N - df + 0.5) - ln(df + 0.5), or epsilon * mean(idf) where that is negative
    score(q, d) = sum over query tokens t of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))

A query token repeated counts again, and unknown tokens add nothing, as in ``BM25Okapi``;
``tests/test_builtin_search_agents.py`` checks the scores equal ``BM25Okapi.get_scores`` on a
random corpus. ``mean(idf)`` is summed by distinct document frequency (every term of one ``df`` has
the same idf), so it does not depend on term order: an index derived from another snapshot's
scores exactly as one built from scratch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.index.corpus import build_token_corpus
from pytest_codesearch.agents.index.postings import TokenCorpus
from pytest_codesearch.agents.index.tokenize import path_tokens
from pytest_codesearch.filekinds import is_test_path


@dataclass(frozen=True, eq=False)
class Bm25Index:
    """A corpus with, by df, the idf of its terms, and each document's ``k1 * (1 - b + b * len / avgdl)``.

    ``df`` counts, per term id, the documents the statistics cover: every live one, or those kept.
    """

    corpus: TokenCorpus
    idf_by_df: npt.NDArray[np.float64]
    norm: npt.NDArray[np.float64]
    k1: float
    df: npt.NDArray[np.int64]

    def idf(self, term: str) -> float:
        """Return the idf of ``term`` (0.0 for a term no covered document holds: nothing to weigh)."""
        term_id = self.corpus.vocabulary.get(term)
        df = self.df
        if term_id is None or term_id >= len(df) or df[term_id] == 0:
            return 0.0
        return float(self.idf_by_df[df[term_id]])


def build_bm25_index(
    corpus: TokenCorpus,
    k1: float = 1.5,
    b: float = 0.75,
    epsilon: float = 0.25,
    keep: npt.NDArray[np.bool_] | None = None,
) -> Bm25Index:
    """Return the idf of every document frequency and the length normaliser of each document.

    Every term of one document frequency has the same idf, so idf is computed per distinct df, and
    mean(idf) summed by df does not depend on term ids (see the module docstring). With ``keep`` (a
    mask over document numbers, live ones only) N, df and avgdl count the kept documents alone: the
    others are never ranked, so their words should not make the query's rarer or commoner.
    """
    if keep is None:
        n_docs, df, lengths = corpus.size, corpus.document_frequencies(), corpus.live_lengths()
    else:
        kept = np.flatnonzero(keep)
        n_docs, lengths = len(kept), corpus.doc_lengths[kept]
        term_ids = [corpus.documents[i][0] for i in kept]
        df = np.bincount(np.concatenate(term_ids), minlength=len(corpus.df)) if term_ids else corpus.df * 0
    present = np.bincount(df[df > 0]).astype(np.float64) if len(df) else np.zeros(1)
    frequencies = np.arange(max(len(present), 1), dtype=np.float64)
    idf_by_df = np.log(n_docs - frequencies + 0.5) - np.log(frequencies + 0.5)
    terms = present.sum()
    if terms:
        mean_idf = float(np.sum(present * idf_by_df[: len(present)])) / terms
        idf_by_df[idf_by_df < 0] = epsilon * mean_idf
    total = int(lengths.sum())
    # With no tokens at all there are no postings to weigh; avoid dividing by a zero avgdl.
    avgdl = total / n_docs if total else 1.0
    norm = (k1 * (1 - b + b * corpus.doc_lengths / avgdl)).astype(np.float64)
    return Bm25Index(corpus=corpus, idf_by_df=idf_by_df, norm=norm, k1=k1, df=np.asarray(df, dtype=np.int64))


def bm25_scores(index: Bm25Index, query_tokens: Sequence[str]) -> npt.NDArray[np.float64]:
    """Return the BM25 score of every document number of ``index`` for ``query_tokens`` (dead ones 0)."""
    corpus = index.corpus
    scores = np.zeros(len(corpus.paths), dtype=np.float64)
    for token in query_tokens:
        doc_ids, tf = corpus.postings(token)
        if len(doc_ids):
            weights = tf * (index.k1 + 1) / (tf + index.norm[doc_ids])
            scores[doc_ids] += index.idf(token) * weights
    return scores


@dataclass(frozen=True, eq=False)
class FieldIndex:
    """A snapshot's content index, the index of its ranked files' paths, and which documents are ranked.

    ``path_docs[i]`` is the content document number of path document ``i``; ``ranked`` marks the
    documents an answer may hold (see :func:`ranked_documents`), the only ones both indexes count.
    """

    content: Bm25Index
    paths: Bm25Index
    path_docs: npt.NDArray[np.int64]
    ranked: npt.NDArray[np.bool_]

    @property
    def corpus(self) -> TokenCorpus:
        """Return the postings of the files' text (what ``BM25Agent.index.corpus`` always named)."""
        return self.content.corpus


def ranked_documents(corpus: TokenCorpus, exclude_tests: bool) -> npt.NDArray[np.bool_]:
    """Return which live documents of ``corpus`` an answer may hold: all of them, tests left out when
    ``exclude_tests``.

    Which files are documents at all (``files="source"`` or ``"all"``) is settled when the corpus is
    built (``SnapshotIndexer``'s ``keep``, with its fall-back to every text file).
    """
    ranked = np.zeros(len(corpus.paths), dtype=np.bool_)
    ranked[corpus.base_size :] = True
    ranked[: corpus.base_size] = True if corpus.live is None else corpus.live
    if exclude_tests:
        live = np.flatnonzero(ranked)
        ranked[live] = np.array([not is_test_path(corpus.paths[i]) for i in live], dtype=np.bool_)
    return ranked


def build_field_index(corpus: TokenCorpus, k1: float = 1.2, b: float = 0.75, exclude_tests: bool = True) -> FieldIndex:
    """Return the content and path indexes of ``corpus``'s ranked documents (see :class:`FieldIndex`)."""
    ranked = ranked_documents(corpus, exclude_tests)
    path_docs = np.flatnonzero(ranked).astype(np.int64)
    paths = build_token_corpus((corpus.paths[i], Counter(path_tokens(corpus.paths[i]))) for i in path_docs)
    return FieldIndex(build_bm25_index(corpus, k1, b, keep=ranked), build_bm25_index(paths, k1, b), path_docs, ranked)


def field_index_parts(index: FieldIndex) -> list[tuple[TokenCorpus, npt.NDArray[np.int64]]]:
    """Return what the index store keeps of ``index``: its ranked documents' text and paths, in path order."""
    corpus = index.content.corpus
    order = np.arange(len(index.path_docs)) if corpus.rank is None else np.argsort(corpus.rank[index.path_docs])
    return [(corpus, index.path_docs[order]), (index.paths.corpus, order)]


def loaded_field_index(corpora: Sequence[TokenCorpus], k1: float, b: float) -> FieldIndex:
    """Return the field index of the corpora :func:`field_index_parts` saved: it scores as the original."""
    content, paths = corpora
    every = np.arange(len(content.paths), dtype=np.int64)
    ranked = np.ones(len(content.paths), dtype=np.bool_)
    return FieldIndex(build_bm25_index(content, k1, b), build_bm25_index(paths, k1, b), every, ranked)


def field_scores(index: FieldIndex, query_tokens: Sequence[str], path_weight: float) -> npt.NDArray[np.float64]:
    """Return ``bm25(content) + path_weight * bm25(path)`` per document, 0 for those not ranked."""
    scores = bm25_scores(index.content, query_tokens)
    if path_weight:
        scores[index.path_docs] += path_weight * bm25_scores(index.paths, query_tokens)
    scores[~index.ranked] = 0.0
    return scores


def bm25f_scores(index: FieldIndex, query_tokens: Sequence[str], path_weight: float) -> npt.NDArray[np.float64]:
    """Return the BM25F score of every document: text and ``path_weight`` x path counts, saturated together.

    For a query token ``t``, ``tf~ = tf_text / B_text + path_weight * tf_path / B_path`` with
    ``B = 1 - b + b * len / avgdl`` of each field, and the score adds ``idf(t) * tf~ * (k1 + 1) /
    (k1 + tf~)``. ``idf`` is the text field's, or the path field's for a token no text holds.
    With ``path_weight`` 0 this is BM25 over the text alone. Documents not ranked score 0.
    """
    content, paths = index.content, index.paths
    k1 = content.k1
    scores = np.zeros(len(content.corpus.paths), dtype=np.float64)
    tf = np.zeros_like(scores)
    for token, repeats in Counter(query_tokens).items():
        doc_ids, counts = content.corpus.postings(token)
        idf = content.idf(token)
        tf[doc_ids] += counts * k1 / content.norm[doc_ids]
        touched = doc_ids
        if path_weight:
            path_ids, path_counts = paths.corpus.postings(token)
            if len(path_ids):
                idf = idf or paths.idf(token)
                docs = index.path_docs[path_ids]
                tf[docs] += path_weight * path_counts * paths.k1 / paths.norm[path_ids]
                touched = np.union1d(doc_ids, docs)
        if len(touched):
            saturated = tf[touched]
            scores[touched] += repeats * idf * saturated * (k1 + 1) / (k1 + saturated)
            tf[touched] = 0.0
    scores[~index.ranked] = 0.0
    return scores


FIELD_MODES = {"sum": field_scores, "bm25f": bm25f_scores}
"""How ``BM25Agent`` joins the text and path fields, by the name its ``fields`` parameter takes."""
