"""Term postings of a snapshot's documents: a shared base plus a small delta per snapshot.

A mined gold set searches a different commit in nearly every case, and two commits of one history
share most files. So a :class:`TokenCorpus` is either a *base* (postings of all its documents, sorted
once) or *derived* from a base: the base's postings, a mask of the base documents still present, and
a *delta* holding the postings of the documents the base lacks. Deriving costs time in proportion to
the files that differ plus the vocabulary size, never to the whole corpus; the base is shared.

Document numbers: a base numbers its documents ``0 .. base_size - 1`` in path order; a derived corpus
keeps those numbers (some dead) and numbers its delta documents after them. ``rank`` gives each live
document's position in path order, which breaks ties between equal scores, so a derived corpus ranks
exactly as a base built from scratch on the same files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IdArray = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]
Document = tuple[IdArray, IdArray]
"""A document's term ids (distinct) and how often each occurs."""
Key = tuple[str, str]
"""A document's (path, blob id)."""


@dataclass(frozen=True, eq=False)
class Postings:
    """Compressed sparse rows: the documents of term id ``t`` are ``doc_ids[indptr[t]:indptr[t + 1]]``."""

    indptr: Int64Array
    doc_ids: IdArray
    term_freqs: IdArray

    def of(self, term_id: int) -> tuple[IdArray, IdArray]:
        """Return the documents holding ``term_id`` and its count in each (empty past ``indptr``)."""
        if term_id + 1 >= len(self.indptr):
            return self.doc_ids[:0], self.term_freqs[:0]
        start, end = self.indptr[term_id], self.indptr[term_id + 1]
        return self.doc_ids[start:end], self.term_freqs[start:end]


def build_postings(documents: Sequence[Document], first: int, vocabulary_size: int) -> Postings:
    """Return the postings of ``documents``, numbered from ``first`` in the order given."""
    term_ids = _concatenate([ids for ids, _ in documents])
    freqs = _concatenate([counts for _, counts in documents])
    sizes = [len(ids) for ids, _ in documents]
    doc_ids = np.repeat(np.arange(first, first + len(documents), dtype=np.int32), sizes)
    order = np.argsort(term_ids, kind="stable")
    return Postings(_indptr(term_ids, vocabulary_size), doc_ids[order], freqs[order])


@dataclass(frozen=True, eq=False)
class TokenCorpus:
    """The postings of a snapshot's documents (see the module docstring for base and derived corpora).

    ``paths``, ``blobs`` (when known), ``documents`` and ``doc_lengths`` are indexed by document number,
    dead documents included. ``df`` counts, for each term id, the live documents that hold it; terms
    past its end occur nowhere. ``vocabulary`` may be shared with other corpora and hold more terms.
    """

    paths: tuple[str, ...]
    vocabulary: Mapping[str, int]
    documents: tuple[Document, ...]
    doc_lengths: Int64Array
    df: Int64Array
    base: Postings
    base_size: int
    base_keys: dict[Key, int]
    base_blobs: frozenset[str]
    """Blobs the base was built from, and those it looked at and left out."""
    blobs: tuple[str, ...] | None = None
    delta: Postings | None = None
    live: npt.NDArray[np.bool_] | None = None
    rank: Int64Array | None = None

    @property
    def size(self) -> int:
        """Return the number of live documents (the N of BM25)."""
        return len(self.paths) if self.live is None else int(self.live.sum()) + len(self.paths) - self.base_size

    def postings(self, term: str) -> tuple[IdArray, IdArray]:
        """Return the live documents containing ``term`` and its count in each (empty if unknown)."""
        term_id = self.vocabulary.get(term)
        if term_id is None:
            return self.base.doc_ids[:0], self.base.term_freqs[:0]
        doc_ids, freqs = self.base.of(term_id)
        if self.live is not None:
            alive = self.live[doc_ids]
            doc_ids, freqs = doc_ids[alive], freqs[alive]
        if self.delta is not None:
            more_ids, more_freqs = self.delta.of(term_id)
            if len(more_ids):
                doc_ids, freqs = np.concatenate([doc_ids, more_ids]), np.concatenate([freqs, more_freqs])
        return doc_ids, freqs

    def document_frequencies(self) -> Int64Array:
        """Return, for each term id up to the last one present, the number of live documents holding it."""
        return self.df

    def live_lengths(self) -> Int64Array:
        """Return the token counts of the live documents."""
        if self.live is None:
            return self.doc_lengths
        return np.concatenate([self.doc_lengths[: self.base_size][self.live], self.doc_lengths[self.base_size :]])


def base_corpus(
    paths: Sequence[str],
    documents: Sequence[Document],
    vocabulary: Mapping[str, int],
    blobs: Sequence[str] | None,
    seen: Iterable[str] = (),
) -> TokenCorpus:
    """Return a base corpus of ``documents`` (term ids into ``vocabulary``, counts), in the order given.

    ``seen`` names blobs looked at but left out (binary files): with ``blobs`` they make ``base_blobs``,
    what a later snapshot is compared with to choose its base.
    """
    postings = build_postings(documents, 0, len(vocabulary))
    blob_ids = None if blobs is None else tuple(blobs)
    return TokenCorpus(
        paths=tuple(paths),
        vocabulary=vocabulary,
        documents=tuple(documents),
        doc_lengths=_lengths(documents),
        df=np.diff(postings.indptr),
        base=postings,
        base_size=len(documents),
        base_keys={} if blob_ids is None else {key: n for n, key in enumerate(zip(paths, blob_ids))},
        base_blobs=frozenset(blob_ids or ()).union(seen),
        blobs=blob_ids,
    )


def derive_corpus(
    source: TokenCorpus, paths: Sequence[str], blobs: Sequence[str], documents: Mapping[int, Document]
) -> TokenCorpus:
    """Return the corpus of the documents ``paths`` / ``blobs`` (sorted by path) over ``source``'s base.

    ``documents`` gives the arrays of the documents (by position) that the base lacks; the others are
    found in the base by (path, blob id).
    """
    base_size = source.base_size
    vocabulary_size = len(source.vocabulary)
    added = sorted(documents)
    added_docs = [documents[j] for j in added]
    numbers = [source.base_keys.get(key, -1) for key in zip(paths, blobs)]
    live = np.zeros(base_size, dtype=np.bool_)
    live[[number for number in numbers if number >= 0]] = True
    for offset, j in enumerate(added):
        numbers[j] = base_size + offset
    rank = np.full(base_size + len(added), len(paths), dtype=np.int64)  # dead documents: never ranked
    rank[numbers] = np.arange(len(paths))
    return TokenCorpus(
        paths=source.paths[:base_size] + tuple(paths[j] for j in added),
        vocabulary=source.vocabulary,
        documents=source.documents[:base_size] + tuple(added_docs),
        doc_lengths=np.concatenate([source.doc_lengths[:base_size], _lengths(added_docs)]),
        df=_live_frequencies(source, live, added_docs, vocabulary_size),
        base=source.base,
        base_size=base_size,
        base_keys=source.base_keys,
        base_blobs=source.base_blobs,
        blobs=(source.blobs or ())[:base_size] + tuple(blobs[j] for j in added),
        delta=build_postings(added_docs, base_size, vocabulary_size) if added else None,
        live=live,
        rank=rank,
    )


def _live_frequencies(
    source: TokenCorpus, live: npt.NDArray[np.bool_], added: Sequence[Document], vocabulary_size: int
) -> Int64Array:
    """Return the document frequencies of the base's ``live`` documents and the ``added`` ones."""
    dead_ids = _concatenate([source.documents[number][0] for number in np.flatnonzero(~live)])
    df = _padded(np.diff(source.base.indptr), vocabulary_size)
    df -= np.bincount(dead_ids, minlength=vocabulary_size)
    df += np.bincount(_concatenate([ids for ids, _ in added]), minlength=vocabulary_size)
    return df


def _concatenate(arrays: Sequence[IdArray]) -> IdArray:
    return np.concatenate(arrays).astype(np.int32, copy=False) if len(arrays) else np.zeros(0, np.int32)


def _padded(values: Int64Array, size: int) -> Int64Array:
    """Return a copy of ``values`` extended with zeros to ``size`` entries."""
    padded = np.zeros(size, dtype=np.int64)
    padded[: len(values)] = values
    return padded


def _indptr(term_ids: IdArray, vocabulary_size: int) -> Int64Array:
    indptr = np.zeros(vocabulary_size + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_ids, minlength=vocabulary_size), out=indptr[1:])
    return indptr


def _lengths(documents: Sequence[Document]) -> Int64Array:
    """Return the summed counts of each document."""
    return np.array([int(counts.sum()) for _, counts in documents], dtype=np.int64)
