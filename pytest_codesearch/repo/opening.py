"""Open the repository a case names and the commit it gives, with errors that say what to do.

The snapshot store (``snapshot.py``) calls these; every failure is a :class:`SnapshotError` whose text is
the user-facing message (not a git repository, another user's repository, a shallow clone, an unknown
revision).
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from pytest_codesearch.repo.revs import peel_commit


class SnapshotError(Exception):
    """A repository state that cannot be searched; str() is the user-facing message."""


def existing_directory(path: Path) -> Path:
    """Return ``path`` made absolute and resolved, or raise ``SnapshotError`` if it is no directory."""
    resolved = path.resolve()
    if not resolved.exists():
        raise SnapshotError(f"{resolved}: no such directory (check the case's repo path)")
    if not resolved.is_dir():
        raise SnapshotError(f"{resolved}: not a directory (repo must name a git repository or a directory)")
    return resolved


def open_repository(path: Path, rev: str) -> pygit2.Repository:
    """Open the repository whose work tree or git directory is exactly ``path``."""
    try:
        return pygit2.Repository(str(path), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except pygit2.GitError as exc:
        _raise_if_refused(path, exc)
        enclosing = find_repository(path)
        hint = f"; it lies inside the repository {enclosing}: name that as repo" if enclosing else ""
        raise SnapshotError(
            f"{path}: not a git repository, but the case gives base_commit {rev!r}{hint}"
            " (or drop base_commit to search the directory as it is)"
        ) from None


def _raise_if_refused(path: Path, exc: pygit2.GitError) -> None:
    """Raise a ``SnapshotError`` that explains git's ownership check if ``exc`` is that refusal."""
    if "owned" in str(exc) or "ownership" in str(exc):
        raise SnapshotError(
            f"{path}: git refuses to open this repository because another user owns it ({exc}). "
            f"If you trust it, run: git config --global --add safe.directory {path}"
        ) from None


def resolve_commit(repository: pygit2.Repository, path: Path, rev: str) -> pygit2.Commit:
    """Return the commit ``rev`` names (hash, short hash, branch, tag, ``HEAD~2``...)."""
    found = peel_commit(repository, rev)
    if not isinstance(found, str):
        return found
    problem = found
    if repository.is_shallow:
        advice = f"this is a shallow clone, so the commit may not be fetched yet: run git -C {path} fetch --unshallow"
    else:
        advice = "check the case's base_commit, or run git fetch if the commit is only on a remote"
    raise SnapshotError(f"{path}: unknown revision {rev!r}: {problem}; {advice}")


def is_git_directory(path: Path) -> bool:
    """Return whether ``path`` is itself a git directory (a bare repository or some ``.git``)."""
    try:
        found = pygit2.discover_repository(str(path))
    except pygit2.GitError:
        return False
    return found is not None and Path(found).resolve() == path


def find_repository(path: Path) -> Path | None:
    """Return the work-tree (or bare) directory of the git repository containing path, or None.

    A repository git refuses to open (another user owns it) is still found, from its git directory's
    location; opening it later raises the ``SnapshotError`` that explains the refusal.
    """
    try:
        git_dir = pygit2.discover_repository(str(path))
    except pygit2.GitError:
        return None
    if git_dir is None:
        return None
    try:
        repository = pygit2.Repository(git_dir)
    except pygit2.GitError:
        location = Path(git_dir)
        return (location.parent if location.name == ".git" else location).resolve()
    return Path(repository.workdir or repository.path).resolve()
