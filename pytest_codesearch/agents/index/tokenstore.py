"""Token counts of blobs on disk, shared by runs and xdist workers (issue 12 item 4), in packs (issue 23).

``<cache_dir>/tokens/<format>-<tokenizer digest>/<pid>-<random>.pack`` holds the token counts of the blobs
one process counted while it indexed one snapshot (or marks their content binary): one file per snapshot,
not per blob, since creating the 46,000 small files of a cold SWE-bench Lite run cost more than what they
held. The tokenizer digest is a hash of ``agents/index/tokenize.py``, of
:mod:`~pytest_codesearch.agents.index.wordtable`, :mod:`~pytest_codesearch.agents.index.tokencache` and
of the binary rule (:mod:`~pytest_codesearch.filekinds`), so a changed tokenizer never reads counts made
by the old one.

:meth:`TokenStore.save` keeps a blob's counts in memory; :meth:`TokenStore.flush` (at the end of each
snapshot's index, or once :data:`PACK_BYTES` are pending) writes them as one pack, atomically (a temporary
file beside, then ``os.replace``), under a name no other process uses; packs are never changed, so any
number of processes read and write the store without locks. A reader learns of other processes' packs by
listing the folder at its first miss after each flush, and reads only a pack's table of contents then and
a blob's entry when asked. A pack whose length disagrees with its table (cut short, or not ours) is
ignored whole; a reader that loses a pack to pruning tokenises its blobs again. A pack's modification time
is its last use: :meth:`TokenStore.prune` removes the least recently used once the store outgrows its bound.
"""

from __future__ import annotations

import os
import secrets
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_codesearch import filekinds
from pytest_codesearch.agents.index import tokencache, tokenize, wordtable
from pytest_codesearch.agents.index.filestore import FileStore, source_digest, store_bound
from pytest_codesearch.agents.index.postings import IdArray

FORMAT = "t2"
_HEADER = struct.Struct("<4sI")  # magic, entries; then the entries, their blob ids (ASCII), their counts
_ENTRY = struct.Struct("<BBII")  # characters of the blob id, 1 for text or 0 for binary, token count, bytes of the tokens
_MAGIC = b"CSTP"
PACK_BYTES = 16 << 20
"""Bytes of pending counts past which :meth:`TokenStore.save` writes a pack without waiting for a flush."""

_Entry = tuple[Path, int, int, int, bool]
"""Where a blob's counts lie: pack, offset of its counts, token count, bytes of its tokens, text or binary."""


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

    _entries: dict[str, _Entry] = field(default_factory=dict, repr=False)
    _packs: set[str] = field(default_factory=set, repr=False)
    _pending: dict[str, tuple[bool, bytes, bytes]] = field(default_factory=dict, repr=False)
    _pending_bytes: int = field(default=0, repr=False)
    _stale: bool = field(default=True, repr=False)
    _touched: set[Path] = field(default_factory=set, repr=False)

    @property
    def directory(self) -> Path:
        """Return the folder of this tokenizer's packs."""
        return self.root / f"{FORMAT}-{tokenizer_digest()}"

    def load(self, blob_id: str) -> StoredTokens | None:
        """Return the stored counts of ``blob_id``, or None when there are none (or they are unreadable)."""
        pending = self._pending.get(blob_id)
        entry = None if pending is not None else self._entries.get(blob_id)
        if entry is None and pending is None and self._stale:
            self._scan()
            entry = self._entries.get(blob_id)
        found = _decode(*pending) if pending is not None else None if entry is None else self._read_entry(entry)
        if found is not None:
            self.loaded += 1
        return found

    def save(self, blob_id: str, tokens: Sequence[str] | None, counts: npt.ArrayLike = ()) -> None:
        """Keep the counts of ``blob_id`` (None: it is binary) for the next pack (see :meth:`flush`)."""
        if len(blob_id) > 255 or not blob_id.isascii():  # not a git object id: nothing another process asks for
            return
        names = "\n".join(tokens or ()).encode("utf-8", "surrogatepass")
        values = np.asarray(counts, np.int32).astype("<i4").tobytes()
        self._pending[blob_id] = (tokens is not None, values, names)
        self._pending_bytes += len(values) + len(names) + _ENTRY.size
        if self._pending_bytes > PACK_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the counts saved since the last flush as one pack, atomically; errors are ignored (the
        counts are then lost to other processes, not wrong). Other processes' packs are looked for again
        at the next miss."""
        self._stale = True
        if not self._pending:
            return
        pending, self._pending, self._pending_bytes = self._pending, {}, 0
        ids = [blob.encode("ascii") for blob in pending]
        table = b"".join(_ENTRY.pack(len(b), text, len(v) // 4, len(n)) for b, (text, v, n) in zip(ids, pending.values()))
        body = b"".join([_HEADER.pack(_MAGIC, len(pending)), table, *ids, *(v + n for _, v, n in pending.values())])
        path = self.directory / f"{os.getpid()}-{secrets.token_hex(8)}.pack"
        saved = self.saved
        self.write(path, body)
        if self.saved > saved:
            self.saved = saved + len(pending)
            self._add_pack(path, body)

    def _scan(self) -> None:
        """Read the table of each pack in the folder not read before (other processes' new packs)."""
        self._stale = False
        self._touched.clear()
        try:
            names = [entry.name for entry in os.scandir(self.directory) if entry.name.endswith(".pack")]
        except OSError:
            return
        for name in names:
            if name not in self._packs:
                path = self.directory / name
                try:
                    with open(path, "rb") as stream:
                        head = stream.read(_HEADER.size)
                        count = _HEADER.unpack(head)[1] if len(head) == _HEADER.size else 0
                        table = stream.read(count * _ENTRY.size)
                        ids = stream.read(sum(row[0] for row in _ENTRY.iter_unpack(table)))
                        self._add_pack(path, head + table + ids, os.fstat(stream.fileno()).st_size)
                except (OSError, struct.error):
                    continue

    def _add_pack(self, path: Path, data: bytes, size: int | None = None) -> None:
        """Index the entries of the pack at ``path`` from its first bytes ``data`` (its length ``size``,
        or ``len(data)``); a pack whose table or length is wrong adds nothing."""
        self._packs.add(path.name)
        if len(data) < _HEADER.size:
            return
        magic, count = _HEADER.unpack_from(data)
        at = _HEADER.size + count * _ENTRY.size
        if magic != _MAGIC or len(data) < at:
            return
        rows = list(_ENTRY.iter_unpack(data[_HEADER.size : at]))
        offset = at + sum(row[0] for row in rows)
        if offset + sum(4 * n + names for _, _, n, names in rows) != (len(data) if size is None else size):
            return  # cut short, or not ours
        for length, text, n, names in rows:
            self._entries[data[at : at + length].decode("ascii", "replace")] = (path, offset, n, names, bool(text))
            at += length
            offset += 4 * n + names

    def _read_entry(self, entry: _Entry) -> StoredTokens | None:
        """Return the counts an entry points at, marking its pack used; None when the pack is gone."""
        path, offset, n, names, text = entry
        try:
            with open(path, "rb") as stream:
                stream.seek(offset)
                data = stream.read(4 * n + names)
        except OSError:
            self._entries = {b: e for b, e in self._entries.items() if e[0] != path}  # pruned: forget it
            return None
        if path not in self._touched:
            self._touched.add(path)
            try:
                os.utime(path)
            except OSError:  # a read-only cache still serves its packs
                pass
        if len(data) != 4 * n + names:
            return None
        return _decode(text, data[: 4 * n], data[4 * n :])


def _decode(text: bool, values: bytes, names: bytes) -> StoredTokens | None:
    """Return the counts of an entry: ``values`` as little-endian int32, ``names`` its tokens, one a line."""
    if not text:
        return StoredTokens([], np.zeros(0, np.int32), binary=True)
    size = len(values) // 4
    tokens = names.decode("utf-8", "surrogatepass").split("\n") if size else []
    if len(tokens) != size:
        return None
    return StoredTokens(tokens, np.frombuffer(values, "<i4").astype(np.int32, copy=False))


def use_token_store(cache_dir: Path, cache_size: int | None) -> Callable[[], None]:
    """Give the process-wide token cache a store under ``<cache_dir>/tokens``, bounded to its share of
    ``cache_size`` (``store_bound``); return what puts the previous store back (its pending counts written)."""
    shared = tokencache.shared_token_cache()
    previous = shared.store
    shared.store = TokenStore(cache_dir / "tokens", store_bound(cache_size))

    def restore() -> None:
        if shared.store is not None:
            shared.store.flush()
        shared.store = previous

    return restore
