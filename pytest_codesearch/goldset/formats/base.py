"""The shape every gold-set reader has: which files it claims, and how it reads them into cases."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
import warnings
from pathlib import Path

from pytest_codesearch.repo.remote import RemoteCache

from ..entries import LoadedGoldSet

RepoMap = Mapping[str, Path]
"""Repository names as a gold set writes them (``owner/name``) to local clones; empty means none given."""


@dataclass(frozen=True)
class ReadOptions:
    """What a reader may need besides the file; every shape ignores what does not apply to it."""

    repos: RepoMap = field(default_factory=dict)
    """Where repositories named in the file are cloned (``--codesearch-repo-map``)."""
    remotes: RemoteCache | None = None
    """Where ``owner/name`` and URL repositories are cloned; None: remote repositories are not fetched."""
    hints: bool = False
    """SWE-bench: append ``hints_text`` to the query (off by default, as published tables run)."""
    entity_truth: str = "patch"
    """SWE-bench: ``patch`` derives functions and modules from the patch; ``dataset`` takes the instance's
    own ``edit_functions`` (as LocAgent's tables do; ``--codesearch-entity-truth``)."""
    convention: str = "native"
    """SWE-bench: how entities derived from the patch are named (``goldset/conventions.py``; the scoring
    profile's truth convention)."""
    truth_cache: Path | None = None
    """SWE-bench: where truth derived from patches is kept (``goldset/truthcache.py``); None: derived each time."""
    truth_share: tuple[int, int] | None = None
    """SWE-bench, with ``truth_cache``: ``(k, n)``, this process's share when ``n`` processes read the same file
    at once (xdist workers): it first derives the truth of every ``n``-th instance from the ``k``-th into the
    cache, then reads the file, finding most of the others' shares there. None: no share."""
    progress: Callable[[int, int], None] | None = None
    """Called with (entries read, entries in the file) as a reader goes, for progress lines (every
    ``PROGRESS_EVERY`` entries of a large file, and each instance of a SWE-bench file); None: not called."""


PROGRESS_EVERY = 512
"""Entries a fast reader reads between two calls of ``ReadOptions.progress``."""


@dataclass(frozen=True)
class Format:
    """One input shape: the file names it claims, a cheap look at the content, and its reader.

    ``sniff`` reads as little as it can and may raise ``OSError`` (``claims`` turns that into False);
    ``read`` never raises for bad content: whole-file problems go in ``LoadedGoldSet.error`` and each
    broken case becomes a ``CaseEntry`` with its line and field, so the rest still runs.
    """

    name: str
    """Short name, used in docs and messages (``native``, ``swebench``)."""
    suffixes: tuple[str, ...]
    """Lower-case file suffixes the shape may have (``.json``, ``.jsonl``)."""
    sniff: Callable[[Path], bool]
    """True when the content looks like this shape (broken files of the shape too, so errors are shown)."""
    read: Callable[[Path, ReadOptions], LoadedGoldSet]
    """Read the file into cases, with the options that apply to the shape."""

    def claims(self, path: Path) -> bool:
        """Return True when ``path`` has one of the suffixes and its content looks like this shape."""
        if path.suffix.lower() not in self.suffixes:
            return False
        try:
            return self.sniff(path)
        except FileNotFoundError:
            return False  # gone: ``load`` says so when asked for it
        except Exception as exc:  # unreadable, or content no reader expected: never the whole collection
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
            warnings.warn(SkippedFileWarning(f"{path}: skipped, cannot read it ({reason})"), stacklevel=2)
            return False


class SkippedFileWarning(UserWarning):
    """A file with a gold-set suffix that could not be looked at: it is not collected."""
