"""The files a built-in agent searches: their token postings, built once and derived per snapshot.

:class:`TokenCorpus` holds the postings of a snapshot's text files. :func:`index_snapshot` builds one
for a directory from per-blob token counts (:mod:`~pytest_codesearch.agents.tokencache`), reading and
tokenising only blobs not seen before in the process, and, given the corpus of a snapshot that shares
most files, derives the new postings from it instead of sorting them all again.
:func:`rank_files` turns per-file scores into an answer, and :class:`IndexCache` keeps the last few
indexes of an agent by directory so that returning to a snapshot is free.
"""

from __future__ import annotations

import os
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Generic, TypeVar, Union

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.snapshot_files import SnapshotFile, list_snapshot, walk_files
from pytest_codesearch.agents.tokencache import IdArray, TokenCache, decode_text, document_arrays
from pytest_codesearch.agents.tokenize import count_tokens, path_tokens

IndexT = TypeVar("IndexT")
Int64Array = npt.NDArray[np.int64]
Document = tuple[IdArray, IdArray]
Source = Union[int, Document]
"""Where a document of a derived corpus comes from: a document number of the base, or new arrays."""

DERIVE_MIN_SHARED = 0.5
"""A snapshot is derived from a base corpus when at least this fraction of its files are in the base."""


def iter_text_files(root: Path, max_bytes: int = 1_000_000) -> Iterator[tuple[str, str]]:
    """Yield ``(posix path relative to root, text)`` for each text file under ``root``, by path.

    Skipped: anything named ``.git`` (the directory, or the file a worktree or submodule has),
    symbolic links, files larger than ``max_bytes``, files that cannot be read, and binary files
    (:func:`~pytest_codesearch.agents.tokencache.decode_text`). Paths are sorted as strings, so
    the order does not depend on the file system.
    """
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory; pass the repository checkout to search")
    for relative, full in sorted(walk_files(root)):
        try:
            if os.stat(full, follow_symlinks=False).st_size > max_bytes:
                continue
            with open(full, "rb") as stream:
                text = decode_text(stream.read())
        except OSError:
            continue
        if text is not None:
            yield relative, text


def document_counts(path: str, text: str, path_weight: int) -> Counter[str]:
    """Return the token counts of one file: its text, then its path tokens ``path_weight`` times.

    The result equals ``Counter(tokenize(text) + path_tokens(path) * path_weight)``.
    """
    counts = count_tokens(text)
    if path_weight > 0:
        for token in path_tokens(path):
            counts[token] += path_weight
    return counts


@dataclass(frozen=True, eq=False)
class TokenCorpus:
    """Term postings of a list of documents, in compressed sparse row form.

    The postings of term id ``t`` are positions ``indptr[t]:indptr[t + 1]`` of ``doc_ids`` and
    ``term_freqs``, each document at most once. ``vocabulary`` may be shared with other corpora and
    hold more terms than ``indptr`` covers. ``blobs``, when known, gives each document's blob id.
    """

    paths: tuple[str, ...]
    vocabulary: Mapping[str, int]
    doc_lengths: Int64Array
    indptr: Int64Array
    doc_ids: IdArray
    term_freqs: IdArray
    blobs: tuple[str, ...] | None = None

    def postings(self, term: str) -> tuple[IdArray, IdArray]:
        """Return the documents containing ``term`` and its count in each (empty if unknown)."""
        term_id = self.vocabulary.get(term)
        if term_id is None or term_id + 1 >= len(self.indptr):
            return self.doc_ids[:0], self.term_freqs[:0]
        start, end = self.indptr[term_id], self.indptr[term_id + 1]
        return self.doc_ids[start:end], self.term_freqs[start:end]

    def document_frequencies(self) -> Int64Array:
        """Return, for each term id ``indptr`` covers, the number of documents that contain it."""
        return np.diff(self.indptr)

    @cached_property
    def keys(self) -> dict[tuple[str, str], int]:
        """Return the document number of each ``(path, blob id)`` (empty when blobs are unknown)."""
        if self.blobs is None:
            return {}
        return {key: number for number, key in enumerate(zip(self.paths, self.blobs))}


def corpus_from_documents(
    paths: Sequence[str], documents: Sequence[Document], vocabulary: Mapping[str, int], blobs: Sequence[str] | None
) -> TokenCorpus:
    """Return the postings of ``documents`` (term ids into ``vocabulary``, counts), in the order given."""
    sizes = np.array([len(ids) for ids, _ in documents], dtype=np.int64)
    term_ids = _concatenate([ids for ids, _ in documents])
    freqs = _concatenate([counts for _, counts in documents])
    doc_ids = np.repeat(np.arange(len(documents), dtype=np.int32), sizes)
    order = np.argsort(term_ids, kind="stable")
    return TokenCorpus(
        paths=tuple(paths),
        vocabulary=vocabulary,
        doc_lengths=_lengths(doc_ids, freqs, len(documents)),
        indptr=_indptr(term_ids, len(vocabulary)),
        doc_ids=doc_ids[order],
        term_freqs=freqs[order],
        blobs=None if blobs is None else tuple(blobs),
    )


def build_token_corpus(documents: Iterable[tuple[str, Counter[str]]]) -> TokenCorpus:
    """Return the postings of ``(path, token counts)`` documents, kept in the order given.

    Term ids follow the order in which terms first occur, document by document.
    """
    paths: list[str] = []
    vocabulary: dict[str, int] = {}
    arrays: list[Document] = []
    for path, counts in documents:
        paths.append(path)
        ids = [vocabulary.setdefault(term, len(vocabulary)) for term in counts]
        arrays.append((np.array(ids, dtype=np.int32), np.fromiter(counts.values(), np.int32, len(counts))))
    return corpus_from_documents(paths, arrays, vocabulary, None)


def derive_corpus(
    base: TokenCorpus, paths: Sequence[str], blobs: Sequence[str], sources: Sequence[Source]
) -> TokenCorpus:
    """Return the corpus of ``paths`` whose documents are documents of ``base`` or new arrays.

    ``sources[j]`` is the base document number of document ``j``, or its own (term ids, counts).
    The base's postings are filtered and renumbered and the new ones inserted, without sorting all
    postings again; the result has the postings of :func:`corpus_from_documents` on the same
    documents, in another order within each term (which no score depends on).
    """
    kept_new = np.array([j for j, s in enumerate(sources) if isinstance(s, int)], dtype=np.int64)
    kept_old = np.array([s for s in sources if isinstance(s, int)], dtype=np.int64)
    added = [(j, s) for j, s in enumerate(sources) if not isinstance(s, int)]
    renumber = np.full(len(base.paths), -1, dtype=np.int32)
    renumber[kept_old] = kept_new
    new_docs = renumber[base.doc_ids]
    keep = new_docs >= 0
    base_terms = np.repeat(np.arange(len(base.indptr) - 1, dtype=np.int32), np.diff(base.indptr))[keep]
    add_terms = _concatenate([ids for _, (ids, _) in added])
    add_freqs = _concatenate([counts for _, (_, counts) in added])
    add_docs = np.repeat(np.array([j for j, _ in added], dtype=np.int32), [len(ids) for _, (ids, _) in added])
    order = np.argsort(add_terms, kind="stable")
    at = np.searchsorted(base_terms, add_terms[order], side="right")
    vocabulary_size = len(base.vocabulary)
    lengths = np.zeros(len(paths), dtype=np.int64)
    lengths[kept_new] = base.doc_lengths[kept_old]
    lengths[[j for j, _ in added]] = [int(counts.sum()) for _, (_, counts) in added]
    return TokenCorpus(
        paths=tuple(paths),
        vocabulary=base.vocabulary,
        doc_lengths=lengths,
        indptr=_indptr(np.concatenate([base_terms, add_terms]), vocabulary_size),
        doc_ids=np.insert(new_docs[keep], at, add_docs[order]),
        term_freqs=np.insert(base.term_freqs[keep], at, add_freqs[order]),
        blobs=tuple(blobs),
    )


def _concatenate(arrays: Sequence[IdArray]) -> IdArray:
    return np.concatenate(arrays).astype(np.int32, copy=False) if arrays else np.zeros(0, np.int32)


def _indptr(term_ids: IdArray, vocabulary_size: int) -> Int64Array:
    indptr = np.zeros(vocabulary_size + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_ids, minlength=vocabulary_size), out=indptr[1:])
    return indptr


def _lengths(doc_ids: IdArray, freqs: IdArray, count: int) -> Int64Array:
    """Return the summed counts of each document (exact: float64 holds integers up to 2**53)."""
    return np.bincount(doc_ids, weights=freqs, minlength=count).astype(np.int64)


def index_snapshot(
    root: Path, path_weight: int, max_bytes: int, cache: TokenCache, bases: Iterable[TokenCorpus] = ()
) -> TokenCorpus:
    """Return the postings of the text files of ``root``, each counted as in :func:`document_counts`.

    Blob contents are read and tokenised only when ``cache`` lacks them. When one of ``bases`` (built
    with the same ``path_weight`` and ``max_bytes`` over ``cache``'s vocabulary) holds at least
    :data:`DERIVE_MIN_SHARED` of the files, the corpus is derived from the one sharing most.
    """
    cache.trim()
    listing = list_snapshot(root, max_bytes)
    base = _best_base(bases, cache, listing.files)
    known = base.keys if base is not None else {}
    paths: list[str] = []
    blobs: list[str] = []
    sources: list[Source] = []
    for file in listing.files:
        number = known.get((file.path, file.blob))
        if number is None:
            text = cache.tokens(file.blob, lambda file=file: listing.read(file))  # type: ignore[misc]
            if text is None:
                continue
            sources.append(document_arrays(cache, text, file.path, path_weight))
        else:
            sources.append(number)
        paths.append(file.path)
        blobs.append(file.blob)
    if base is not None:
        return derive_corpus(base, paths, blobs, sources)
    return corpus_from_documents(paths, [s for s in sources if not isinstance(s, int)], cache.vocabulary, blobs)


def _best_base(bases: Iterable[TokenCorpus], cache: TokenCache, files: Sequence[SnapshotFile]) -> TokenCorpus | None:
    """Return the base sharing most ``(path, blob)`` pairs with ``files``, if it shares enough."""
    best: TokenCorpus | None = None
    best_shared = DERIVE_MIN_SHARED * len(files)
    for base in bases:
        if base.vocabulary is not cache.vocabulary or base.blobs is None:
            continue
        keys = base.keys
        shared = sum((f.path, f.blob) in keys for f in files)
        if shared >= best_shared and shared > 0:
            best, best_shared = base, shared
    return best


def rank_files(paths: Sequence[str], scores: npt.NDArray[np.float64], top_n: int) -> RetrievalResult:
    """Return the files scoring above zero, best first, ties in ``paths`` order, at most ``top_n``.

    A corpus lists its paths sorted, so ties are broken by path.
    """
    candidates = np.flatnonzero(scores > 0)
    best = candidates[np.argsort(-scores[candidates], kind="stable")][:top_n]
    return RetrievalResult(files=[paths[i] for i in best], scores=scores[best].tolist())


class IndexCache(Generic[IndexT]):
    """The last ``capacity`` indexes one agent has built, keyed by the resolved directory each covers.

    A directory is indexed once while it stays cached: the harness hands agents immutable snapshot
    directories, so a later change to the files of an indexed directory is not noticed. The least
    recently used index is dropped first; each holds a corpus (about 8 bytes a posting).
    """

    def __init__(self, build: Callable[[Path], IndexT], capacity: int = 4) -> None:
        if capacity < 1:
            raise ValueError(f"IndexCache needs capacity >= 1, got {capacity}")
        self._build = build
        self.capacity = capacity
        self._indexes: OrderedDict[Path, IndexT] = OrderedDict()

    def get(self, directory: str | os.PathLike[str]) -> IndexT:
        """Return the index of ``directory``, building it unless it is cached."""
        key = Path(directory).resolve()
        index = self._indexes.get(key)
        if index is None:
            index = self._build(key)
            self._indexes[key] = index
            while len(self._indexes) > self.capacity:
                self._indexes.popitem(last=False)
        self._indexes.move_to_end(key)
        return index

    def recent(self) -> list[IndexT]:
        """Return the cached indexes, most recently used first."""
        return list(reversed(self._indexes.values()))

    def __len__(self) -> int:
        """Return the number of directories indexed and still cached."""
        return len(self._indexes)
