"""The built-in agents' stores on disk, opened together: token counts, indexes (and function documents)
and embeddings under one cache directory, in whichever process runs the agents.

A run opens them in the pytest process and in each xdist worker (``session/setup.py``); an agent run in a
child process (``--codesearch-isolate``) opens them there too (``runner/child_main.py``), so an isolated
agent reads what a run before it stored instead of indexing every snapshot again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StoreRoots:
    """Where the stores live and their bound (picklable: it travels to an agent's child process)."""

    cache_dir: str
    cache_size: int | None


def use_stores(roots: StoreRoots) -> Callable[[], None]:
    """Open the token, index and embedding stores under ``roots``; return what puts the previous ones back."""
    from pytest_codesearch.agents.index.embedstore import use_embedding_store
    from pytest_codesearch.agents.index.indexstore import use_index_store
    from pytest_codesearch.agents.index.tokenstore import use_token_store

    cache_dir = Path(roots.cache_dir)
    restores = [
        use_token_store(cache_dir, roots.cache_size),
        use_index_store(cache_dir, roots.cache_size),
        use_embedding_store(cache_dir / "embeddings", roots.cache_size),
    ]

    def restore() -> None:
        for undo in reversed(restores):
            undo()

    return restore
