"""The repository state a case is searched in: a commit's tree on disk, or a directory as it is.

A case names ``repo`` (a git repository or any directory) and optionally ``base_commit``. With a commit,
its tree is written once into ``<cache_dir>/<tree_id>/`` (see ``materialize.py``) and shared by every
case, agent, run and xdist worker that needs it. Without one, the directory's files are searched as they
are, minus ``.git`` and the paths the store excludes (the harness's cache, reports and gold sets; see
``worktree.py``). Either way a snapshot has one reader (``Snapshot.read``, ``reader.py``): blobs by id
for a commit, the listed files for a directory, never whatever else happens to be on disk.

Writing a tree costs about 1 ms a file, listing it about 1 ms for the whole tree. A store made with
``materialize=False`` only lists each commit's tree and writes its manifest; :meth:`SnapshotStore.directory`
writes the files when an agent needs them on disk. The built-in agents do not: they read the manifest
and the blobs they have not seen (``agents/index/snapshot_files.py``), so a gold set whose cases each search
another commit does not pay for a checkout per case.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pygit2

from pytest_codesearch.repo.materialize import (
    MISSING_BLOB,
    MaterializeError,
    SubtreeMemo,
    TreeListing,
    ensure_manifest,
    list_tree,
    materialize_tree,
    read_manifest,
    write_manifest,
)
from pytest_codesearch.repo.reader import (
    DirectoryReader,
    FileReader,
    SnapshotView,
    TreeReader,
    adopt_repository,
    remember_view,
)
from pytest_codesearch.repo.prune import WORKTREES, Holds, prune
from pytest_codesearch.repo.prunelog import Pruned
from pytest_codesearch.repo.entries import git_dir
from pytest_codesearch.repo.opening import SnapshotError as SnapshotError  # re-exported: raised from here
from pytest_codesearch.repo.opening import existing_directory, find_repository as find_repository
from pytest_codesearch.repo.opening import is_git_directory, open_repository, resolve_commit
from pytest_codesearch.repo.seal import Change, verify
from pytest_codesearch.repo.watch import SealWatch
from pytest_codesearch.repo.worktree import WorktreeListing, copy_worktree, list_worktree, worktree_directory

_SUBTREE_MEMO_SIZE = 50_000
"""Subtree listings a store keeps before starting afresh (each shares its entries with the others)."""
PRUNE_EVERY = 16
"""A store prunes the cache after its first directory built and after every this many more."""


class IncompleteSnapshotWarning(UserWarning):
    """A snapshot leaves out files whose blobs the repository lacks (a partial clone, a trimmed mirror)."""


def _warn_if_incomplete(repository: pygit2.Repository, listing: TreeListing) -> None:
    missing = sorted(entry.path for entry in listing.skipped if entry.reason == MISSING_BLOB)
    if missing:
        shown = ", ".join(repr(path) for path in missing[:3]) + (f" and {len(missing) - 3} more" if missing[3:] else "")
        message = f"{repository.path} lacks the blobs of {shown} (a partial clone?): snapshots leave them out"
        warnings.warn(IncompleteSnapshotWarning(message), stacklevel=3)


def empty_snapshot(root: Path) -> Snapshot:
    """Return a snapshot of no file at ``root`` (created empty if missing): what a blind agent searches."""
    root.mkdir(parents=True, exist_ok=True)
    return Snapshot(root, root, None, None, frozenset(), frozenset())


@dataclass(frozen=True)
class Snapshot:
    """A directory an agent searches, with the files it holds and the one reader of their bytes.

    ``commit`` and ``tree_id`` are full ids when the case gave ``base_commit``, else None. ``files`` are
    posix paths of regular files relative to ``root``; ``directories`` every directory holding a file,
    at any depth (never ``""``). ``root`` is the directory handed to agents: for a commit it is written
    only when an agent needs it, for a working tree it is a read-only copy under the cache
    (``SnapshotStore.directory``): never the user's own files. ``reader`` defaults to reading ``files`` under ``root``.
    """

    root: Path
    repo: Path
    commit: str | None
    tree_id: str | None
    files: frozenset[str]
    directories: frozenset[str]
    reader: FileReader | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        reader = self.reader if self.reader is not None else DirectoryReader(self.root, self.files)
        object.__setattr__(self, "reader", reader)
        object.__setattr__(self, "_view", SnapshotView(self.root, self.tree_id, reader))

    @property
    def label(self) -> str:
        """Return a short name for messages and reports: the abbreviated tree id, or the directory."""
        return self.tree_id[:10] if self.tree_id is not None else str(self.repo)

    def read(self, path: str) -> bytes | None:
        """Return the bytes of the snapshot file ``path``, the same whatever is on disk; None if no file."""
        return self.view().read(path)

    def view(self) -> SnapshotView:
        """Return what the agent hook ``use_snapshot`` receives: root, tree id, files and reader."""
        view: SnapshotView = self.__dict__["_view"]  # made once, in __post_init__
        return view


class SnapshotStore:
    """Resolves (repository, base_commit) pairs to snapshots, once per pair in this process.

    Trees are materialised under ``cache_dir``, which processes may share. With ``materialize=False`` a
    commit's snapshot is only listed (its manifest written beside the directory it will have) until
    :meth:`directory` is called. Directories this process searched last are held from pruning
    (``prune.py``); after every :data:`PRUNE_EVERY` directories it builds, the store prunes the cache
    down to ``size_limit`` bytes (None: only directories that take more than the blobs they link). A
    directory searched as it is never shows ``.git``, ``cache_dir`` or any path in ``exclude`` (files or
    directories; more can be added with :meth:`exclude`).
    Repositories are opened once per process and never handed across a fork (PITFALLS 24).
    """

    def __init__(
        self,
        cache_dir: Path,
        *,
        materialize: bool = True,
        exclude: Iterable[Path] = (),
        size_limit: int | None = None,
    ) -> None:
        self.cache_dir = Path(cache_dir).absolute()
        self.materialize = materialize
        self.size_limit = size_limit
        self.pruned = Pruned()
        """What this store's pruning passes removed (``prune.py``)."""
        self._holds = Holds()
        self._builds = 0
        self._added = 0
        self._snapshots: dict[tuple[Path, str | None], Snapshot] = {}
        self._resolved: dict[Path, Path] = {}
        self._repositories: dict[Path, pygit2.Repository] = {}
        self._subtrees: SubtreeMemo = {}
        self._worktrees: dict[Path, WorktreeListing] = {}
        self._excluded: set[str] = set()
        self._handed: set[str] = set()
        self._clean: set[str] = set()
        """Directories this process's last :meth:`check` found unchanged, not handed out since."""
        self.watch = SealWatch()
        """What spares :meth:`check` its walk while nothing touched a directory (``watch.py``)."""
        self._pid = os.getpid()
        for path in (self.cache_dir, *exclude):
            self.exclude(path)

    def exclude(self, path: Path) -> None:
        """Hide ``path`` (a file or a directory with all it holds) from directories searched as they are.

        Only snapshots built after the call are affected.
        """
        self._excluded.add(os.path.realpath(path))

    @property
    def worktrees(self) -> list[Path]:
        """Return the directories this store has listed to search as they are (no commit given)."""
        return sorted(listing.root for listing in self._worktrees.values())

    def get(self, repo: Path, base_commit: str | None) -> Snapshot:
        """Return the snapshot of ``repo`` at ``base_commit`` (or as it is), building it on first use.

        A relative ``repo`` is taken from the current directory. Raises ``SnapshotError`` when the
        directory, repository or revision cannot be used.
        """
        given = repo if isinstance(repo, Path) else Path(repo)  # the case's own Path keeps its hash
        path = self._resolved.get(given)
        if path is None:
            path = self._resolved[given] = existing_directory(given)
        key = (path, base_commit)
        if key not in self._snapshots:
            if base_commit is None:
                snapshot = self._directory_snapshot(path)
            else:
                snapshot = self._commit_snapshot(path, base_commit)
            self._snapshots[key] = snapshot
        found = self._snapshots[key]
        remember_view(found.view())  # again each time: agents without the hook find it by directory
        return found

    def directory(self, snapshot: Snapshot) -> Path:
        """Return ``snapshot.root`` after making sure its files are on disk (written once per tree).

        ``snapshot`` must come from this store's :meth:`get`.

        For a directory searched as it is, ``root`` is a read-only copy of the visible files under the
        cache (``worktree.py``). A directory built before is checked against its seal first and rebuilt
        if anything changed it (``seal.py``). Raises ``SnapshotError`` when the tree cannot be read or
        written.
        """
        listing = self._worktrees.get(snapshot.root)
        if listing is not None:
            return self._ensure(f"{WORKTREES}/{listing.signature}", snapshot.root, lambda: self._copy(listing))
        if snapshot.tree_id is None or snapshot.commit is None:
            return snapshot.root
        return self._ensure(snapshot.tree_id, snapshot.root, partial(self._write, snapshot.repo, snapshot.commit))

    def check(self, snapshot: Snapshot) -> list[Change]:
        """Return how the directory of ``snapshot`` differs from what was handed out (empty: untouched).

        A changed directory is removed (with any blob written through a link), so the next
        :meth:`directory` rebuilds it. A snapshot whose directory this store never handed out has none.
        """
        relative = self._relative(snapshot)
        if relative is None or relative not in self._handed:
            return []
        if self.watch.untouched(relative):
            self._clean.add(relative)
            return []
        found = verify(self.cache_dir, relative, snapshot.root, self._listing(snapshot))
        if found:
            self._handed.discard(relative)
            self.watch.forget(relative)
        elif self.watch.verified(relative, snapshot.root):
            self._clean.add(relative)
        return found

    def _relative(self, snapshot: Snapshot) -> str | None:
        """Return the cache name of the directory of ``snapshot``, or None when it is not in the cache."""
        listing = self._worktrees.get(snapshot.root)
        if listing is not None:
            return f"{WORKTREES}/{listing.signature}"
        return snapshot.tree_id if snapshot.commit is not None else None

    def _listing(self, snapshot: Snapshot) -> TreeListing | None:
        return None if snapshot.tree_id is None else read_manifest(self.cache_dir, snapshot.tree_id)

    def _ensure(self, relative: str, root: Path, build: Callable[[], int]) -> Path:
        """Hold the cache directory ``relative`` (at ``root``); unless it exists unchanged, build it with
        ``build`` (which returns its bytes at most) and count the build.

        A directory this process's last :meth:`check` found unchanged is not walked again (issue 23): nothing
        in this process wrote it since, and an agent of another process that writes it is caught by that
        process's check after its call, which removes it (then ``root`` is gone and is rebuilt here).
        """
        self._holds.hold(self.cache_dir, relative)
        self._handed.add(relative)
        if relative in self._clean:
            self._clean.discard(relative)
            if root.is_dir():
                return root
        if root.is_dir():
            self.watch.arm(relative, root)  # before the walk: what changes after it is seen
            listing = read_manifest(self.cache_dir, relative) if "/" not in relative else None
            if not verify(self.cache_dir, relative, root, listing):
                return root
            self.watch.forget(relative)
        built = self._built(root, build())
        self.watch.arm(relative, built)
        return built

    def _copy(self, listing: WorktreeListing) -> int:
        if self.size_limit is not None and listing.size > self.size_limit:
            raise SnapshotError(
                f"{listing.root}: its {len(listing.files)} files take {listing.size} bytes, more than the snapshot"
                f" cache's bound of {self.size_limit} bytes (--codesearch-cache-size): agents that need a directory"
                " get a copy of a working tree; give base_commit, or raise the bound"
            )
        try:
            copy_worktree(self.cache_dir, listing)
        except OSError as exc:
            raise SnapshotError(f"{listing.root}: cannot copy its files into {self.cache_dir}: {exc}") from None
        return listing.size

    def _write(self, path: Path, commit: str) -> int:
        repository = self._repository(path, commit)
        tree = repository[commit].peel(pygit2.Commit).tree
        return sum(f.size for f in self._materialize(repository, tree, path, commit)[1].files)

    def _built(self, root: Path, size: int = 0) -> Path:
        """Count a directory built, of ``size`` bytes at most; prune the cache on the first build, then
        after every ``PRUNE_EVERY`` builds or once the builds may have added an eighth of ``size_limit``."""
        self._added += size
        limit = self.size_limit
        if self._builds % PRUNE_EVERY == 0 or (limit is not None and self._added * 8 > limit):
            self.prune()
            self._builds, self._added = 0, 0
        self._builds += 1
        return root

    def prune(self) -> Pruned:
        """Prune the cache now (see ``prune.py``) and return what was removed."""
        try:
            pruned = prune(self.cache_dir, self.size_limit)
        except OSError:  # a cache we cannot prune is still usable
            return Pruned()
        self.pruned += pruned
        return pruned

    def close(self) -> None:
        """Release the directories this store holds from pruning."""
        self._holds.release()

    def _directory_snapshot(self, path: Path) -> Snapshot:
        """Return the snapshot of a directory as it is, or raise if it is a git directory with no files."""
        if is_git_directory(path):
            raise SnapshotError(
                f"{path}: a bare repository (or a .git directory) has no working tree to search; give base_commit"
            )
        listing = list_worktree(path, self._excluded)
        root = worktree_directory(self.cache_dir, listing)
        self._worktrees[root] = listing
        files = listing.files
        return Snapshot(root, path, None, None, files, parent_directories(files), DirectoryReader(path, files))

    def _commit_snapshot(self, path: Path, rev: str) -> Snapshot:
        repository = self._repository(path, rev)
        commit = resolve_commit(repository, path, rev)
        if self.materialize:
            self._holds.hold(self.cache_dir, str(commit.tree.id))
            built = not (self.cache_dir / str(commit.tree.id)).is_dir()
            root, listing = self._materialize(repository, commit.tree, path, rev)
            if built:
                self._built(root, sum(f.size for f in listing.files))
        else:
            root, listing = self._list(repository, commit.tree, path, rev)
        _warn_if_incomplete(repository, listing)
        files = frozenset(item.path for item in listing.files)
        reader = TreeReader(git_dir(repository), listing)
        return Snapshot(root, path, str(commit.id), listing.tree_id, files, parent_directories(files), reader)

    def _materialize(
        self, repository: pygit2.Repository, tree: pygit2.Tree, path: Path, rev: str
    ) -> tuple[Path, TreeListing]:
        try:
            root, listing = materialize_tree(repository, tree, self.cache_dir)
        except (MaterializeError, pygit2.GitError) as exc:  # a missing or unreadable object
            raise SnapshotError(f"{path}: cannot materialise {rev!r}: {exc}; the clone may be incomplete") from None
        except OSError as exc:
            raise SnapshotError(f"{path}: cannot write the snapshot of {rev!r} into {self.cache_dir}: {exc}") from None
        return root, listing

    def _list(
        self, repository: pygit2.Repository, tree: pygit2.Tree, path: Path, rev: str
    ) -> tuple[Path, TreeListing]:
        """Return where ``tree``'s directory goes and its listing, writing the manifest if it is missing.

        An existing manifest is read (about 3.5 ms for django's 6,000 files, listing them takes about 9)
        if it was listed from this repository and records no blob the repository lacked (a later fetch
        may have brought it).
        """
        known = read_manifest(self.cache_dir, str(tree.id))
        if (
            known is not None
            and known.repository == git_dir(repository)  # the one spelling listings record
            and not any(entry.reason == MISSING_BLOB for entry in known.skipped)
        ):
            return self.cache_dir / known.tree_id, known
        if len(self._subtrees) > _SUBTREE_MEMO_SIZE:
            self._subtrees.clear()
        try:
            listing = list_tree(repository, tree, self._subtrees)
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            (ensure_manifest if known is None else write_manifest)(self.cache_dir, listing)  # replace a stale one
        except (MaterializeError, pygit2.GitError) as exc:
            raise SnapshotError(f"{path}: cannot list {rev!r}: {exc}; the clone may be incomplete") from None
        except OSError as exc:
            raise SnapshotError(f"{path}: cannot write the manifest of {rev!r} into {self.cache_dir}: {exc}") from None
        return self.cache_dir / listing.tree_id, listing

    def _repository(self, path: Path, rev: str) -> pygit2.Repository:
        if os.getpid() != self._pid:  # a forked child must not reuse its parent's handles
            self._repositories.clear()
            self._pid = os.getpid()
        if path not in self._repositories:
            self._repositories[path] = adopt_repository(open_repository(path, rev))
        return self._repositories[path]


def parent_directories(files: Iterable[str]) -> frozenset[str]:
    """Return every directory that holds one of ``files`` at any depth: ``src/pkg/a.py`` gives src, src/pkg."""
    directories: set[str] = set()
    for parent in {path.rpartition("/")[0] for path in files}:  # distinct parents first: far fewer than files
        while parent and parent not in directories:
            directories.add(parent)
            parent = parent.rpartition("/")[0]
    return frozenset(directories)
