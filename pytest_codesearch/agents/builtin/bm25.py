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

The scores of each field are those of ``rank_bm25.BM25Okapi``, computed with numpy over postings
(:mod:`~pytest_codesearch.agents.index.bm25score` gives the formulas).

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
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import ClassVar

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.index.bm25score import (
    FIELD_MODES,
    FieldIndex,
    build_field_index,
    field_index_parts,
    loaded_field_index,
)
from pytest_codesearch.agents.index.corpus import IndexCache, SnapshotIndexer, rank_files
from pytest_codesearch.agents.index.functions import EntityDoc, ScoredEntities, rank_scored, score_entities, snapshot_entities
from pytest_codesearch.agents.index.indexstore import stored_index
from pytest_codesearch.agents.index.tokencache import TokenCache, shared_token_cache
from pytest_codesearch.agents.index.tokenize import tokenize
from pytest_codesearch.filekinds import is_source_path, is_test_path
from pytest_codesearch.repo.reader import SnapshotView

FILE_SETS = ("source", "all")
"""What ``BM25Agent`` ranks, by the name its ``files`` parameter takes."""


class BM25Agent:
    """Rank the files of a directory by BM25 over their text plus weighted BM25 over their path.

    A file's score is ``bm25(query, text) + path_weight * bm25(query, path tokens)`` (see the
    module), or with ``fields="bm25f"`` the BM25F score (:func:`~pytest_codesearch.agents.index.bm25score.bm25f_scores`). Answers hold at
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
