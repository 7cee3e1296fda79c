"""Per-snapshot indexes on disk, shared by runs and xdist workers (issue 12 item 4).

A built-in agent's index of a commit depends only on the commit's tree, the agent's parameters that
choose and count the files, and the code that tokenises and selects them. So once built, it is saved
under ``<cache_dir>/indexes/<format>-<code digest>/<key[:2]>/<key>``, the key a hash of the tree id, the
agent's name and those parameters (:func:`index_key`), and a later run (or another worker) loads it
instead of listing, reading and counting the snapshot's files again: a second run of a gold set
indexes nothing.

A file holds one or more corpora over one vocabulary of their own (the terms they use, nothing of the
process that wrote it), each a base :class:`~pytest_codesearch.agents.index.postings.TokenCorpus` of the
documents it was given, in that order: document frequencies, postings and document lengths as flat
little-endian arrays (1 or 2 bytes a value where they fit), the vocabulary's lookup table
(``storedvocab.py``: a query's terms are found without building a dict of every term), then paths and
terms as text; it is read with one ``read`` and viewed with ``np.frombuffer`` (no pickle, which loads slower than this rebuilds).
Loaded corpora have no per-document arrays (``documents`` is empty) and no blob ids, so nothing is
derived from them; their postings give the same scores as the corpus they were saved from.

Files are written atomically (a temporary file beside, then ``os.replace``) and never changed; a reader
that finds a file missing, cut short or not ours builds the index again. A file's modification time is
its last use: :meth:`IndexStore.prune` removes the least recently used once the store outgrows its bound.
"""

from __future__ import annotations

import array
import bisect
import hashlib
import itertools
import operator
import struct
import sys
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch import filekinds, pathglob
from pytest_codesearch.agents.index import (
    bm25score,
    corpus,
    postings,
    snapshot_files,
    storedvocab,
    tokencache,
    tokenize,
    wordtable,
)
from pytest_codesearch.agents.index.filestore import FileStore, source_digest, store_bound
from pytest_codesearch.agents.index.postings import IdArray, Postings, TokenCorpus, base_corpus
from pytest_codesearch.agents.index.storedvocab import StoredVocabulary, lookup_table_of, stable_order, table_size
from pytest_codesearch.agents.index.tokencache import newest_terms

FORMAT = "i1"
_HEADER = struct.Struct("<4sIIQ")  # magic, corpora, terms, bytes of the terms
_CORPUS = struct.Struct("<IQQcc")  # documents, postings, bytes of the paths, widths of ids and counts
_MAGIC = b"CSI2"  # 2: with the vocabulary's lookup table (``storedvocab.py``)

IndexT = TypeVar("IndexT")
IntArray = npt.NDArray[np.int64]
Parts = Sequence[tuple[TokenCorpus, IntArray]]
"""What an agent saves of its index: corpora, each with the numbers of the documents to keep, in order."""


def stored_index(
    tree_id: str | None,
    agent: ModuleType,
    parameters: tuple[object, ...],
    build: Callable[[], IndexT],
    parts: Callable[[IndexT], Parts],
    rebuild: Callable[[list[TokenCorpus]], IndexT],
) -> IndexT:
    """Return the index ``build`` makes, loaded through ``rebuild`` from the shared store when it holds it.

    The key is the tree, the ``agent`` module's name and ``parameters``; the store's folder is named by
    :func:`code_digest` of the ``agent`` module. Without a store or a tree id (a directory searched as it
    is) the index is built and nothing is saved. ``rebuild`` must give what ``build`` gives, answer for answer.
    """
    store = shared_index_store()
    if store is None or tree_id is None:
        return build()
    digest = code_digest(agent)
    key = index_key(tree_id, agent.__name__, *parameters)
    corpora = store.load(digest, key)
    if corpora is not None:
        return rebuild(corpora)
    index = build()
    store.save(digest, key, parts(index))
    return index


@lru_cache(maxsize=16)
def code_digest(*modules: ModuleType) -> str:
    """Return a hash of the source of the modules that make an index, and of ``modules``."""
    here = sys.modules[__name__]
    base = [tokenize, wordtable, tokencache, filekinds, pathglob, snapshot_files, postings, corpus, storedvocab]
    base += [bm25score, here]
    return source_digest(*base, *modules)[:12]


def index_key(tree_id: str, agent: str, *parameters: object) -> str:
    """Return the store key of ``agent``'s index of the tree ``tree_id`` built with ``parameters``."""
    text = "\0".join([tree_id, agent, *map(repr, parameters)])
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


@dataclass
class IndexStore(FileStore):
    """The on-disk indexes under ``root``, bounded to ``limit`` bytes (None: unbounded)."""

    def _path(self, digest: str, key: str) -> Path:
        return self.root / f"{FORMAT}-{digest}" / key[:2] / key[2:]

    def load(self, digest: str, key: str) -> list[TokenCorpus] | None:
        """Return the corpora stored under ``key``, or None when there are none (or they are unreadable)."""
        data = self.read(self._path(digest, key))
        found = None if data is None else decode_corpora(data)
        if found is not None:
            self.loaded += 1
        return found

    def save(self, digest: str, key: str, parts: Parts) -> None:
        """Store ``parts`` (see :func:`encode_corpora`) under ``key``, atomically; errors are ignored."""
        self.write(self._path(digest, key), encode_corpora(parts))


def encode_corpora(parts: Parts) -> bytes:
    """Return the file of ``parts``: for each, the corpus's documents whose numbers are given, in that order.

    The corpora may have different vocabularies; the file has one, the terms the first part uses, then
    those only the others use. Document ids, counts and document frequencies take 1 or 2 bytes where they fit.
    """
    flat = [_flatten(part, numbers) for part, numbers in parts]
    terms, remaps, first_used = _union_vocabulary([part.vocabulary for part, _ in parts], [ids for ids, _, _ in flat])
    names = "\n".join(terms).encode("utf-8", "surrogatepass")  # no term holds a line break
    hashes = _term_hashes(parts[0][0].vocabulary, first_used, terms) if parts else np.zeros(0, np.uint32)
    headers, arrays, texts = [], [], []
    for (part, numbers), (ids, counts, doc_ids), remap in zip(parts, flat, remaps):
        term_ids = remap[ids]
        order = stable_order(term_ids, len(terms))
        doc_type = _narrow(len(numbers))
        freq_type = _narrow(int(counts.max()) if len(counts) else 0)
        text = "\0".join([part.paths[number] for number in numbers.tolist()]).encode("utf-8", "surrogatepass")
        headers.append(_CORPUS.pack(len(numbers), len(ids), len(text), doc_type[-1].encode(), freq_type[-1].encode()))
        arrays += [np.bincount(term_ids, minlength=len(terms)).astype(doc_type), doc_ids[order].astype(doc_type)]
        arrays += [counts[order].astype(freq_type), part.doc_lengths[numbers].astype("<u4")]
        texts.append(text)
    head = _HEADER.pack(_MAGIC, len(parts), len(terms), len(names))
    return b"".join([head, *headers, *(array.tobytes() for array in arrays), lookup_table_of(names, hashes), *texts, names])


def _flatten(corpus: TokenCorpus, numbers: IntArray) -> tuple[IdArray, IdArray, IntArray]:
    """Return the term ids and counts of the documents ``numbers`` of ``corpus``, one after the other,
    and beside each the position of its document in ``numbers``."""
    documents = [corpus.documents[number] for number in numbers.tolist()]
    if not documents:
        return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int64)
    sizes = [len(ids) for ids, _ in documents]
    positions = np.repeat(np.arange(len(documents), dtype=np.int64), sizes)
    return np.concatenate([ids for ids, _ in documents]), np.concatenate([c for _, c in documents]), positions


def _narrow(largest: int) -> str:
    """Return the narrowest little-endian unsigned type of 1, 2 or 4 bytes that holds ``largest``."""
    return "<u1" if largest < 1 << 8 else "<u2" if largest < 1 << 16 else "<u4"


def decode_corpora(data: bytes) -> list[TokenCorpus] | None:
    """Return the corpora of a file made by :func:`encode_corpora`, or None if it is cut short or not ours."""
    try:
        magic, count, size, names = _HEADER.unpack_from(data)
        headers = [_CORPUS.unpack_from(data, _HEADER.size + n * _CORPUS.size) for n in range(count)]
    except struct.error:
        return None
    if magic != _MAGIC or any(width not in (b"1", b"2", b"4") for *_, doc, freq in headers for width in (doc, freq)):
        return None
    numeric = sum(d * (size + p) + f * p + 4 * n for n, p, _, d, f in _widths(headers))
    offset = _HEADER.size + count * _CORPUS.size
    table_at = offset + numeric
    if len(data) != table_at + table_size(size) + sum(text for _, _, text, _, _ in headers) + names:
        return None
    text_at = table_at + table_size(size)
    vocabulary = StoredVocabulary(data[len(data) - names :], data[table_at:text_at], size)
    found = []
    for documents, postings_count, text, doc_width, freq_width in _widths(headers):
        arrays = []
        widths = ((doc_width, size), (doc_width, postings_count), (freq_width, postings_count), (4, documents))
        for width, length in widths:
            arrays.append(np.frombuffer(data, f"<u{width}", length, offset))
            offset += width * length
        df, doc_ids, freqs, lengths = arrays
        paths = data[text_at : text_at + text].decode("utf-8", "surrogatepass").split("\0") if documents else []
        text_at += text
        wrong_ids = postings_count > 0 and int(doc_ids.max()) >= documents
        if len(paths) != documents or int(df.sum()) != postings_count or wrong_ids:
            return None  # not what encode_corpora wrote
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        base = Postings(indptr, doc_ids.astype(np.int32), freqs.astype(np.int32))
        found.append(_loaded_corpus(paths, vocabulary, base, df.astype(np.int64), lengths.astype(np.int64)))
    return found


def _widths(headers: list[tuple[int, int, int, bytes, bytes]]) -> list[tuple[int, int, int, int, int]]:
    """Return the corpus headers with the widths' characters (``b"1"``, ``b"2"``, ``b"4"``) as byte counts."""
    return [(n, p, text, int(doc), int(freq)) for n, p, text, doc, freq in headers]


def _loaded_corpus(
    paths: list[str], vocabulary: Mapping[str, int], base: Postings, df: IntArray, lengths: IntArray
) -> TokenCorpus:
    """Return a base corpus over ``base`` without per-document arrays (see the module docstring)."""
    empty = base_corpus([], [], {}, None)
    return TokenCorpus(
        paths=tuple(paths),
        vocabulary=vocabulary,
        documents=(),
        doc_lengths=lengths,
        df=df,
        base=base,
        base_size=len(paths),
        base_keys=empty.base_keys,
        base_blobs=empty.base_blobs,
    )


def _union_vocabulary(
    vocabularies: Sequence[Mapping[str, int]], term_ids: Sequence[IdArray]
) -> tuple[list[str], list[IdArray], IntArray]:
    """Return the terms of ``term_ids`` (one array per vocabulary), per array a map of its ids to theirs,
    and the ids (in the first vocabulary) of the first array's terms.

    The first array's terms come first, by term id; a term of another is looked up by name among them,
    and appended when new. No string is sorted: saving costs little beside indexing.
    """
    terms: list[str] = []
    added: dict[str, int] = {}
    remaps: list[IdArray] = []
    first_ids: list[int] = []
    first_used: IntArray = np.zeros(0, np.int64)
    for vocabulary, ids in zip(vocabularies, term_ids):
        seen = np.zeros(len(vocabulary) + 1, dtype=np.bool_)
        seen[ids] = True
        used_ids = np.flatnonzero(seen)
        used = used_ids.tolist()
        names = _terms_of(vocabulary)
        remap = np.zeros(len(vocabulary) + 1, dtype=np.int32)
        if not remaps:
            first_ids, first_used = used, used_ids
            remap[used_ids] = np.arange(len(used), dtype=np.int32)
            terms.extend(operator.itemgetter(*used)(names) if len(used) > 1 else [names[i] for i in used])
        for term_id in used if remaps else ():
            term = names[term_id]
            at = bisect.bisect_left(first_ids, vocabularies[0].get(term, -1))
            if at < len(first_ids) and term == terms[at]:
                remap[term_id] = at
                continue
            if term not in added:
                added[term] = len(terms)
                terms.append(term)
            remap[term_id] = added[term]
        remaps.append(remap)
    return terms, remaps, first_used


def _term_hashes(vocabulary: Mapping[str, int], first_used: IntArray, terms: Sequence[str]) -> npt.NDArray[np.uint32]:
    """Return the CRC-32 of each of ``terms`` (UTF-8): the first ``len(first_used)``, the terms of ``vocabulary``
    with those ids, from its cached hashes (:func:`_terms_of`); the rest hashed here."""
    _terms_of(vocabulary)
    cached = _TERMS[id(vocabulary)][2]
    first = np.frombuffer(cached, dtype=np.uint32)[first_used] if len(first_used) else np.zeros(0, np.uint32)
    rest = (term.encode("utf-8", "surrogatepass") for term in terms[len(first_used) :])
    return np.concatenate([first, np.fromiter(map(zlib.crc32, rest), np.uint32, len(terms) - len(first_used))])


_TERMS: dict[int, tuple[Mapping[str, int], list[str], array.array[int]]] = {}
_U32 = "I" if array.array("I").itemsize == 4 else "L"
"""The type code of 4-byte unsigned integers (the terms' CRC-32 hashes)."""
_TERMS_KEPT = 4


def _terms_of(vocabulary: Mapping[str, int]) -> list[str]:
    """Return the terms of ``vocabulary`` by id (ids number terms in insertion order), extended as it grows.

    The lists of the last few vocabularies are kept: the shared one grows, and listing it again for
    every index saved would cost time in proportion to every term the process has seen.
    """
    cached = _TERMS.pop(id(vocabulary), None)
    if cached is None or cached[0] is not vocabulary:
        cached = (vocabulary, [], array.array(_U32))
    _TERMS[id(vocabulary)] = cached
    while len(_TERMS) > _TERMS_KEPT:
        del _TERMS[next(iter(_TERMS))]
    _, names, hashes = cached
    if len(names) < len(vocabulary):
        if isinstance(vocabulary, dict):  # from its end: the vocabulary may hold millions of terms
            names.extend(newest_terms(vocabulary, len(vocabulary) - len(names)))
        else:
            names.extend(itertools.islice(vocabulary, len(names), None))
        new = (term.encode("utf-8", "surrogatepass") for term in names[len(hashes) :])
        hashes.extend(map(zlib.crc32, new))  # each term hashed once, not once per index saved
    return names


_SHARED: list[IndexStore | None] = [None]


def shared_index_store() -> IndexStore | None:
    """Return the store the built-in agents save their indexes to, or None (the plugin sets one up)."""
    return _SHARED[0]


def use_index_store(cache_dir: Path, cache_size: int | None) -> Callable[[], None]:
    """Give the built-in agents a store under ``<cache_dir>/indexes``, bounded to its share of
    ``cache_size`` (``store_bound``); return what puts the previous store back."""
    previous = _SHARED[0]
    _SHARED[0] = IndexStore(cache_dir / "indexes", store_bound(cache_size))

    def restore() -> None:
        _SHARED[0] = previous

    return restore
