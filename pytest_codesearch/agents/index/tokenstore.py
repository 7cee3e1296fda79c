"""Token counts of blobs on disk, shared by runs and xdist workers (issue 12 item 4).

``<cache_dir>/tokens/<format>-<tokenizer digest>/<blob id[:2]>/<blob id>`` holds the token counts of one
blob, or marks its content binary. The tokenizer digest is a hash of ``agents/index/tokenize.py``, of
:mod:`~pytest_codesearch.agents.index.wordtable`, :mod:`~pytest_codesearch.agents.index.tokencache` and
of the binary rule (:mod:`~pytest_codesearch.filekinds`), so a changed tokenizer never reads counts made
by the old one. Files are written atomically (a temporary file beside, then ``os.replace``) and never
changed, so any number of processes read and write the store without locks; a reader that loses a file
to pruning tokenises the blob again. A file's modification time is its last use: :meth:`TokenStore.prune`
removes the least recently used once the store outgrows its bound.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_codesearch import filekinds
from pytest_codesearch.agents.index import tokencache, tokenize, wordtable
from pytest_codesearch.agents.index.filestore import FileStore, source_digest, store_bound
from pytest_codesearch.agents.index.postings import IdArray

FORMAT = "t1"
_HEADER = struct.Struct("<4sBII")  # magic, 1 for text or 0 for binary, token count, bytes of the tokens
_MAGIC = b"CSTK"


@lru_cache(maxsize=1)
def tokenizer_digest() -> str:
    """Return a hash of the tokenizer's source and of the binary rule: what a blob's counts depend on."""
    return source_digest(tokenize, wordtable, tokencache, filekinds)[:12]


@dataclass(frozen=True)
class StoredTokens:
    """What the store holds for a blob: its tokens and their counts, or ``binary``."""

    tokens: list[str]
    counts: IdArray
    binary: bool = False


@dataclass
class TokenStore(FileStore):
    """The on-disk token counts under ``root``, bounded to ``limit`` bytes (None: unbounded)."""

    @property
    def directory(self) -> Path:
        """Return the folder of this tokenizer's counts."""
        return self.root / f"{FORMAT}-{tokenizer_digest()}"

    def _path(self, blob_id: str) -> Path:
        return self.directory / blob_id[:2] / blob_id[2:]

    def load(self, blob_id: str) -> StoredTokens | None:
        """Return the stored counts of ``blob_id``, or None when there are none (or they are unreadable)."""
        data = self.read(self._path(blob_id))
        if data is None or len(data) < _HEADER.size:
            return None
        magic, text, size, names = _HEADER.unpack_from(data)
        end = _HEADER.size + 4 * size
        if magic != _MAGIC or len(data) != end + names:  # a file cut short (or not ours)
            return None
        self.loaded += 1
        if not text:
            return StoredTokens([], np.zeros(0, np.int32), binary=True)
        tokens = data[end:].decode("utf-8").split("\n") if size else []
        if len(tokens) != size:
            return None
        return StoredTokens(tokens, np.frombuffer(data, np.int32, size, _HEADER.size))

    def save(self, blob_id: str, tokens: Sequence[str] | None, counts: npt.ArrayLike = ()) -> None:
        """Store the counts of ``blob_id`` (None: it is binary), atomically; errors are ignored."""
        text = tokens is not None
        names = "\n".join(tokens or ()).encode("utf-8", "surrogatepass")
        header = _HEADER.pack(_MAGIC, int(text), len(tokens or ()), len(names))
        body = header + np.asarray(counts, np.int32).tobytes() + names
        self.write(self._path(blob_id), body)


def use_token_store(cache_dir: Path, cache_size: int | None) -> Callable[[], None]:
    """Give the process-wide token cache a store under ``<cache_dir>/tokens``, bounded to its share of
    ``cache_size`` (``store_bound``); return what puts the previous store back."""
    shared = tokencache.shared_token_cache()
    previous = shared.store
    shared.store = TokenStore(cache_dir / "tokens", store_bound(cache_size))

    def restore() -> None:
        shared.store = previous

    return restore
