"""Which repository a gold-set case searches: its ``repo`` resolved against the file, a map, a clone, or the file's own.

``repo`` is looked up in this order: the repository map (``--codesearch-repo-map owner/name=PATH``), a
directory relative to the gold-set file, and, when a ``RemoteCache`` is given and ``repo`` is ``owner/name``
or a URL, a bare clone in that cache (cloned on first use, fetched when ``commit`` is missing).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from pytest_codesearch.repo.remote import RemoteCache, RemoteError, is_remote
from pytest_codesearch.repo.snapshot import find_repository

Resolved = tuple[Path | None, str | None]
"""The repository directory, or None and an error naming the ``repo`` field and what it resolved to."""


def resolve_repo(
    repo: str,
    goldset: Path,
    repos: Mapping[str, Path] | None = None,
    *,
    remotes: RemoteCache | None = None,
    commit: str | None = None,
) -> Resolved:
    """Return the directory ``repo`` names, or None and why: ``repos[repo]`` if mapped, else a path,
    else (with ``remotes``) the cached clone of a remote ``repo``.

    A path is relative to the directory of ``goldset``; ``~`` is expanded and an absolute path is
    taken as it is. The directory must exist. A clone is made or fetched so that it holds ``commit``.
    """
    mapped = (repos or {}).get(repo)
    path = (goldset.parent / os.path.expanduser(repo) if mapped is None else mapped).resolve()
    if path.is_dir():
        return path, None
    if mapped is None and remotes is not None and is_remote(repo):
        try:
            return remotes.ensure(repo, commit), None
        except RemoteError as exc:
            return None, str(exc)
    via = "" if mapped is None else " through the repository map"
    return None, f"repo: {repo!r} (resolved{via} to {path}) is not a directory"


def default_repo(
    goldset: Path,
    repo: str | None,
    display: str,
    repos: Mapping[str, Path] | None = None,
    remotes: RemoteCache | None = None,
) -> Resolved:
    """Return the repository of cases without their own ``repo``, or None and why.

    That is the metadata's ``repo`` (resolved as by ``resolve_repo``), else the git repository holding
    ``goldset``; ``display`` is how errors name the gold-set file.
    """
    if repo is not None:
        return resolve_repo(repo, goldset, repos, remotes=remotes)
    found = find_repository(goldset.parent)
    if found is None:
        error = (
            f"{display}: no 'repo' given and the file is not inside a git repository; "
            "set 'repo' in the case or the metadata"
        )
        return None, error
    return found, None



@functools.lru_cache(maxsize=1024)
def outside_project(path: Path, project: Path) -> str | None:
    """Return why the resolved repository directory ``path`` may not be searched without
    ``--codesearch-allow-any-repo``, or None: it must be a git repository (its work tree or git directory)
    or lie inside ``project`` (the rootdir), so that a gold set cannot point agents at ``/etc``."""
    if path == project or path.is_relative_to(project) or find_repository(path) == path or _is_git_dir(path):
        return None
    return (
        f"{path} is neither a git repository nor inside the project {project}; to search it anyway, run with"
        " --codesearch-allow-any-repo"
    )


def _is_git_dir(path: Path) -> bool:
    """Return True when ``path`` is a git directory itself: a bare clone, also one without a ``config`` file,
    which libgit2 opens as if its parent were the work tree (mirrors copied without their config)."""
    import pygit2

    try:
        found = pygit2.discover_repository(str(path))
    except pygit2.GitError:
        return False
    return found is not None and Path(found).resolve() == path.resolve()


def confined(resolved: Resolved, project: Path | None) -> Resolved:
    """Return ``resolved``, or None and the refusal when its directory lies outside what ``project`` allows
    (``project`` None: any directory is allowed)."""
    path, error = resolved
    if path is None or project is None:
        return resolved
    refusal = outside_project(path, project)
    return (None, f"repo: {refusal}") if refusal is not None else (path, error)
