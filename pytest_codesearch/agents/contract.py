"""The agent contract: what a retrieval agent offers and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable


class Span(NamedTuple):
    """A range of lines in a file: 1-based, both ends inclusive."""

    path: str
    start_line: int
    end_line: int


@dataclass
class RetrievalResult:
    """What an agent answers for one query.

    ``files`` is the ranked answer (best first); everything else is optional. ``scores`` are the
    agent's own scores for ``files`` (same order), ``spans`` are line ranges it points at, ``symbols``
    are fully qualified names, ``metadata`` is free JSON-native data kept in the case record.
    """

    files: list[str]
    scores: list[float] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class RetrievalAgent(Protocol):
    """An agent the harness can benchmark.

    ``initialize`` is called with the directory of the repository state to search (once per state
    per process, timed as ``index_ms``); ``retrieve`` answers a query with a ``RetrievalResult`` or a
    ranked list of paths (it may be ``async``); ``reset`` drops per-query caches and runs before
    every timed run.
    """

    def initialize(self, repo_path: str) -> None:
        """Prepare to search the directory ``repo_path``."""

    def retrieve(self, query: str) -> RetrievalResult | list[str]:
        """Return the files that answer ``query``, best first."""

    def reset(self) -> None:
        """Forget any state carried over from the previous query."""


AGENT_METHODS = ("initialize", "retrieve", "reset")


class ContractError(TypeError):
    """An agent object that does not honour the contract."""


class NonRetryableError(Exception):
    """Raise it (or subclass it) from an agent for a failure ``--codesearch-retries`` must not retry.

    Any exception with ``codesearch_retryable = False`` (on its class or instance) counts the same.
    """

    codesearch_retryable = False
