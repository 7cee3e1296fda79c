"""The agents that ship with pytest-codesearch, registered like any user's."""

from __future__ import annotations

from pytest_codesearch.agents.bm25 import BM25Agent
from pytest_codesearch.agents.keyword import KeywordAgent
from pytest_codesearch.agents.registry import agent
from pytest_codesearch.agents.sanity import OracleAgent, RandomAgent


@agent(name="bm25")
def bm25_agent() -> BM25Agent:
    """BM25 (rank-bm25) over the snapshot's text files with a code-aware tokenizer."""
    return BM25Agent()


@agent(name="keyword")
def keyword_agent() -> KeywordAgent:
    """Grep-like baseline: files ranked by how often they contain the query's terms."""
    return KeywordAgent()


@agent(name="oracle")
def oracle_agent() -> OracleAgent:
    """Returns the ground truth: an upper bound that checks the scoring."""
    return OracleAgent()


@agent(name="random")
def random_agent() -> RandomAgent:
    """Returns seeded random files: the chance baseline."""
    return RandomAgent()
