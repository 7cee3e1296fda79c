"""Token counts of file contents, keyed by git blob id and shared by the built-in agents of a process.

A mined gold set searches a different commit in nearly every case, and consecutive commits share
almost every blob, so the built-in agents tokenise each blob once per process, not once per snapshot
(issue 4, "time travel at evaluation"). :class:`TokenCache` maps a blob id to the counts of its tokens
as two int32 arrays (term ids into the cache's vocabulary, ascending, and their counts), or to None for a
binary blob, and (blob id, path, path weight) to the counts of a document: the blob's tokens plus its
path's. :func:`shared_token_cache` is the instance agents use unless given their own.

A blob read at a path is counted from the last version counted at that path when its counts are still in
memory and the lines that differ hold fewer characters than the blob (:meth:`~pytest_codesearch.agents.index.wordtable.WordTable.counts_since`:
only the lines that differ are counted); the last text of each path is kept for that.

Memory is bounded three ways:

* entries are evicted least recently used first once their postings (distinct tokens, summed over
  entries) pass ``max_postings``: 8 bytes a posting, so the default 8,000,000 is about 64 MB of arrays
  (a 2,000-file repository of ordinary source holds about 600,000 per agent's path weight, and as
  many for the blobs);
* the vocabulary only grows while a process runs; when it passes ``max_terms`` at the start of an
  index build (:meth:`TokenCache.trim`) the cache starts again with an empty vocabulary and no blobs.
  Indexes built before keep the vocabulary they were built with;
* the texts kept to count a path's next version take at most ``max_text_chars`` characters (128M), the
  least recently counted dropped first.

With a :attr:`TokenCache.store` (the plugin gives the shared cache one under ``--codesearch-cache-dir``),
a blob missing from memory is looked up on disk before it is read and tokenised, and what is tokenised
is written there at each :meth:`TokenCache.flush` (``tokenstore.py``: the indexer flushes after each
snapshot): a second run, or another xdist worker, tokenises nothing again.
"""

from __future__ import annotations

import itertools
import operator
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pytest_codesearch.agents.index.postings import Document, IdArray
from pytest_codesearch.agents.index.tokenize import path_tokens
from pytest_codesearch.agents.index.wordtable import WordTable
from pytest_codesearch.filekinds import is_binary, is_known_text_path, looks_binary

if TYPE_CHECKING:
    from pytest_codesearch.agents.index.tokenstore import TokenStore

_DocumentKey = tuple[str, str, int]


def decode_text(data: bytes, path: str) -> str | None:
    """Return the content ``data`` of the file ``path`` decoded as UTF-8 (bad bytes replaced), or None when
    the file is binary (:func:`~pytest_codesearch.filekinds.is_binary`, the miner's rule too)."""
    if is_binary(path, data):
        return None
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True, eq=False)
class BlobTokens:
    """The tokens of one text blob: ascending term ids and how often each occurs."""

    term_ids: IdArray
    counts: IdArray


class TokenCache:
    """Token counts by blob id, and documents by (blob id, path, path weight), least recently used evicted.

    ``tokenized`` counts the blobs tokenised so far (a blob read again after its eviction counts
    again); tests use it to check that shared blobs are tokenised once.
    """

    def __init__(
        self, max_postings: int = 8_000_000, max_terms: int = 2_000_000, max_text_chars: int = 1 << 27
    ) -> None:
        if max_postings < 1 or max_terms < 1:
            raise ValueError(f"TokenCache needs positive bounds, got {max_postings} and {max_terms}")
        self.max_postings = max_postings
        self.max_terms = max_terms
        self.max_text_chars = max_text_chars
        self.vocabulary: dict[str, int] = {}
        self.tokenized = 0
        self.derived = 0
        """Blobs of those counted from an earlier version of their file (:meth:`WordTable.counts_since`)."""
        self._texts: OrderedDict[str, tuple[str, str]] = OrderedDict()
        """The last text counted at each path, with its blob id, to count its next version from."""
        self._text_chars = 0
        self.store: TokenStore | None = None
        """Where token counts persist across processes (``tokenstore.py``); None: in memory only."""
        self._words: WordTable | None = None
        self._terms: list[str] = []
        """The vocabulary's terms by id, as far as :meth:`_names` needed them."""
        self._blobs: OrderedDict[str, BlobTokens | None] = OrderedDict()
        self._documents: OrderedDict[_DocumentKey, Document] = OrderedDict()
        self._postings = 0

    def __len__(self) -> int:
        """Return the number of blobs cached (binary ones included)."""
        return len(self._blobs)

    @property
    def documents(self) -> int:
        """Return the number of documents cached."""
        return len(self._documents)

    @property
    def postings(self) -> int:
        """Return the number of (blob, term) counts held: the figure ``max_postings`` bounds."""
        return self._postings

    def __contains__(self, blob_id: object) -> bool:
        return blob_id in self._blobs

    def trim(self) -> None:
        """Start afresh (new vocabulary, no blobs) if the vocabulary outgrew ``max_terms``."""
        if len(self.vocabulary) > self.max_terms:
            self.vocabulary = {}
            self._blobs.clear()
            self._documents.clear()
            self._texts.clear()
            self._postings = self._text_chars = 0

    def tokens(
        self, blob_id: str, load: Callable[[], bytes | None], text_by_name: bool = False, path: str | None = None
    ) -> BlobTokens | None:
        """Return the tokens of ``blob_id``, calling ``load`` for its content only on first use.

        None means the blob is binary (remembered) or ``load`` returned None (not remembered: the
        content may be readable later). A binary blob is tokenised all the same for a file that is
        text by name (``text_by_name``, see ``filekinds.is_binary``): read each time, never stored. With
        the file's ``path``, a blob read is counted from the last version counted at that path.
        """
        if blob_id in self._blobs:
            self._blobs.move_to_end(blob_id)
            found = self._blobs[blob_id]
        else:
            stored = None if self.store is None else self.store.load(blob_id)
            if stored is None:
                return self._read(blob_id, load, text_by_name, path)
            found = None if stored.binary else self._arrays(stored.tokens, stored.counts)
            self._remember(blob_id, found)
        if found is None and text_by_name:
            return self._read(blob_id, load, text_by_name)
        return found

    def _read(
        self, blob_id: str, load: Callable[[], bytes | None], text_by_name: bool, path: str | None = None
    ) -> BlobTokens | None:
        """Return the tokens of a blob not cached as text: read, tokenised and remembered (see :meth:`tokens`)."""
        data = load()
        if data is None:
            return None
        text = data.decode("utf-8", errors="replace")
        if looks_binary(data):
            if blob_id not in self._blobs:
                self._remember(blob_id, None)
                if self.store is not None:
                    self.store.save(blob_id, None)
            return self._count(text, None) if text_by_name else None
        found = self._count(text, blob_id, path)
        self._remember(blob_id, found)
        return found

    def document(
        self, blob_id: str, path: str, path_weight: int, load: Callable[[], bytes | None]
    ) -> Document | None:
        """Return the term ids and counts of the file ``path`` holding ``blob_id`` (see :func:`document_arrays`).

        None when the file is binary (``filekinds.is_binary``) or cannot be read (see :meth:`tokens`).
        """
        key = (blob_id, path, path_weight)
        found = self._documents.get(key)
        if found is not None:
            self._documents.move_to_end(key)
            return found
        text = self.tokens(blob_id, load, is_known_text_path(path), path)
        if text is None:
            return None
        found = document_arrays(self, text, path, path_weight)
        self._documents[key] = found
        self._postings += len(found[0])
        self._evict()
        return found

    def flush(self) -> None:
        """Write what was counted since the last flush to the store (one file: ``tokenstore.py``), if any."""
        if self.store is not None:
            self.store.flush()

    def term_ids(self, tokens: Sequence[str]) -> list[int]:
        """Return the id of each token, adding new tokens to the vocabulary (in their order)."""
        vocabulary = self.vocabulary
        ids: list[int | None] = list(map(vocabulary.get, tokens))  # one C loop: most tokens are known
        if None in ids:
            for at in list(itertools.compress(range(len(ids)), map(operator.is_, ids, itertools.repeat(None)))):
                ids[at] = vocabulary.setdefault(tokens[at], len(vocabulary))
        return ids  # type: ignore[return-value]  # no None is left

    def _count(self, text: str, blob_id: str | None, path: str | None = None) -> BlobTokens:
        """Return the tokens of ``text``, saved to the store under ``blob_id`` unless it is None; counted
        from the last version of ``path`` when its counts are still in memory and few lines differ."""
        self.tokenized += 1
        if self._words is None or self._words.vocabulary is not self.vocabulary:
            self._words, self._terms = WordTable(self.vocabulary), []
        counted = None
        earlier = None if path is None or blob_id is None else self._texts.get(path)
        if earlier is not None and earlier[0] != blob_id:
            old = self._blobs.get(earlier[0])
            counted = None if old is None else self._words.counts_since(old.term_ids, old.counts, earlier[1], text)
            self.derived += counted is not None
        ids, values = self._words.counts(text) if counted is None else counted
        if path is not None and blob_id is not None:
            self._keep_text(path, blob_id, text)
        if self.store is not None and blob_id is not None:
            self.store.save(blob_id, self._names(ids), values)
        return BlobTokens(ids, values)

    def _keep_text(self, path: str, blob_id: str, text: str) -> None:
        """Remember ``text`` as the last version counted at ``path``, the oldest dropped past ``max_text_chars``."""
        replaced = self._texts.pop(path, None)
        self._text_chars += len(text) - (0 if replaced is None else len(replaced[1]))
        self._texts[path] = (blob_id, text)
        while self._text_chars > self.max_text_chars and len(self._texts) > 1:
            self._text_chars -= len(self._texts.popitem(last=False)[1][1])

    def _names(self, ids: IdArray) -> Sequence[str]:
        """Return the terms of ``ids`` (term ids number terms in the vocabulary's insertion order)."""
        names = self._terms
        if len(names) < len(self.vocabulary):
            names.extend(newest_terms(self.vocabulary, len(self.vocabulary) - len(names)))
        if len(ids) < 2:  # itemgetter of one index gives the item, not a tuple
            return [names[i] for i in ids.tolist()]
        pick: Callable[[list[str]], tuple[str, ...]] = operator.itemgetter(*ids.tolist())
        return pick(names)  # one C call, not a Python loop over thousands of terms a blob

    def _arrays(self, tokens: Sequence[str], values: IdArray) -> BlobTokens:
        """Return the tokens as term ids, ascending, with their counts ``values``."""
        ids = np.array(self.term_ids(tokens), dtype=np.int32)
        order = np.argsort(ids)
        return BlobTokens(ids[order], values[order])

    def _remember(self, blob_id: str, found: BlobTokens | None) -> None:
        self._blobs[blob_id] = found
        self._postings += 0 if found is None else len(found.term_ids)
        self._evict()

    def _evict(self) -> None:
        """Drop documents, then blobs, least recently used first, until the postings fit (keeping one)."""
        while self._postings > self.max_postings and len(self._documents) > 1:
            self._postings -= len(self._documents.popitem(last=False)[1][0])
        while self._postings > self.max_postings and len(self._blobs) > 1:
            evicted = self._blobs.popitem(last=False)[1]
            self._postings -= 0 if evicted is None else len(evicted.term_ids)


def newest_terms(vocabulary: dict[str, int], count: int) -> list[str]:
    """Return the last ``count`` terms added to ``vocabulary``, oldest first, in time proportional to ``count``."""
    newest = list(itertools.islice(reversed(vocabulary), count))
    newest.reverse()
    return newest


def document_arrays(cache: TokenCache, text: BlobTokens, path: str, path_weight: int) -> Document:
    """Return the term ids (ascending) and counts of a document: ``text`` plus its path's tokens.

    Each token of ``path`` counts ``path_weight`` times: the counts of
    ``Counter(tokenize(text) + path_tokens(path) * path_weight)``.
    """
    tokens = path_tokens(path) if path_weight > 0 else []
    if not tokens:
        return text.term_ids, text.counts
    unique, times = np.unique(np.array(cache.term_ids(tokens), dtype=np.int32), return_counts=True)
    extra = (times * path_weight).astype(np.int32)
    ids, counts = text.term_ids, text.counts
    at = np.searchsorted(ids, unique)
    found = at < len(ids)
    found[found] = ids[at[found]] == unique[found]
    counts = counts.copy()
    counts[at[found]] += extra[found]
    missing = ~found
    return np.insert(ids, at[missing], unique[missing]), np.insert(counts, at[missing], extra[missing])


_SHARED = TokenCache()


def shared_token_cache() -> TokenCache:
    """Return the process-wide cache the built-in agents share by default."""
    return _SHARED
