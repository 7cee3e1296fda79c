"""The vocabulary of an index file, looked up by hash where it lies instead of built as a dict.

A query looks up a few hundred terms; the vocabulary of a large snapshot holds 80,000 or more, and
building a dict of them (``dict(zip(terms, ids))``) was most of the time of loading an index: about
25 ms for django's, paid by every case of a warm run. An index file therefore keeps, beside its terms
(UTF-8, one a line, by term id), a lookup table of three little-endian ``uint32`` arrays
(:func:`lookup_table`): each term's CRC-32, ascending; the term id of each of those hashes; and where
each term starts in the terms' bytes (one more, for the end). :class:`StoredVocabulary` finds a term's
hash by binary search and compares the bytes of the terms that share it, so loading costs nothing
and a lookup about a microsecond.
"""

from __future__ import annotations

import array
import bisect
import sys
import zlib
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt

WIDTH = 4
"""Bytes of each value of the lookup table."""


def table_size(terms: int) -> int:
    """Return the bytes of the lookup table of ``terms`` terms."""
    return WIDTH * (3 * terms + 1)


def lookup_table(encoded: Sequence[bytes]) -> bytes:
    """Return the lookup table of the terms ``encoded`` (UTF-8, by term id), as :class:`StoredVocabulary` reads it."""
    hashes = np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(encoded))
    return lookup_table_of(b"\n".join(encoded), hashes)


def lookup_table_of(names: bytes, hashes: npt.NDArray[np.uint32]) -> bytes:
    """Return the lookup table of ``len(hashes)`` terms: ``names`` (UTF-8, by term id, one a line, none
    holding a line break) and ``hashes`` (their CRC-32s), as :class:`StoredVocabulary` reads it."""
    order = stable_order(hashes, 1 << 32)
    starts = np.zeros(len(hashes) + 1, dtype=np.int64)
    if len(hashes):
        starts[1:-1] = np.flatnonzero(np.frombuffer(names, dtype=np.uint8) == ord("\n")) + 1
        starts[-1] = len(names) + 1
    return b"".join(array.astype("<u4").tobytes() for array in (hashes[order], order, starts))


def stable_order(keys: npt.NDArray[np.int32] | npt.NDArray[np.uint32], bound: int) -> npt.NDArray[np.int64]:
    """Return the stable ascending order of ``keys`` (all below ``bound``, at most ``1 << 32``), as
    ``np.argsort(keys, kind="stable")`` gives it, by radix sorts of 16-bit halves.

    numpy sorts 16-bit integers stably by radix, in linear time; wider ones by timsort: twice as slow on
    a large snapshot's postings, three times on its terms' hashes.
    """
    low = np.argsort(keys.astype(np.uint16), kind="stable")
    if bound <= 1 << 16:
        return low
    return low[np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")]


class StoredVocabulary(Mapping[str, int]):
    """Term ids by term, read from an index file's terms (``names``) and lookup table (``table``)."""

    def __init__(self, names: bytes, table: bytes, size: int) -> None:
        if len(table) != table_size(size):
            raise ValueError(f"a lookup table of {size} terms takes {table_size(size)} bytes, not {len(table)}")
        values = array.array("I")
        if values.itemsize != WIDTH:  # pragma: no cover - no platform CPython runs on today
            values = array.array("L")
        values.frombytes(table)  # a copy, as fast as memcpy; bisect and indexing on it stay in C
        if sys.byteorder != "little":  # pragma: no cover - the file is little-endian
            values.byteswap()
        self._hashes = values[:size]
        self._ids = values[size : 2 * size]
        self._starts = values[2 * size :]
        self._names = names
        self._size = size
        self._terms: list[str] | None = None

    def get(self, term: str, default: int | None = None) -> int | None:  # type: ignore[override]
        """Return the id of ``term``, or ``default`` when the file does not hold it."""
        key = term.encode("utf-8", "surrogatepass")
        wanted = zlib.crc32(key)
        hashes, starts = self._hashes, self._starts
        at = bisect.bisect_left(hashes, wanted)
        while at < self._size and hashes[at] == wanted:
            term_id = self._ids[at]
            if self._names[starts[term_id] : starts[term_id + 1] - 1] == key:
                return term_id
            at += 1
        return default

    def __getitem__(self, term: str) -> int:
        found = self.get(term)
        if found is None:
            raise KeyError(term)
        return found

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[str]:
        """Yield the terms by id (decoded once, on first use: only saving an index again needs them)."""
        if self._terms is None:
            self._terms = self._names.decode("utf-8", "surrogatepass").split("\n") if self._size else []
        return iter(self._terms)
