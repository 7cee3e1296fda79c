"""Which repository a gold-set case searches: its ``repo`` resolved against the file, a map, or the file's own."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pytest_codesearch.repo.snapshot import find_repository

Resolved = tuple[Path | None, str | None]
"""The repository directory, or None and an error naming the ``repo`` field and what it resolved to."""


def resolve_repo(repo: str, goldset: Path, repos: Mapping[str, Path] | None = None) -> Resolved:
    """Return the directory ``repo`` names, or None and why: ``repos[repo]`` if mapped, else a path.

    A path is relative to the directory of ``goldset``; ``~`` is expanded and an absolute path is
    taken as it is. The directory must exist.
    """
    mapped = (repos or {}).get(repo)
    path = (goldset.parent / os.path.expanduser(repo) if mapped is None else mapped).resolve()
    if not path.is_dir():
        via = "" if mapped is None else " through the repository map"
        return None, f"repo: {repo!r} (resolved{via} to {path}) is not a directory"
    return path, None


def default_repo(goldset: Path, repo: str | None, display: str, repos: Mapping[str, Path] | None = None) -> Resolved:
    """Return the repository of cases without their own ``repo``, or None and why.

    That is the metadata's ``repo`` (resolved as by ``resolve_repo``), else the git repository holding
    ``goldset``; ``display`` is how errors name the gold-set file.
    """
    if repo is not None:
        return resolve_repo(repo, goldset, repos)
    found = find_repository(goldset.parent)
    if found is None:
        error = (
            f"{display}: no 'repo' given and the file is not inside a git repository; "
            "set 'repo' in the case or the metadata"
        )
        return None, error
    return found, None
