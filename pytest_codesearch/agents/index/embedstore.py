"""Embeddings of chunk texts, cached in memory and on disk by (model, text hash), shared by runs and workers.

``<cache_dir>/embeddings/<format>-<model key>/<hash[:2]>/<hash>`` holds the vector one model gave one
chunk text (``agents/index/chunks.py``), ``hash`` a BLAKE2b digest of the text. The model key is a
hash of the model's name, or of a local model folder's path and the names, sizes and modification
times of its files, so a retrained model never reads its predecessor's vectors. Files are written
atomically and never changed (:class:`~pytest_codesearch.agents.index.filestore.FileStore`), so xdist
workers and later runs share them without locks; the least recently used go first once the store
outgrows its share of ``--codesearch-cache-size``.

:class:`EmbeddingCache` answers a list of texts with their vectors, asking the model only for texts
neither its memory nor the store holds, in batches of ``batch_size`` texts of similar length (less
padding): a snapshot that shares most chunks with one embedded before costs only its new chunks.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.index.filestore import FileStore, store_bound

FORMAT = "e1"
_HEADER = struct.Struct("<4sI")  # magic, dimension; then dimension float32 values
_MAGIC = b"CSEM"

Vectors = npt.NDArray[np.float32]
Encode = Callable[[Sequence[str]], Vectors]
"""Returns one row per text: what a model's ``encode`` gives for a batch."""


def text_key(text: str) -> str:
    """Return the hex digest a chunk text is cached by."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def model_key(model: str) -> str:
    """Return the key of ``model``: a hash of its name, or of a local folder's path and its files'
    names, sizes and modification times (so replacing the weights changes the key)."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(model.encode("utf-8", "surrogatepass"))
    folder = Path(model)
    if folder.is_dir():
        digest.update(os.fspath(folder.resolve()).encode("utf-8", "surrogatepass"))
        for entry in sorted(folder.rglob("*")):
            if entry.is_file():
                stat = entry.stat()
                digest.update(f"{entry.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


@dataclass
class EmbeddingStore(FileStore):
    """The on-disk vectors under ``root``, bounded to ``limit`` bytes (None: unbounded)."""

    def _path(self, model: str, key: str) -> Path:
        return self.root / f"{FORMAT}-{model}" / key[:2] / key[2:]

    def load(self, model: str, key: str) -> Vectors | None:
        """Return the stored vector of text ``key`` for ``model``, or None when there is none (or it is cut short)."""
        data = self.read(self._path(model, key))
        if data is None or len(data) < _HEADER.size:
            return None
        magic, size = _HEADER.unpack_from(data)
        if magic != _MAGIC or len(data) != _HEADER.size + 4 * size:
            return None
        self.loaded += 1
        return np.frombuffer(data, np.float32, size, _HEADER.size)

    def save(self, model: str, key: str, vector: Vectors) -> None:
        """Store ``vector`` as the one of text ``key`` for ``model``, atomically; errors are ignored."""
        values = np.ascontiguousarray(vector, np.float32)
        self.write(self._path(model, key), _HEADER.pack(_MAGIC, len(values)) + values.tobytes())


class EmbeddingCache:
    """Vectors of texts for one model: the last ``kept`` in memory, then the shared store, then the model."""

    def __init__(self, model: str, encode: Encode, batch_size: int = 32, kept: int = 100_000) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model_key(model)
        self.encode = encode
        self.batch_size = batch_size
        self.kept = kept
        self.embedded = 0
        """Texts the model embedded (the ones no cache held)."""
        self.batches = 0
        """Calls to the model."""
        self._memory: OrderedDict[str, Vectors] = OrderedDict()

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """Return the vector of each of ``texts`` (one row each), embedding only those no cache holds."""
        keys = [text_key(text) for text in texts]
        found: dict[str, Vectors] = {}
        missing: dict[str, str] = {}
        store = shared_embedding_store()
        for key, text in zip(keys, texts):
            if key in found or key in missing:
                continue
            vector = self._memory.get(key)
            if vector is None and store is not None:
                vector = store.load(self.model, key)
            if vector is None:
                missing[key] = text
            else:
                found[key] = vector
        found.update(self._embed(missing, store))
        for key, vector in found.items():
            self._remember(key, vector)
        if not keys:
            return np.zeros((0, 0), np.float32)
        return np.stack([found[key] for key in keys])

    def _embed(self, texts: dict[str, str], store: EmbeddingStore | None) -> dict[str, Vectors]:
        """Return the model's vectors of ``texts`` (by key), asked in batches of similar length; saved to ``store``."""
        order = sorted(texts, key=lambda key: len(texts[key]))
        made: dict[str, Vectors] = {}
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            rows = np.asarray(self.encode([texts[key] for key in batch]), dtype=np.float32)
            self.batches += 1
            self.embedded += len(batch)
            for key, row in zip(batch, rows):
                made[key] = row
                if store is not None:
                    store.save(self.model, key, row)
        return made

    def _remember(self, key: str, vector: Vectors) -> None:
        self._memory[key] = vector
        self._memory.move_to_end(key)
        while len(self._memory) > self.kept:
            self._memory.popitem(last=False)


_SHARED: list[EmbeddingStore | None] = [None]


def shared_embedding_store() -> EmbeddingStore | None:
    """Return the store embedding agents save their vectors to, or None (the plugin sets one up)."""
    return _SHARED[0]


def use_embedding_store(root: Path | None, cache_size: int | None = None) -> Callable[[], None]:
    """Give embedding agents a store at ``root`` (None: none), bounded to its share of ``cache_size``
    (``store_bound``); return what puts the previous store back."""
    previous = _SHARED[0]
    _SHARED[0] = None if root is None else EmbeddingStore(root, store_bound(cache_size))

    def restore() -> None:
        _SHARED[0] = previous

    return restore
