"""The files a built-in agent searches: listing them, counting their tokens, caching the index.

:func:`index_snapshot` builds the :class:`~pytest_codesearch.agents.index.postings.TokenCorpus` of a directory
from per-blob token counts (:mod:`~pytest_codesearch.agents.index.tokencache`), reading and tokenising only
blobs not seen before in the process, and derives it from a recent snapshot's corpus when that holds
nearly all the same files. :func:`rank_files` turns per-file scores into an answer, and
:class:`IndexCache` keeps an agent's last few indexes by directory, so returning to a snapshot is free.
"""

from __future__ import annotations

import os
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.index.postings import Document, TokenCorpus, base_corpus, derive_corpus
from pytest_codesearch.agents.index.snapshot_files import SnapshotFile, SnapshotFiles, list_snapshot, walk_files
from pytest_codesearch.agents.index.tokencache import TokenCache, decode_text
from pytest_codesearch.repo.reader import SnapshotView, known_view

__all__ = ["IndexCache", "TokenCorpus", "build_token_corpus", "index_snapshot", "iter_text_files", "rank_files"]

IndexT = TypeVar("IndexT")

MAX_DELTA = 0.05
"""A snapshot is derived from a recent base lacking at most this fraction of its files (or
:data:`MIN_DELTA` files), else it becomes a base itself. Deriving costs time per missing file, a base
about 15 microseconds a file (a sort of all its postings) but serves the snapshots around it."""

MIN_DELTA = 32

KEPT_PATHS = 1 << 18
"""Paths whose ``keep`` answer an indexer remembers (about 100 bytes each)."""


def iter_text_files(root: Path, max_bytes: int = 1_000_000) -> Iterator[tuple[str, str]]:
    """Yield ``(posix path relative to root, text)`` for each text file under ``root``, by path.

    Skipped: anything named ``.git`` (the directory, or the file a worktree or submodule has),
    symbolic links, files larger than ``max_bytes``, files that cannot be read, and binary files
    (:func:`~pytest_codesearch.filekinds.is_binary`). Paths are sorted as strings, so
    the order does not depend on the file system.
    """
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a directory; pass the repository checkout to search")
    for relative, full in sorted(walk_files(root)):
        try:
            if os.stat(full, follow_symlinks=False).st_size > max_bytes:
                continue
            with open(full, "rb") as stream:
                text = decode_text(stream.read(), relative)
        except OSError:
            continue
        if text is not None:
            yield relative, text


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
    return base_corpus(paths, arrays, vocabulary, None)


def index_snapshot(
    root: Path,
    path_weight: int,
    max_bytes: int,
    cache: TokenCache,
    recent: Iterable[TokenCorpus] = (),
    view: SnapshotView | None = None,
    keep: Callable[[str], bool] | None = None,
    skip: Callable[[str], bool] | None = None,
) -> TokenCorpus:
    """Return the postings of the text files of ``root``, each counted as its text's tokens plus
    its path's tokens ``path_weight`` times (``tokencache.document_arrays``).

    The files are those of ``view`` when given (see :func:`~pytest_codesearch.agents.index.snapshot_files.list_snapshot`);
    with ``keep``, only those whose path it accepts, unless none of them is a text file (then all).
    Files ``skip`` accepts are left out too (an agent that never ranks them need not read them), except
    when the files ``keep`` accepts have text files only among them: that corpus is then theirs, as
    without ``skip``.
    Blob contents are read and tokenised only when ``cache`` lacks them. When the base of one of the
    ``recent`` corpora (built with the same ``path_weight``, ``max_bytes`` and ``keep`` over ``cache``'s
    vocabulary) lacks at most :data:`MAX_DELTA` of the files, the corpus is derived from it.
    """
    cache.trim()
    listing = list_snapshot(root, max_bytes, view)
    try:
        if keep is not None:
            kept = [file for file in listing.files if keep(file.path)]
            needed = kept if skip is None else [file for file in kept if not skip(file.path)]
            for files in [needed, kept] if needed is not kept else [kept]:
                if files:
                    corpus, documents = _corpus(files, listing, path_weight, cache, recent)
                    if documents:
                        return corpus
        every = listing.files if skip is None else [file for file in listing.files if not skip(file.path)]
        return _corpus(every, listing, path_weight, cache, recent)[0]
    finally:
        cache.flush()  # the counts of this snapshot's new blobs, one file for other processes


def _corpus(
    files: Sequence[SnapshotFile],
    listing: SnapshotFiles,
    path_weight: int,
    cache: TokenCache,
    recent: Iterable[TokenCorpus],
) -> tuple[TokenCorpus, int]:
    """Return the corpus of the text files among ``files`` (read through ``listing``) and their number."""
    source = _best_source(recent, cache, files)
    known = source.base_keys if source is not None else {}
    paths: list[str] = []
    blobs: list[str] = []
    new: dict[int, Document] = {}
    for file in files:
        if (file.path, file.blob) not in known:
            document = cache.document(file.blob, file.path, path_weight, partial(listing.read, file))
            if document is None:
                continue
            new[len(paths)] = document
        paths.append(file.path)
        blobs.append(file.blob)
    if source is not None:
        return derive_corpus(source, paths, blobs, new), len(paths)
    seen = (f.blob for f in files)
    return base_corpus(paths, [new[j] for j in range(len(paths))], cache.vocabulary, blobs, seen), len(paths)


def _best_source(recent: Iterable[TokenCorpus], cache: TokenCache, files: Sequence[SnapshotFile]) -> TokenCorpus | None:
    """Return a recent corpus whose base lacks fewest of ``files``' blobs, if it lacks at most MAX_DELTA.

    Blobs stand for documents here (a renamed file counts as present); the most recent base that lacks
    a quarter of what is allowed or less is taken without looking further.
    """
    wanted = {f.blob for f in files}
    allowed = max(MIN_DELTA, MAX_DELTA * len(wanted))
    best: TokenCorpus | None = None
    best_missing = allowed
    for corpus in recent:
        if corpus.vocabulary is not cache.vocabulary or not corpus.base_keys:
            continue
        missing = len(wanted - corpus.base_blobs)
        if missing <= best_missing:
            best, best_missing = corpus, missing
        if missing <= allowed / 4:
            break
    return best


def path_order(corpus: TokenCorpus) -> npt.NDArray[np.int64]:
    """Return the numbers of ``corpus``'s live documents in path order (the order ties are broken in)."""
    if corpus.rank is None:
        return np.arange(len(corpus.paths), dtype=np.int64)
    return np.argsort(corpus.rank, kind="stable")[: corpus.size]


def rank_files(corpus: TokenCorpus, scores: npt.NDArray[np.float64], top_n: int) -> RetrievalResult:
    """Return the files scoring above zero, best first, ties by path, at most ``top_n``."""
    candidates = np.flatnonzero(scores > 0)
    if corpus.rank is None:  # document numbers follow path order
        order = np.argsort(-scores[candidates], kind="stable")
    else:
        order = np.lexsort((corpus.rank[candidates], -scores[candidates]))
    best = candidates[order][:top_n]
    return RetrievalResult(files=[corpus.paths[i] for i in best], scores=scores[best].tolist())


class SnapshotIndexer:
    """Indexes the snapshots of one agent, keeping its last ``bases`` base corpora to derive others from.

    With ``keep``, only the files whose path it accepts are indexed, and with ``skip`` not those it
    accepts (see :func:`index_snapshot`).

    An agent with the ``use_snapshot`` hook passes the view on (:meth:`use_snapshot`); the next
    :meth:`index` of that view's root reads the view's files instead of looking for them.
    """

    def __init__(
        self,
        path_weight: int,
        max_bytes: int,
        cache: TokenCache,
        bases: int = 4,
        keep: Callable[[str], bool] | None = None,
        skip: Callable[[str], bool] | None = None,
    ) -> None:
        self.path_weight = path_weight
        self.max_bytes = max_bytes
        self.cache = cache
        self.keep = None if keep is None else lru_cache(maxsize=KEPT_PATHS)(keep)
        """``keep``, remembered by path: snapshots of one repository share most paths."""
        self.skip = None if skip is None else lru_cache(maxsize=KEPT_PATHS)(skip)
        self.capacity = bases
        self._bases: list[TokenCorpus] = []
        self._view: SnapshotView | None = None

    def use_snapshot(self, view: SnapshotView) -> None:
        """Read the files of ``view`` when its root is indexed next (the agent hook passes it on)."""
        self._view = view

    def tree_id(self, root: Path) -> str | None:
        """Return the git tree id of the snapshot at ``root``, or None for a directory searched as it is."""
        view = self._view_for(root)
        return None if view is None else view.tree_id

    def index(self, root: Path) -> TokenCorpus:
        """Return the corpus of ``root`` (see :func:`index_snapshot`), derived from a kept base if one fits."""
        view = self._view_for(root)
        corpus = index_snapshot(
            root, self.path_weight, self.max_bytes, self.cache, self._bases, view, self.keep, self.skip
        )
        if corpus.blobs is not None:
            self._bases = [c for c in self._bases if c.base is not corpus.base]
            self._bases.insert(0, corpus)
            del self._bases[self.capacity :]
        return corpus

    def reader(self, root: Path) -> Callable[[str], bytes | None]:
        """Return a reader of ``root``'s files: through its snapshot view when it has one, else from disk."""
        view = self._view_for(root)
        if view is not None:
            return view.read
        return partial(_read_file, root, self.max_bytes)

    def blob_ids(self, root: Path) -> Callable[[str], str | None] | None:
        """Return the git blob id of each of ``root``'s files by path (None for no such file), or None
        unless ``root`` is a commit's snapshot (a directory searched as it is may change under us)."""
        view = self._view_for(root)
        if view is None or view.tree_id is None:
            return None
        blobs: dict[str, str] = {}

        def blob_of(path: str) -> str | None:
            if not blobs:
                blobs.update((file.path, file.blob) for file in view.files)
            return blobs.get(path)

        return blob_of

    def _view_for(self, root: Path) -> SnapshotView | None:
        """Return the view the hook passed when it is ``root``'s, else the one this process made for ``root``."""
        view = self._view
        if view is not None and os.path.realpath(view.root) == os.path.realpath(root):
            return view
        return known_view(root)


def _read_file(root: Path, max_bytes: int, path: str) -> bytes | None:
    """Return the bytes of ``root / path`` when it is a file of at most ``max_bytes``, else None."""
    try:
        full = root / path
        if full.stat().st_size > max_bytes:
            return None
        return full.read_bytes()
    except OSError:
        return None


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
