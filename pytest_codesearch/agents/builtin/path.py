"""Path baseline: rank files by their paths alone, never reading a byte of them.

Issue text names files and modules far more often than prose names a file's words: tracebacks
(``File "requests/models.py", line 12``), dotted names (``django.db.models.query``), bare file names
(``conftest.py``). :class:`PathAgent` scores each file by two signals, both read from the query:

* a *mention*: the longest run of trailing path components the query names, as a path
  (``db/models/query.py``), a dotted module (``django.db.models.query``) or a file name (``query.py``).
  A mention of ``c`` components adds ``MENTION_WEIGHT * c``;
* BM25 over the path's tokens (directories, stem, extension: :func:`path_tokens`), which ranks
  files whose path words occur in the query, and breaks ties between mentions.

It is good at tracebacks and issues that name modules, and blind to everything else. Files scoring
zero are left out. :func:`~pytest_codesearch.filekinds.is_test_path` is the rule the ``exclude_tests`` parameters share.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.index.bm25score import Bm25Index, bm25_scores, build_bm25_index
from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.index.corpus import IndexCache, build_token_corpus, rank_files
from pytest_codesearch.agents.index.indexstore import stored_index
from pytest_codesearch.agents.index.snapshot_files import list_snapshot
from pytest_codesearch.repo.reader import known_view
from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize
from pytest_codesearch.filekinds import is_test_path

__all__ = ["MENTION_WEIGHT", "PathAgent", "mentioned_components"]

MENTION_WEIGHT = 10.0
"""Score of each path component a query names: above any BM25 score of a path's few tokens."""

_MENTION = re.compile(r"[\w.]*[\w/\\.-]*\w")


def mentioned_components(query: str) -> set[tuple[str, ...]]:
    """Return the path-like runs of ``query`` as tuples of components, extensions dropped.

    ``see django/db/models/query.py`` gives ("django", "db", "models", "query") and its suffixes;
    ``django.db.models.query`` gives the same. A run without ``/``, ``\\`` or ``.`` is not a mention.
    """
    found: set[tuple[str, ...]] = set()
    for run in _MENTION.findall(query):
        if not any(mark in run for mark in "/\\."):
            continue
        parts = [part for part in re.split(r"[/\\.]", run) if part]
        if parts and parts[-1] in _EXTENSIONS:
            parts = parts[:-1]
        for start in range(len(parts)):
            found.add(tuple(parts[start:]))
    return found


_EXTENSIONS = frozenset({"py", "pyi", "pyx", "js", "ts", "c", "h", "cpp", "rs", "go", "java", "rb", "txt", "rst", "md", "cfg", "toml", "ini", "yaml", "yml", "json"})


def _components(path: str) -> tuple[str, ...]:
    """Return the components of ``path`` with the file's extension dropped."""
    head, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return (*head.split("/"), stem) if head else (stem,)


def mention_scores(paths: Sequence[str], query: str) -> npt.NDArray[np.float64]:
    """Return, per path, the length of the longest trailing run of components ``query`` mentions."""
    mentions = mentioned_components(query)
    scores = np.zeros(len(paths), dtype=np.float64)
    if not mentions:
        return scores
    longest = max(len(m) for m in mentions)
    for number, path in enumerate(paths):
        parts = _components(path)
        for size in range(min(longest, len(parts)), 0, -1):
            if parts[-size:] in mentions:
                scores[number] = size
                break
    return scores


class PathAgent:
    """Rank the files of a directory by path mentions and BM25 over path tokens (see the module)."""

    needs_directory: ClassVar[bool] = False
    """The agent reads the snapshot's listing only (see ``BM25Agent``)."""

    def __init__(self, exclude_tests: bool = True, top_n: int = 50, cached_indexes: int = 4) -> None:
        if top_n < 1:
            raise ValueError(f"PathAgent needs top_n >= 1, got {top_n}")
        self.exclude_tests = exclude_tests
        self.top_n = top_n
        self._cache: IndexCache[Bm25Index] = IndexCache(self._build, cached_indexes)
        self._index: Bm25Index | None = None

    def _build(self, directory: Path) -> Bm25Index:
        """Return the BM25 index of the paths of ``directory``'s files (tests left out if asked), loaded
        from the shared index store when another run saved that of the same commit."""
        view = known_view(directory)
        return stored_index(
            None if view is None else view.tree_id,
            sys.modules[__name__],
            (self.exclude_tests,),
            lambda: self._paths_index(directory),
            lambda index: [(index.corpus, np.arange(len(index.corpus.paths)))],
            lambda corpora: build_bm25_index(corpora[0]),
        )

    def _paths_index(self, directory: Path) -> Bm25Index:
        files = list_snapshot(directory, max_bytes=1 << 62).files
        paths = [f.path for f in files if not (self.exclude_tests and is_test_path(f.path))]
        return build_bm25_index(build_token_corpus((p, Counter(path_tokens(p))) for p in paths))

    def initialize(self, repo_path: str) -> None:
        """Search ``repo_path`` from now on, listing it unless this agent already has."""
        self._index = self._cache.get(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the files whose paths the query mentions or whose path words it uses, best first."""
        if self._index is None:
            raise RuntimeError("PathAgent: call initialize(repo_path) before retrieve()")
        corpus = self._index.corpus
        scores = bm25_scores(self._index, tokenize(query))
        scores += MENTION_WEIGHT * mention_scores(corpus.paths, query)
        return rank_files(corpus, scores, self.top_n)

    def reset(self) -> None:
        """Do nothing: answers depend on the query and the index only."""
