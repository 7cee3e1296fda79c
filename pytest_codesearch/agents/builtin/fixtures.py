"""The agents that ship with pytest-codesearch, registered like any user's.

Each is unparametrized and runs with its defaults; a grid of parameters is one ``@agent(params=...)``
fixture in a conftest (``docs/agents.md``, "Tuning")::

    @agent(name="bm25-grid", params=[{"k1": 0.9, "b": 0.4}, {"path_weight": 8.0}], ids=["k1-0.9", "pw-8"])
    def bm25_grid(request):
        return BM25Agent(**request.param)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_codesearch.agents.registry import agent

if TYPE_CHECKING:
    from pytest_codesearch.agents.builtin.bm25 import BM25Agent
    from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent
    from pytest_codesearch.agents.builtin.hybrid import HybridAgent
    from pytest_codesearch.agents.builtin.keyword import KeywordAgent
    from pytest_codesearch.agents.builtin.path import PathAgent
    from pytest_codesearch.agents.builtin.sanity import OracleAgent, RandomAgent

# The agents' classes (numpy, the index) are imported when an agent is made: listing the built-ins,
# as the hint of a run without agents does, stays cheap.


@agent(name="bm25")
def bm25_agent() -> BM25Agent:
    """BM25 over each source file's text plus 2x BM25 over its path, code-aware tokens, tests left out."""
    from pytest_codesearch.agents.builtin.bm25 import BM25Agent

    return BM25Agent()


@agent(name="keyword")
def keyword_agent() -> KeywordAgent:
    """Grep-like baseline: files ranked by the rarity of the query's words they contain."""
    from pytest_codesearch.agents.builtin.keyword import KeywordAgent

    return KeywordAgent()


@agent(name="path")
def path_agent() -> PathAgent:
    """File paths only: paths, modules and file names the query mentions, then path words."""
    from pytest_codesearch.agents.builtin.path import PathAgent

    return PathAgent()


@agent(name="hybrid")
def hybrid_agent() -> HybridAgent:
    """Reciprocal rank fusion of bm25 and path."""
    from pytest_codesearch.agents.builtin.hybrid import HybridAgent

    return HybridAgent.of_names("bm25+path")


@agent(name="embedding")
def embedding_agent() -> EmbeddingAgent:
    """Cosine of all-MiniLM-L6-v2 (sentence-transformers) over chunks of source files: needs the embeddings extra."""
    from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent

    return EmbeddingAgent()


@agent(name="oracle")
def oracle_agent() -> OracleAgent:
    """Returns the ground truth: an upper bound that checks the scoring."""
    from pytest_codesearch.agents.builtin.sanity import OracleAgent

    return OracleAgent()


@agent(name="random")
def random_agent() -> RandomAgent:
    """Returns seeded random files: the chance baseline."""
    from pytest_codesearch.agents.builtin.sanity import RandomAgent

    return RandomAgent()

