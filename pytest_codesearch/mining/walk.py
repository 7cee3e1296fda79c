"""Commits and their changes, read with pygit2: opening the repository, walking history, diffing trees.

The tree diff is our own: consecutive commits share almost every tree, so comparing two trees' raw entries
as sets and descending only into subtrees whose ids differ reads a handful of small objects per commit.
That is several times cheaper than libgit2's diff, which lists both trees in full (issue 4, performance).
Rename detection (``find_renames``) is paid only by commits that both add and delete files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import pygit2

TYPE_MASK = 0o170000
TREE = 0o040000
REGULAR = 0o100000
SYMLINK = 0o120000
GITLINK = 0o160000

_ENTRY = re.compile(rb"\d+ [^\0]*\0.{20}", re.S)
_UNSAFE_PATH = re.compile(rb"(?:\A|/)(?:\.{1,2}|\.git[. ]*)?(?:/|\Z)|[\0\\]|\A[A-Za-z]:", re.I)
_TREE_CACHE_SIZE = 512
_SORT = pygit2.enums.SortMode.TIME
CACHE_BYTES = 16 * 1024 * 1024


class MiningError(Exception):
    """A repository, revision or output that cannot be mined; str() is the user-facing message."""


class Change(NamedTuple):
    """One path a commit changed: its mode and raw object id on each side (0 and None where absent)."""

    path: bytes
    old_mode: int
    old_id: bytes | None
    new_mode: int
    new_id: bytes | None


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
    where = repository_path(repo)
    try:
        found = repo.revparse_single(rev)
    except KeyError:
        problem = "no commit, branch or tag has that name"
    except (ValueError, pygit2.GitError) as exc:  # bad syntax, an ambiguous short hash
        problem = str(exc)
    else:
        try:
            return found.peel(pygit2.Commit)
        except (ValueError, pygit2.GitError):
            problem = f"it names a {found.type_str}, not a commit"
    raise MiningError(f"{where}: unknown revision {rev!r}: {problem} (check --codesearch-rev)")


def repository_path(repo: pygit2.Repository) -> Path:
    """Return the work tree of ``repo``, or its git directory when it is bare."""
    return Path(repo.workdir or repo.path).resolve()


def repository_name(repo: pygit2.Repository) -> str:
    """Return the repository's directory name (``project`` for ``project/`` or a bare ``project.git``)."""
    name = repository_path(repo).name
    if repo.workdir is None and name.endswith(".git") and len(name) > 4:
        name = name[: -len(".git")]
    return name


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
    low = None if since is None else since.timestamp()
    high = None if until is None else until.timestamp()
    for commit in repo.walk(start.id, _SORT):
        time = commit.commit_time
        yield commit, (low is None or time >= low) and (high is None or time <= high)


class TreeDiffer:
    """Diffs trees by their raw entries, keeping the entry sets of recently read trees.

    Walking newest first, a commit's parent tree is the next commit's tree, so a small cache reads most
    trees once. Memory stays bounded by the cache size, whatever the length of the history.
    """

    def __init__(self, repo: pygit2.Repository) -> None:
        self._odb = repo.odb
        self._cache: dict[bytes, frozenset[bytes]] = {}

    def diff(self, old_tree: bytes | None, new_tree: bytes) -> list[Change]:
        """Return the paths that differ between two trees (raw ids; ``None`` is the empty tree), sorted.

        Raises ``KeyError`` when an object is missing from the repository.
        """
        changes: list[Change] = []
        if old_tree is None:
            self._expand(new_tree, b"", changes, new_side=True)
        else:
            self._diff(old_tree, new_tree, b"", changes)
        changes.sort()
        return changes

    def _entries(self, tree: bytes) -> frozenset[bytes]:
        entries = self._cache.get(tree)
        if entries is None:
            kind, data = self._odb.read(pygit2.Oid(raw=tree))
            if kind != pygit2.enums.ObjectType.TREE:
                raise KeyError(f"object {tree.hex()} is not a tree")
            entries = frozenset(_ENTRY.findall(data))
            if len(self._cache) >= _TREE_CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[tree] = entries
        return entries

    def _diff(self, old_tree: bytes, new_tree: bytes, prefix: bytes, changes: list[Change]) -> None:
        old, new = self._entries(old_tree), self._entries(new_tree)
        gone: dict[bytes, tuple[int, bytes]] = {}
        for entry in old - new:
            name, mode, oid = _split(entry)
            gone[name] = (mode, oid)
        for entry in new - old:
            name, mode, oid = _split(entry)
            before = gone.pop(name, None)
            if before is None:
                self._added_or_removed(prefix + name, mode, oid, changes, new_side=True)
            elif before[0] == TREE and mode == TREE:
                self._diff(before[1], oid, prefix + name + b"/", changes)
            elif before[0] == TREE or mode == TREE:  # a directory became a file or the reverse
                self._added_or_removed(prefix + name, before[0], before[1], changes, new_side=False)
                self._added_or_removed(prefix + name, mode, oid, changes, new_side=True)
            else:
                changes.append(Change(prefix + name, before[0], before[1], mode, oid))
        for name, (mode, oid) in gone.items():
            self._added_or_removed(prefix + name, mode, oid, changes, new_side=False)

    def _added_or_removed(self, path: bytes, mode: int, oid: bytes, changes: list[Change], new_side: bool) -> None:
        if mode == TREE:
            self._expand(oid, path + b"/", changes, new_side)
        elif new_side:
            changes.append(Change(path, 0, None, mode, oid))
        else:
            changes.append(Change(path, mode, oid, 0, None))

    def _expand(self, tree: bytes, prefix: bytes, changes: list[Change], new_side: bool) -> None:
        for entry in self._entries(tree):
            name, mode, oid = _split(entry)
            self._added_or_removed(prefix + name, mode, oid, changes, new_side)


def _split(entry: bytes) -> tuple[bytes, int, bytes]:
    """Return (name, mode, raw object id) of one raw tree entry ``b"<octal mode> <name>\\0<20 bytes>"``."""
    space = entry.index(b" ")
    mode = int(entry[:space], 8)
    if mode & TYPE_MASK == TREE:
        mode = TREE
    return entry[space + 1 : -21], mode, entry[-20:]


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


class BlobReader:
    """Reads blobs, keeping the last few: a commit's old file is often the next commit's new one."""

    def __init__(self, repo: pygit2.Repository, keep: int = 8, largest: int = 1 << 20) -> None:
        self._read = repo.odb.read
        self._keep = keep
        self._largest = largest
        self._cache: dict[bytes, bytes] = {}

    def read(self, oid: bytes) -> bytes:
        """Return the content of the blob ``oid`` (raw id); raises ``KeyError`` when it is missing."""
        data = self._cache.get(oid)
        if data is None:
            data = bytes(self._read(pygit2.Oid(raw=oid))[1])
            if len(data) <= self._largest:
                if len(self._cache) >= self._keep:
                    del self._cache[next(iter(self._cache))]
                self._cache[oid] = data
        return data
