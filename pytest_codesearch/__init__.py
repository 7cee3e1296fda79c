"""pytest-codesearch: benchmark code-search agents as pytest items, scored like trec_eval.

The public API an agent author needs::

    import pytest_codesearch as pcs

    @pcs.agent(name="my-agent")
    def my_agent(request):
        return MyAgent()          # initialize(repo_path), retrieve(query), reset()
"""

from __future__ import annotations

from pytest_codesearch.agents.contract import NonRetryableError, RetrievalAgent, RetrievalResult, Span
from pytest_codesearch.agents.registry import agent
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codesearch.goldset.model import GoldSet, GoldSetMetadata, GroundTruthFile, TestCase
    from pytest_codesearch.repo.reader import SnapshotFile, SnapshotView

_GOLDSET_MODELS = ("GoldSet", "GoldSetMetadata", "GroundTruthFile", "TestCase")
_SNAPSHOT_TYPES = ("SnapshotFile", "SnapshotView")

__all__ = [
    "GoldSet",
    "GoldSetMetadata",
    "GroundTruthFile",
    "NonRetryableError",
    "RetrievalAgent",
    "RetrievalResult",
    "SnapshotFile",
    "SnapshotView",
    "Span",
    "TestCase",
    "agent",
]



def __getattr__(name: str) -> Any:
    """Import the gold-set models (pydantic) and snapshot types (pygit2) on first use: loading the plugin stays cheap."""
    if name in _GOLDSET_MODELS:
        from pytest_codesearch.goldset import model

        return getattr(model, name)
    if name in _SNAPSHOT_TYPES:
        from pytest_codesearch.repo import reader

        return getattr(reader, name)
    raise AttributeError(f"module 'pytest_codesearch' has no attribute {name!r}")


try:
    from importlib.metadata import version as _version

    __version__ = _version("pytest-codesearch")
except Exception:  # pragma: no cover - running from a source tree that is not installed
    __version__ = "0+unknown"
