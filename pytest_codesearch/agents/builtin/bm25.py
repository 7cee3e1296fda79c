"""BM25 baseline: Okapi BM25 over each file's text, plus BM25 over its path as a second field.

A file is two documents: its text and its path (``path_tokens``: directories, stem, extension). Its
score is ``bm25(query, text) + path_weight * bm25(query, path)``, each field with its own idf and
average length, so a word of the path weighs as a word of a short document does, however long the
file is. Only source files are ranked by default (``files="source"``:
:func:`~pytest_codesearch.filekinds.is_source_path`, test files left out), and N, df and
avgdl count those files alone: documentation, translation catalogues and configuration repeat an
issue's words and would otherwise outrank the code. Defaults (``k1`` 1.2, ``b`` 0.75,
``path_weight`` 2, source files without tests, 50 files an answer) were chosen on SWE-bench Lite
(``benchmarks/bench_baselines.py``, ``docs/agents.md``): repeating the path's tokens inside the text
(the first version) scored Acc@5 54.4 there, path weight 4 over every text file 65.0.

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

The best ``entity_files`` files are then re-ranked by their definitions (functions, methods, top-level
classes: ``agents/index/functions.py``), each scored by BM25 over its own text: a file adds
``definition_weight`` times the sum of its ``best_definitions`` best definition scores, and
``mention_weight`` times the idf of each distinct query word that names one of its definitions
(``Coupon`` or ``apply_discount`` for ``Coupon.apply_discount``); in the function-level answer a
definition whose own name the query uses adds ``mention_weight`` times its idf too, and a module (a
top-level class or function) adds ``support_weight`` times the scores of its next ``support_definitions``
best definitions to its best one's. A file's whole
text says it uses the issue's words; its best functions say they sit together, and a name says where
they are defined. Chosen on 92 SWE-bench Lite instances (every third), on the other 182 this raised
file Acc@1 from 46.7 to 52.2 and Acc@5 from 74.2 to 79.7 (``docs/agents.md``).

Indexing a snapshot reuses the work of earlier ones (:func:`~pytest_codesearch.agents.index.corpus.index_snapshot`):
per-blob token counts from a process-wide cache, and the postings of a recent snapshot that shares
most files.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.repo.reader import SnapshotView
from pytest_codesearch.agents.index.corpus import IndexCache, SnapshotIndexer, build_token_corpus, rank_files
from pytest_codesearch.agents.index.functions import EntityDoc, ScoredEntities, rank_scored, score_entities, snapshot_entities
from pytest_codesearch.agents.index.indexstore import stored_index
from pytest_codesearch.agents.index.postings import TokenCorpus
from pytest_codesearch.agents.index.tokencache import TokenCache, shared_token_cache
from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize
from pytest_codesearch.filekinds import is_source_path, is_test_path


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


FILE_SETS = ("source", "all")
"""What ``BM25Agent`` ranks, by the name its ``files`` parameter takes."""


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


class BM25Agent:
    """Rank the files of a directory by BM25 over their text plus weighted BM25 over their path.

    A file's score is ``bm25(query, text) + path_weight * bm25(query, path tokens)`` (see the
    module), or with ``fields="bm25f"`` the BM25F score (:func:`bm25f_scores`). Answers hold at
    most ``top_n`` files, all scoring above zero, best first, ties by path, drawn from the source
    files (``files="source"``) or every text file (``"all"``); test files
    (:func:`~pytest_codesearch.filekinds.is_test_path`) are left out when ``exclude_tests``. The last ``cached_indexes`` indexes are kept by directory; token
    counts are shared with the other built-in agents through ``token_cache``. The best ``entity_files``
    files (0: none) are re-ranked by their definitions (``definition_weight``, ``best_definitions``,
    ``mention_weight``: see the module), and their functions and modules ranked too, by BM25 over each
    function's text plus ``file_weight`` times its file's score (:mod:`~pytest_codesearch.agents.index.functions`);
    a module adds ``support_weight`` times its next ``support_definitions`` best definitions' scores.
    """

    needs_directory: ClassVar[bool] = False
    """The harness may hand this agent a snapshot whose directory is not written yet: it reads the
    manifest beside it and blobs from the repository (see ``agents/index/snapshot_files.py``)."""

    def __init__(
        self,
        k1: float = 1.2,
        b: float = 0.75,
        path_weight: float = 2.0,
        exclude_tests: bool = True,
        fields: str = "sum",
        files: str = "source",
        top_n: int = 50,
        max_bytes: int = 1_000_000,
        cached_indexes: int = 4,
        token_cache: TokenCache | None = None,
        entity_files: int = 20,
        file_weight: float = 0.5,
        definition_weight: float = 1.0,
        best_definitions: int = 2,
        mention_weight: float = 3.0,
        support_weight: float = 0.5,
        support_definitions: int = 2,
    ) -> None:
        if path_weight < 0 or top_n < 1:
            raise ValueError(
                f"BM25Agent needs path_weight >= 0 and top_n >= 1, got {path_weight} and {top_n}"
            )
        if definition_weight < 0 or mention_weight < 0 or support_weight < 0:
            raise ValueError(
                "BM25Agent needs definition_weight, mention_weight and support_weight >= 0, "
                f"got {definition_weight}, {mention_weight} and {support_weight}"
            )
        if best_definitions < 1 or support_definitions < 0:
            raise ValueError(
                "BM25Agent needs best_definitions >= 1 and support_definitions >= 0, "
                f"got {best_definitions} and {support_definitions}"
            )
        if files not in FILE_SETS:
            raise ValueError(f"BM25Agent files={files!r}: choose one of {', '.join(FILE_SETS)}")
        if fields not in FIELD_MODES:
            raise ValueError(f"BM25Agent fields={fields!r}: choose one of {', '.join(FIELD_MODES)}")
        self.k1 = k1
        self.b = b
        self.path_weight = path_weight
        self.exclude_tests = exclude_tests
        self.fields = fields
        self.files = files
        self.top_n = top_n
        self.max_bytes = max_bytes
        self.entity_files = entity_files
        self.file_weight = file_weight
        self.definition_weight = definition_weight
        self.best_definitions = best_definitions
        self.mention_weight = mention_weight
        self.support_weight = support_weight
        self.support_definitions = support_definitions
        self._root: Path | None = None
        self._entities: Callable[[str], tuple[EntityDoc, ...]] = lambda path: ()
        self.token_cache = shared_token_cache() if token_cache is None else token_cache
        # files="source" ranks source files only: other files are never read, unless a snapshot has none;
        # with exclude_tests, test files are never ranked, so they are not read either (N, df and avgdl
        # count ranked files alone: answers are those of an index that holds them)
        keep = partial(is_source_path, tests=True) if files == "source" else None
        skip = is_test_path if exclude_tests else None
        self._indexer = SnapshotIndexer(0, max_bytes, self.token_cache, keep=keep, skip=skip)
        self._cache: IndexCache[FieldIndex] = IndexCache(self._build, cached_indexes)
        self._index: FieldIndex | None = None

    def _build(self, directory: Path) -> FieldIndex:
        """Return the index of ``directory`` (the cache calls this once per directory), loading the
        corpora of a commit's snapshot from the shared index store when another run saved them."""
        return stored_index(
            self._indexer.tree_id(directory),
            sys.modules[__name__],
            (self.files, self.exclude_tests, self.max_bytes),
            lambda: build_field_index(self._indexer.index(directory), self.k1, self.b, self.exclude_tests),
            field_index_parts,
            lambda corpora: loaded_field_index(corpora, self.k1, self.b),
        )

    @property
    def index(self) -> FieldIndex:
        """Return the index of the directory last passed to :meth:`initialize`."""
        if self._index is None:
            raise RuntimeError("BM25Agent: call initialize(repo_path) before retrieve()")
        return self._index

    def use_snapshot(self, view: SnapshotView) -> None:
        """Take the snapshot's listing and reader from the harness (called before ``initialize``)."""
        self._indexer.use_snapshot(view)

    def initialize(self, repo_path: str) -> None:
        """Search ``repo_path`` from now on, indexing it unless this agent already has."""
        self._index = self._cache.get(repo_path)
        if self._root != Path(repo_path):
            self._root = Path(repo_path)
            self._entities = snapshot_entities(
                self._indexer.reader(self._root), blob_of=self._indexer.blob_ids(self._root)
            )

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the files of the current directory that best match ``query``, the best ``entity_files``
        of them re-ranked by their definitions, and the functions and modules of those files
        (``agents/index/functions.py``)."""
        index = self.index
        tokens = tokenize(query)
        scores = FIELD_MODES[self.fields](index, tokens, self.path_weight)
        result = rank_files(index.content.corpus, scores, self.top_n)
        if not self.entity_files or not result.files:
            return result
        head = result.files[: self.entity_files]
        scored = score_entities(head, tokens, self._entities, index.content.idf, k1=self.k1, b=self.b)
        result, scored = self._rerank(result, scored, query)
        if self.mention_weight:
            scored = scored.plus_names(query, index.content.idf, self.mention_weight)
        ranking = rank_scored(
            scored,
            len(head),
            result.scores,
            file_weight=self.file_weight,
            top_n=self.top_n,
            support_weight=self.support_weight,
            support_definitions=self.support_definitions,
        )
        return replace(result, functions=ranking.functions, modules=ranking.modules)

    def _rerank(
        self, result: RetrievalResult, scored: ScoredEntities, query: str
    ) -> tuple[RetrievalResult, ScoredEntities]:
        """Return ``result`` with its first files re-ranked by their score plus ``definition_weight`` times
        the sum of their ``best_definitions`` definitions' scores plus ``mention_weight`` times the idf of
        the query's words that name their definitions, and ``scored`` with its files in that order."""
        n_files = min(self.entity_files, len(result.files))
        if not scored.docs or not (self.definition_weight or self.mention_weight):
            return result, scored
        best = scored.best_sums(n_files, self.best_definitions)
        named = scored.named(n_files, query, self.index.content.idf)
        boosted = [s + self.definition_weight * d + self.mention_weight * m for s, d, m in zip(result.scores, best, named)]
        order = sorted(range(n_files), key=lambda i: -boosted[i])  # stable: ties keep the BM25 order
        files = [result.files[i] for i in order] + result.files[n_files:]
        scores = [boosted[i] for i in order] + result.scores[n_files:]
        return replace(result, files=files, scores=scores), scored.reordered(order)

    def reset(self) -> None:
        """Do nothing: answers depend on the query and the index only, and no query is cached."""
