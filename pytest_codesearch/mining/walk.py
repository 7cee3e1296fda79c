"""Commits and their changes, read with pygit2: opening the repository, walking history, finding renames.

The tree diff itself is our own (``treediff.py``). Rename detection (``find_renames``) is libgit2's, paid
only by commits that both add and delete files.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pygit2

from pytest_codesearch.mining.treediff import REGULAR, TYPE_MASK
from pytest_codesearch.mining.treediff import TREE as TREE  # the tree diff lived here: keep its names importable
from pytest_codesearch.mining.treediff import Change as Change
from pytest_codesearch.mining.treediff import TreeDiffer as TreeDiffer
from pytest_codesearch.repo.remote import portable_name
from pytest_codesearch.repo.revs import peel_commit

_UNSAFE_PATH = re.compile(rb"(?:\A|/)(?:\.{1,2}|\.git[. ]*)?(?:/|\Z)|[\0\\]|\A[A-Za-z]:", re.I)
_SORT = pygit2.enums.SortMode.TIME
CACHE_BYTES = 16 * 1024 * 1024


class MiningError(Exception):
    """A repository, revision or output that cannot be mined; str() is the user-facing message."""


@contextmanager
def bounded_cache(limit: int = CACHE_BYTES) -> Iterator[None]:
    """Cap libgit2's object cache (process-wide, 256 MiB by default) while mining, then restore it.

    Walking caches every commit and small tree read; a long history would fill the cache, so memory
    would grow with history length. The miner keeps the trees it needs itself.
    """
    previous = pygit2.settings.cached_memory[1]
    pygit2.settings.cache_max_size(min(limit, previous))
    try:
        yield
    finally:
        pygit2.settings.cache_max_size(previous)


@contextmanager
def uncached() -> Iterator[None]:
    """Turn libgit2's object cache off (process-wide) for a walk whose commits are not read again soon, then on.

    The walk that lists a history's commits for several processes (``parallel._list_commits``) would
    store every commit in the cache only to evict it: 15% of that walk's CPU on git's history.
    """
    pygit2.settings.enable_caching(False)
    try:
        yield
    finally:
        pygit2.settings.enable_caching(True)


def open_repository(path: Path) -> pygit2.Repository:
    """Return the repository whose work tree or git directory is ``path`` (bare ones too).

    Raises ``MiningError`` when ``path`` is missing, not a repository, refused by git's ownership check
    or has no commit yet.
    """
    if not path.is_dir():
        raise MiningError(f"{path}: no such directory (give the repository to mine with --codesearch-repo)")
    try:
        repo = pygit2.Repository(str(path), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except pygit2.GitError as exc:
        if "owned" in str(exc) or "ownership" in str(exc):
            raise MiningError(
                f"{path}: git refuses to open this repository because another user owns it ({exc}). "
                f"If you trust it, run: git config --global --add safe.directory {path}"
            ) from None
        hint = _enclosing(path)
        raise MiningError(f"{path}: not a git repository (name the directory that holds .git{hint})") from None
    if repo.head_is_unborn or repo.is_empty:
        raise MiningError(f"{path}: the repository has no commits yet, so there is no history to mine")
    return repo


def _enclosing(path: Path) -> str:
    """Return "; it lies inside the repository <root>" when a parent directory is a repository, else ""."""
    found = pygit2.discover_repository(str(path))
    if not found:
        return ""
    gitdir = Path(found)
    return f"; it lies inside the repository {gitdir.parent if gitdir.name == '.git' else gitdir}"


def resolve_commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    """Return the commit ``rev`` names (``HEAD``, a branch, tag, hash or ``main~3``), else raise ``MiningError``."""
    found = peel_commit(repo, rev)
    if isinstance(found, str):
        raise MiningError(f"{repository_path(repo)}: unknown revision {rev!r}: {found} (check --codesearch-rev)")
    return found


def repository_path(repo: pygit2.Repository) -> Path:
    """Return the work tree of ``repo``, or its git directory when it is bare."""
    return Path(repo.workdir or repo.path).resolve()


def repository_name(repo: pygit2.Repository, path: Path | None = None) -> str:
    """Return the repository's own name, the same in every clone: its ``origin`` remote's, else its folder's.

    ``https://github.com/pallets/flask.git``, ``git@github.com:pallets/flask`` and ``/src/flask/.git``
    all name ``flask``. Without an ``origin``, the name is that of the directory ``path`` (the one the user
    gave; the repository's own directory by default), without ``.git``: ``project`` for ``project/``,
    ``project/.git`` or a bare ``project.git``.
    """
    name = _name_from_url(_origin_url(repo))
    return name or _directory_name(path if path is not None else repository_path(repo))


def origin_name(repo: pygit2.Repository) -> str | None:
    """Return the portable name of the ``origin`` remote (``owner/name``, a URL; ``repo.remote.portable_name``),
    or None when there is no origin or it is a local path."""
    return portable_name(_origin_url(repo))


def has_origin_name(repo: pygit2.Repository) -> bool:
    """Return True when ``repository_name`` can take the name from an ``origin`` remote (not the folder's)."""
    return bool(_name_from_url(_origin_url(repo)))


def _origin_url(repo: pygit2.Repository) -> str:
    """Return the URL of the ``origin`` remote, or "" when there is none (or no configuration at all)."""
    try:
        return repo.remotes["origin"].url or ""
    except (KeyError, ValueError, pygit2.GitError):
        return ""


def _name_from_url(url: str) -> str:
    """Return the last path component of a remote URL or path, without a trailing ``/.git`` or ``.git``."""
    trimmed = url.strip().rstrip("/")
    if trimmed.endswith("/.git"):
        trimmed = trimmed[: -len("/.git")]
    name = re.split(r"[/:\\]", trimmed)[-1]
    return name[: -len(".git")] if name.endswith(".git") and len(name) > 4 else name


def _directory_name(path: Path) -> str:
    """Return a repository directory's name without ``.git`` (a work tree's for its ``.git`` folder)."""
    path = path.absolute()
    name = path.name if path.name != ".git" else path.parent.name
    return name[: -len(".git")] if name.endswith(".git") and len(name) > 4 else name


def shallow_boundary(repo: pygit2.Repository) -> frozenset[str]:
    """Return the ids of a shallow clone's boundary commits: their parents were not fetched (PITFALLS 19)."""
    if not repo.is_shallow:
        return frozenset()
    gitdir = Path(repo.path)
    files = [gitdir / "shallow"]
    common = gitdir / "commondir"
    if common.is_file():  # a linked work tree: the shallow file lives in the main git directory
        files.append(gitdir / common.read_text().strip() / "shallow")
    ids = {line.strip() for file in files if file.is_file() for line in file.read_text().splitlines()}
    return frozenset(ids - {""})


def walk(
    repo: pygit2.Repository, start: pygit2.Commit, since: datetime | None, until: datetime | None
) -> Iterator[tuple[pygit2.Commit, bool]]:
    """Yield every commit reachable from ``start``, newest first by commit time, with whether it lies in bounds.

    A commit is in bounds when its committer time is within ``[since, until]`` (either end may be None),
    as ``git log --since/--until`` reads them.
    """
    inside = in_window(since, until)
    for commit in repo.walk(start.id, _SORT):
        yield commit, inside(commit.commit_time)


def in_window(since: datetime | None, until: datetime | None) -> Callable[[int], bool]:
    """Return a test of whether a committer time (seconds) lies within ``[since, until]`` (either may be None)."""
    low = None if since is None else since.timestamp()
    high = None if until is None else until.timestamp()
    return lambda time: (low is None or time >= low) and (high is None or time <= high)


def newest_first(repo: pygit2.Repository, start: pygit2.Commit) -> Iterator[pygit2.Commit]:
    """Yield the commits reachable from ``start``, newest commit time first, reading only as far as asked.

    libgit2's time-sorted walk (``walk``) reads every commit of the history before it yields the first;
    this one reads a commit's parents when it yields the commit. Commits of equal time, and a parent
    newer than its child, may come in another order than ``walk``'s. Parents that cannot be read (a
    shallow clone's boundary) are left out.
    """
    queue: list[tuple[int, int, pygit2.Commit]] = [(-start.commit_time, 0, start)]
    queued = {start.id}
    while queue:
        commit = heapq.heappop(queue)[2]
        yield commit
        for parent_id in commit.parent_ids:
            if parent_id in queued:
                continue
            queued.add(parent_id)
            try:
                parent = repo[parent_id].peel(pygit2.Commit)
            except (KeyError, ValueError, pygit2.GitError):
                continue
            heapq.heappush(queue, (-parent.commit_time, len(queued), parent))


def decode_path(raw: bytes) -> str | None:
    """Return ``raw`` as a path, or None when it is not UTF-8 or not a plain relative path a snapshot can hold.

    Refused: segments ``.``, ``..``, ``.git`` (any case, trailing dots or spaces), empty segments, NUL,
    backslashes and drive letters (PITFALLS 22; the gold-set model refuses the last two).
    """
    if _UNSAFE_PATH.search(raw):
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def find_renames(
    repo: pygit2.Repository, old_tree: bytes, new_tree: bytes, limit: int, paths: list[bytes]
) -> tuple[dict[bytes, bytes], bool]:
    """Return libgit2's renames between two trees (new path -> old path) and whether ``limit`` cut it short.

    Only the deepest directory holding every path of ``paths`` (the unmatched additions and deletions) is
    diffed: a rename inside ``src/pkg/`` need not list the whole repository. libgit2 stops looking after
    ``limit`` renames without saying so (PITFALLS 25); the flag reports a commit with more candidates
    than that, so the caller can count it.
    """
    base, old, new = _narrowed(repo, old_tree, new_tree, _common_directory(paths))
    diff = old.diff_to_tree(new)
    adds = deletes = 0
    for delta in diff.deltas:
        adds += delta.status == pygit2.enums.DeltaStatus.ADDED
        deletes += delta.status == pygit2.enums.DeltaStatus.DELETED
    diff.find_similar(flags=pygit2.enums.DiffFind.FIND_RENAMES, rename_limit=limit)
    prefix = base + b"/" if base else b""
    renames = {
        prefix + delta.new_file.raw_path: prefix + delta.old_file.raw_path
        for delta in diff.deltas
        if delta.status == pygit2.enums.DeltaStatus.RENAMED
    }
    return renames, max(adds, deletes) > limit


def _common_directory(paths: list[bytes]) -> bytes:
    """Return the deepest directory (``b""`` for the root) that holds every path."""
    common: list[bytes] | None = None
    for path in paths:
        folders = path.split(b"/")[:-1]
        if common is None:
            common = folders
        else:
            size = 0
            while size < min(len(common), len(folders)) and common[size] == folders[size]:
                size += 1
            common = common[:size]
    return b"/".join(common or [])


def _narrowed(
    repo: pygit2.Repository, old_tree: bytes, new_tree: bytes, base: bytes
) -> tuple[bytes, pygit2.Tree, pygit2.Tree]:
    """Return (base, old subtree, new subtree) at directory ``base``, or the root trees when either lacks it."""
    old = repo[pygit2.Oid(raw=old_tree)].peel(pygit2.Tree)
    new = repo[pygit2.Oid(raw=new_tree)].peel(pygit2.Tree)
    if not base:
        return b"", old, new
    try:
        folder = base.decode("utf-8")
        return base, repo[old[folder].id].peel(pygit2.Tree), repo[new[folder].id].peel(pygit2.Tree)
    except (KeyError, UnicodeDecodeError, ValueError, pygit2.GitError):  # gone on one side, or not a tree
        return b"", old, new


def is_regular(mode: int) -> bool:
    """Return whether ``mode`` is a regular (possibly executable) file."""
    return mode & TYPE_MASK == REGULAR
