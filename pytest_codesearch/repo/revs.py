"""Turning a rev (hash, short hash, branch, tag, ``main~3``) into a commit, with a reason when it cannot."""

from __future__ import annotations

import pygit2


def peel_commit(repository: pygit2.Repository, rev: str) -> pygit2.Commit | str:
    """Return the commit ``rev`` names, or a short text saying why it names none."""
    try:
        found = repository.revparse_single(rev)
    except KeyError:
        return "no commit, branch or tag has that name"
    except (ValueError, pygit2.GitError) as exc:  # bad syntax or an ambiguous short hash
        return str(exc)
    try:
        commit: pygit2.Commit = found.peel(pygit2.Commit)
    except (ValueError, pygit2.GitError):
        return f"it names a {found.type_str}, not a commit"
    return commit
