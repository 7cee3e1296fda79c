"""Remote repositories: cloned once (bare, with pygit2) into a cache shared by processes, fetched on demand.

A case names a remote repository as ``owner/name`` (GitHub) or as a URL (``https://``, ``ssh://``,
``git@host:path``, ``file://``). ``RemoteCache.ensure`` returns the local bare clone, cloning it the first
time and fetching when a wanted commit is missing::

    cache = RemoteCache(Path("~/.cache/pytest-codesearch/repos").expanduser())
    path = cache.ensure("psf/requests", "0a1b2c3d...")     # raises RemoteError with a message to act on

Processes share the cache safely (xdist workers, several runs): a clone is made in a temporary directory
beside its final place and renamed into it, so nobody sees half a clone; clones and fetches of one
repository are serialised by a lock file (``<name>.lock``, ``fcntl.flock``), so the network is used once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2

_OWNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
_FETCH_SPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
_HINT = "or map it to a local clone with --codesearch-repo-map {repo}=/path/to/clone"


class RemoteError(Exception):
    """A remote repository, commit or object that cannot be had; str() says which and what to do."""


def default_cache_dir() -> Path:
    """Return ``$XDG_CACHE_HOME/pytest-codesearch/repos`` (``~/.cache/...`` when the variable is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pytest-codesearch" / "repos"


def is_remote(repo: str) -> bool:
    """Return True when ``repo`` names a remote repository: a URL, or ``owner/name``."""
    return bool(_URL.match(repo) or _OWNER_NAME.match(repo))


_GITHUB = re.compile(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def portable_name(url: str) -> str | None:
    """Return how a gold set names a repository cloned from ``url`` on any machine: ``owner/name`` for
    GitHub, the URL for another host; None for a local path or a ``file://`` URL (it names this machine only).

    ``https://github.com/pallets/flask.git`` and ``git@github.com:pallets/flask`` give ``pallets/flask``.
    """
    url = url.strip()
    if not _URL.match(url) or url.lower().startswith("file:"):
        return None
    found = _GITHUB.match(url)
    return f"{found.group(1)}/{found.group(2)}" if found else url


def remote_url(repo: str) -> str:
    """Return the URL to clone ``repo`` from: a URL as it is, ``owner/name`` on GitHub."""
    if _URL.match(repo):
        return repo
    return f"https://github.com/{repo.removesuffix('.git')}.git"


def cache_name(repo: str) -> str:
    """Return the directory name of ``repo``'s clone: readable, safe, and distinct per URL."""
    url = remote_url(repo)
    tail = "__".join(url.rstrip("/").removesuffix(".git").replace(":", "/").split("/")[-2:])
    safe = re.sub(r"[^\w.-]+", "_", tail, flags=re.ASCII).strip("._") or "repo"
    digest = hashlib.sha1(url.encode(), usedforsecurity=False).hexdigest()[:8]
    return f"{safe}-{digest}.git"


class RemoteCache:
    """Bare clones of remote repositories under ``root``, one directory each (see ``cache_name``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, repo: str) -> Path:
        """Return where the clone of ``repo`` lives (whether or not it exists yet)."""
        return self.root / cache_name(repo)

    def ensure(self, repo: str, commit: str | None = None) -> Path:
        """Return the bare clone of ``repo``, cloning it first and fetching if ``commit`` is missing.

        Raises ``RemoteError`` when the clone or fetch fails (network, no such repository) or when the
        commit is still missing after a fetch.
        """
        path = self.path_for(repo)
        if not path.is_dir():
            self._clone(repo, path)
        if commit is not None and not _has_commit(path, commit):
            self._fetch(repo, path, commit)
        return path

    def _clone(self, repo: str, path: Path) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with _locked(path):
            if path.is_dir():  # another process cloned it while this one waited
                return
            temp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=self.root))
            try:
                pygit2.clone_repository(remote_url(repo), str(temp / "clone"), bare=True)
                os.rename(temp / "clone", path)
            except (pygit2.GitError, KeyError, ValueError) as exc:
                raise RemoteError(
                    f"repo: cannot clone {repo!r} from {remote_url(repo)}: {exc}; check the network and the "
                    f"name, {_HINT.format(repo=repo)}"
                ) from None
            finally:
                shutil.rmtree(temp, ignore_errors=True)

    def _fetch(self, repo: str, path: Path, commit: str) -> None:
        with _locked(path):
            if _has_commit(path, commit):  # another process fetched it while this one waited
                return
            repository = pygit2.Repository(str(path))
            try:
                remote = repository.remotes["origin"]
                remote.fetch(_FETCH_SPECS)
            except (pygit2.GitError, KeyError) as exc:
                raise RemoteError(
                    f"base_commit: {commit[:12]} is not in the clone of {repo!r} and fetching it failed: {exc}; "
                    f"check the network, {_HINT.format(repo=repo)}"
                ) from None
        if not _has_commit(path, commit):
            raise RemoteError(
                f"base_commit: {commit!r} is not in {repo!r} ({remote_url(repo)}), even after a fetch; "
                "check the commit id"
            )


def _has_commit(path: Path, commit: str) -> bool:
    """Return True when the repository at ``path`` holds a commit that ``commit`` names."""
    try:
        repository = pygit2.Repository(str(path))
        repository.revparse_single(commit).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        return False
    return True


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` (created if needed) for the duration of the block."""
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
