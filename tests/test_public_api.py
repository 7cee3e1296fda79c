"""The import paths agent authors use keep working whatever the package's inner layout."""

from __future__ import annotations

import pytest_codesearch as pcs


def test_the_agent_decorator_and_contract_types_are_at_the_top() -> None:
    assert callable(pcs.agent)
    result = pcs.RetrievalResult(files=["a.py"])
    assert result.files == ["a.py"]
    assert {"GoldSet", "TestCase", "SnapshotView", "Span", "NonRetryableError"} <= set(pcs.__all__)
    assert pcs.TestCase.__name__ == "TestCase"


def test_builtin_agent_classes_import_from_the_agents_package_and_their_old_modules() -> None:
    from pytest_codesearch.agents import BM25Agent, HybridAgent, KeywordAgent, OracleAgent, PathAgent, RandomAgent
    from pytest_codesearch.agents.bm25 import BM25Agent as OldBM25
    from pytest_codesearch.agents.hybrid import HybridAgent as OldHybrid

    assert OldBM25 is BM25Agent and OldHybrid is HybridAgent
    names = {c.__name__ for c in (BM25Agent, HybridAgent, KeywordAgent, OracleAgent, PathAgent, RandomAgent)}
    assert names == {"BM25Agent", "HybridAgent", "KeywordAgent", "OracleAgent", "PathAgent", "RandomAgent"}
