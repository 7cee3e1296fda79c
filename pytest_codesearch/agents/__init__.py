"""Agents: the contract an agent author implements, the registry, and the harness's view of any agent.

``builtin/`` holds the agents that ship (search baselines, sanity checks, replay) and ``index/`` what
they index. The built-in agent classes are importable from here::

    from pytest_codesearch.agents import BM25Agent, HybridAgent
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codesearch.agents.builtin.bm25 import BM25Agent
    from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent
    from pytest_codesearch.agents.builtin.hybrid import HybridAgent
    from pytest_codesearch.agents.builtin.keyword import KeywordAgent
    from pytest_codesearch.agents.builtin.path import PathAgent
    from pytest_codesearch.agents.builtin.sanity import OracleAgent, RandomAgent

_BUILTIN = {
    "BM25Agent": "bm25",
    "EmbeddingAgent": "embedding",
    "HybridAgent": "hybrid",
    "KeywordAgent": "keyword",
    "PathAgent": "path",
    "OracleAgent": "sanity",
    "RandomAgent": "sanity",
}

__all__ = ["BM25Agent", "EmbeddingAgent", "HybridAgent", "KeywordAgent", "OracleAgent", "PathAgent", "RandomAgent"]


def __getattr__(name: str) -> Any:
    """Import a built-in agent class on first use: importing the package stays cheap."""
    module = _BUILTIN.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_codesearch.agents' has no attribute {name!r}")
    return getattr(importlib.import_module(f"pytest_codesearch.agents.builtin.{module}"), name)
