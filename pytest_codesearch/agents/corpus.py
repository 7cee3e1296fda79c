"""The files a built-in agent searches: reading them, counting their tokens, caching the index.

:func:`iter_text_files` lists the text files of a directory, :func:`build_token_corpus` turns
their token counts into postings, :func:`rank_files` turns per-file scores into an answer, and
:class:`IndexCache` keeps one index per directory so a second ``initialize`` is nearly free.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.tokenize import count_tokens, path_tokens

SNIFF_BYTES = 8192
"""A NUL byte among a file's first ``SNIFF_BYTES`` bytes marks it binary."""

MAX_REPLACEMENT_RATIO = 0.3
"""A file whose UTF-8 decoding is more than this fraction of U+FFFD characters is binary."""

IndexT = TypeVar("IndexT")


def iter_text_files(root: Path, max_bytes: int = 1_000_000) -> Iterator[tuple[str, str]]:
    """Yield ``(posix path relative to root, text)`` for each text file under ``root``, by path.

    Skipped: anything named ``.git`` (the directory, or the file a worktree or submodule has),
    symbolic links, files larger than ``max_bytes``, files that cannot be read, and binary files:
    a NUL byte in the first :data:`SNIFF_BYTES` bytes, or more than :data:`MAX_REPLACEMENT_RATIO`
    of the text being U+FFFD once decoded as UTF-8 with ``errors="replace"``. Paths are sorted as
    strings, so the order does not depend on the file system.
    """
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory; pass the repository checkout to search")
    for relative, full in sorted(_walk(root)):
        text = _read_text(full, max_bytes)
        if text is not None:
            yield relative, text


def _walk(root: Path) -> list[tuple[str, str]]:
    """Return ``(relative posix path, full path)`` for the regular files under ``root``."""
    found: list[tuple[str, str]] = []
    pending = [(os.fspath(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, f"{prefix}{entry.name}/"))
            elif entry.is_file(follow_symlinks=False):
                found.append((prefix + entry.name, entry.path))
    return found


def _read_text(path: str, max_bytes: int) -> str | None:
    """Return the text of the file at ``path``, or None if it is too large, unreadable or binary."""
    try:
        if os.stat(path, follow_symlinks=False).st_size > max_bytes:
            return None
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    if b"\0" in data[:SNIFF_BYTES]:
        return None
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") > MAX_REPLACEMENT_RATIO * len(text):
        return None
    return text


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

    Term ids follow the order in which terms first occur (document by document, each document's
    counts in key order). The postings of term ``t`` are positions ``indptr[t]:indptr[t + 1]`` of
    ``doc_ids`` (ascending) and ``term_freqs``.
    """

    paths: tuple[str, ...]
    vocabulary: dict[str, int]
    doc_lengths: npt.NDArray[np.int64]
    indptr: npt.NDArray[np.int64]
    doc_ids: npt.NDArray[np.int64]
    term_freqs: npt.NDArray[np.int64]

    def postings(self, term: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Return the documents containing ``term`` and its count in each (empty if unknown)."""
        term_id = self.vocabulary.get(term)
        if term_id is None:
            return self.doc_ids[:0], self.term_freqs[:0]
        start, end = self.indptr[term_id], self.indptr[term_id + 1]
        return self.doc_ids[start:end], self.term_freqs[start:end]

    def document_frequencies(self) -> npt.NDArray[np.int64]:
        """Return, for each term id, the number of documents that contain the term."""
        return np.diff(self.indptr)


def build_token_corpus(documents: Iterable[tuple[str, Counter[str]]]) -> TokenCorpus:
    """Return the postings of ``(path, token counts)`` documents, kept in the order given."""
    paths: list[str] = []
    vocabulary: dict[str, int] = {}
    term_chunks: list[npt.NDArray[np.int64]] = []
    freq_chunks: list[npt.NDArray[np.int64]] = []
    for path, counts in documents:
        paths.append(path)
        term_ids = [vocabulary.setdefault(term, len(vocabulary)) for term in counts]
        term_chunks.append(np.array(term_ids, dtype=np.int64))
        freq_chunks.append(np.fromiter(counts.values(), dtype=np.int64, count=len(counts)))
    term_ids_all = np.concatenate(term_chunks) if term_chunks else np.zeros(0, np.int64)
    freqs_all = np.concatenate(freq_chunks) if freq_chunks else np.zeros(0, np.int64)
    sizes = np.array([len(chunk) for chunk in term_chunks], dtype=np.int64)
    doc_ids_all = np.repeat(np.arange(len(paths), dtype=np.int64), sizes)
    order = np.argsort(term_ids_all, kind="stable")
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_ids_all, minlength=len(vocabulary)), out=indptr[1:])
    return TokenCorpus(
        paths=tuple(paths),
        vocabulary=vocabulary,
        doc_lengths=np.array([chunk.sum() for chunk in freq_chunks], dtype=np.int64),
        indptr=indptr,
        doc_ids=doc_ids_all[order],
        term_freqs=freqs_all[order],
    )


def index_directory(root: Path, path_weight: int, max_bytes: int) -> TokenCorpus:
    """Return the postings of the text files under ``root`` (see :func:`document_counts`)."""
    return build_token_corpus(
        (path, document_counts(path, text, path_weight))
        for path, text in iter_text_files(root, max_bytes)
    )


def rank_files(paths: Sequence[str], scores: npt.NDArray[np.float64], top_n: int) -> RetrievalResult:
    """Return the files scoring above zero, best first, ties in ``paths`` order, at most ``top_n``.

    ``paths`` come sorted from :func:`iter_text_files`, so ties are broken by path.
    """
    candidates = np.flatnonzero(scores > 0)
    best = candidates[np.argsort(-scores[candidates], kind="stable")][:top_n]
    return RetrievalResult(files=[paths[i] for i in best], scores=scores[best].tolist())


class IndexCache(Generic[IndexT]):
    """The indexes one agent has built, keyed by the resolved directory each one covers.

    A directory is indexed once per cache: the harness hands agents immutable snapshot
    directories, so a later change to the files of an indexed directory is not noticed.
    """

    def __init__(self, build: Callable[[Path], IndexT]) -> None:
        self._build = build
        self._indexes: dict[Path, IndexT] = {}

    def get(self, directory: str | os.PathLike[str]) -> IndexT:
        """Return the index of ``directory``, building it on first use."""
        key = Path(directory).resolve()
        index = self._indexes.get(key)
        if index is None:
            index = self._indexes[key] = self._build(key)
        return index

    def __len__(self) -> int:
        """Return the number of directories indexed so far."""
        return len(self._indexes)
