"""Embedding baseline: a sentence-transformers model's cosine between the query and each chunk of code.

Each source file is cut into chunks (``agents/index/chunks.py``: its head, its functions and
top-level classes, or windows of a file no outline reads), each chunk's text starting with its path.
Every chunk is embedded once per model (``agents/index/embedstore.py``: cached in memory and under the
run's cache directory by the hash of its text, so a snapshot that shares most files with one seen
before, in this run or an earlier one, embeds only its new chunks). A query is embedded with
``query_prefix`` before it (the code models that want one), and scored against every chunk by cosine
(dot product of unit vectors). The answer holds:

* files, by their best chunk (``max`` over the file's chunks);
* functions (``path.py:Class.method``), by their own chunk;
* modules (``path.py:Name``, a top-level class or function), by their best chunk (the class's own
  lines or any of its methods).

Needs the ``embeddings`` extra (``pip install 'pytest-codesearch[embeddings]'``): building the agent
without it is one error with that line. The model is loaded at the first ``initialize``, on CUDA when
torch sees a GPU, else on the CPU with ``threads`` threads (``docs/agents.md``, "Embeddings").
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.index.chunks import Chunk, ChunkOptions, file_chunks
from pytest_codesearch.agents.index.corpus import IndexCache
from pytest_codesearch.agents.index.embedstore import EmbeddingCache, Vectors
from pytest_codesearch.agents.index.encoder import (
    DEFAULT_MODEL, SentenceEncoder, check_model, load_encoder, require_sentence_transformers, resolve_model,
)  # fmt: skip
from pytest_codesearch.agents.index.snapshot_files import SnapshotFile, list_snapshot
from pytest_codesearch.agents.index.tokencache import decode_text
from pytest_codesearch.filekinds import is_source_path, is_test_path
from pytest_codesearch.repo.reader import SnapshotView, known_view

FILE_SETS = ("source", "all")


@dataclass(frozen=True, eq=False)
class ChunkIndex:
    """A snapshot's chunks with their unit vectors (one row each) and the file each belongs to."""

    chunks: tuple[Chunk, ...]
    vectors: Vectors
    files: tuple[str, ...]
    file_of: npt.NDArray[np.int64]


class EmbeddingAgent:
    """Rank files, functions and modules by the cosine of a sentence-transformers model (see the module)."""

    needs_directory: ClassVar[bool] = False
    """Reads the snapshot through its view (``use_snapshot``): no checkout needed."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        query_prefix: str = "",
        batch_size: int = 32,
        device: str | None = None,
        threads: int | None = None,
        files: str = "source",
        exclude_tests: bool = True,
        head_lines: int = 30,
        window_lines: int = 40,
        max_windows: int = 4,
        max_chars: int = 1000,
        max_seq_length: int = 256,
        top_n: int = 50,
        max_bytes: int = 1_000_000,
        cached_indexes: int = 4,
        trust_remote_code: bool = False,
    ) -> None:
        if files not in FILE_SETS:
            raise ValueError(f"EmbeddingAgent files={files!r}: choose one of {', '.join(FILE_SETS)}")
        if top_n < 1 or batch_size < 1 or max_chars < 1 or head_lines < 1 or window_lines < 1:
            raise ValueError("EmbeddingAgent needs top_n, batch_size, max_chars, head_lines and window_lines >= 1")
        require_sentence_transformers()
        self.model = model
        self.location = check_model(resolve_model(model))
        self.query_prefix = query_prefix
        self.batch_size = batch_size
        self.device = device
        self.threads = threads
        self.files = files
        self.exclude_tests = exclude_tests
        self.options = ChunkOptions(head_lines, window_lines, max_windows, max_chars)
        self.max_seq_length = max_seq_length
        self.top_n = top_n
        self.max_bytes = max_bytes
        self.trust_remote_code = trust_remote_code
        self._encoder: SentenceEncoder | None = None
        self._cache: EmbeddingCache | None = None
        self._chunks: OrderedDict[tuple[str, str], tuple[Chunk, ...]] = OrderedDict()
        self._indexes: IndexCache[ChunkIndex] = IndexCache(self._build, cached_indexes)
        self._index: ChunkIndex | None = None
        self._view: SnapshotView | None = None

    @property
    def encoder(self) -> SentenceEncoder:
        """Return the loaded model, loading it on first use."""
        if self._encoder is None:
            self._encoder = load_encoder(
                self.location, self.device, self.threads, self.trust_remote_code, self.max_seq_length
            )
        return self._encoder

    @property
    def cache(self) -> EmbeddingCache:
        """Return the cache of chunk vectors of this agent's model (``embedded`` and ``batches`` count model work)."""
        if self._cache is None:
            self._cache = EmbeddingCache(self.location, self.encoder.encode, self.batch_size)
        return self._cache

    def use_snapshot(self, view: SnapshotView) -> None:
        """Take the snapshot's listing and reader from the harness (called before ``initialize``)."""
        self._view = view

    def initialize(self, repo_path: str) -> None:
        """Search ``repo_path`` from now on, embedding the chunks no cache holds yet."""
        self._index = self._indexes.get(repo_path)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the files, functions and modules of the current snapshot closest to ``query``."""
        if self._index is None:
            raise RuntimeError("EmbeddingAgent: call initialize(repo_path) before retrieve()")
        index = self._index
        if not index.chunks:
            return RetrievalResult(files=[])
        query_vector = self.encoder.encode([self.query_prefix + query])[0]
        scores = index.vectors @ query_vector
        return rank_chunks(index, scores, self.top_n)

    def reset(self) -> None:
        """Do nothing: answers depend on the query and the index only."""

    def _build(self, directory: Path) -> ChunkIndex:
        """Return the chunks of the snapshot at ``directory`` and their vectors."""
        view = self._view if self._view is not None and _same(self._view.root, directory) else known_view(directory)
        listing = list_snapshot(directory, self.max_bytes, view)
        chunks: list[Chunk] = []
        for file in self._searched(listing.files):
            chunks.extend(self._file_chunks(file, listing.read))
        if not chunks and self.files == "source":  # no source file at all: search every text file
            for file in listing.files:
                if not (self.exclude_tests and is_test_path(file.path)):
                    chunks.extend(self._file_chunks(file, listing.read))
        vectors = self.cache.vectors([chunk.text for chunk in chunks])
        files = tuple(dict.fromkeys(chunk.path for chunk in chunks))
        number = {path: n for n, path in enumerate(files)}
        file_of = np.array([number[chunk.path] for chunk in chunks], dtype=np.int64)
        return ChunkIndex(tuple(chunks), vectors, files, file_of)

    def _searched(self, files: tuple[SnapshotFile, ...]) -> list[SnapshotFile]:
        """Return the files whose chunks are embedded: source files (or all), tests left out if asked."""
        if self.files == "source":
            return [f for f in files if is_source_path(f.path, tests=not self.exclude_tests)]
        return [f for f in files if not (self.exclude_tests and is_test_path(f.path))]

    def _file_chunks(self, file: SnapshotFile, read: Callable[[SnapshotFile], bytes | None]) -> tuple[Chunk, ...]:
        """Return the chunks of ``file`` (cached by path and blob id: snapshots share most files)."""
        key = (file.path, file.blob)
        found = self._chunks.get(key)
        if found is None:
            data = read(file)
            text = None if data is None else decode_text(data, file.path)
            found = () if text is None else file_chunks(file.path, text, self.options)
            self._chunks[key] = found
            while len(self._chunks) > 200_000:
                self._chunks.popitem(last=False)
        return found


def rank_chunks(index: ChunkIndex, scores: npt.NDArray[np.float32], top_n: int) -> RetrievalResult:
    """Return files by their best chunk, functions by their chunk, modules by their best chunk; ties by name."""
    file_scores = np.full(len(index.files), -np.inf, dtype=np.float64)
    np.maximum.at(file_scores, index.file_of, scores.astype(np.float64))
    order = sorted(range(len(index.files)), key=lambda n: (-file_scores[n], index.files[n]))[:top_n]
    functions: dict[str, float] = {}
    modules: dict[str, float] = {}
    for chunk, score in zip(index.chunks, scores.tolist()):
        if chunk.entity is not None and chunk.kind == "function":
            functions[chunk.entity] = max(score, functions.get(chunk.entity, -np.inf))
        if chunk.module is not None:
            modules[chunk.module] = max(score, modules.get(chunk.module, -np.inf))
    return RetrievalResult(
        files=[index.files[n] for n in order],
        scores=[float(file_scores[n]) for n in order],
        functions=_best(functions, top_n),
        modules=_best(modules, top_n),
    )


def _best(scores: dict[str, float], top_n: int) -> list[str]:
    """Return the ``top_n`` names of ``scores``, best first, ties by name."""
    return [name for name, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:top_n]]


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
