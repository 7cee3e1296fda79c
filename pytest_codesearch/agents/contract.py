"""The agent contract: what a retrieval agent offers and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable


class Span(NamedTuple):
    """A range of lines in a file: 1-based, both ends inclusive."""

    path: str
    start_line: int
    end_line: int

UNORDERED = "unordered"
"""The ``metadata`` key an agent sets to true when its answer is an unordered set (a replayed patch):
metrics that read the answer's order are refused for it, set metrics apply."""


@dataclass
class RetrievalResult:
    """What an agent answers for one query.

    ``files`` is the ranked answer (best first); everything else is optional. ``scores`` are the
    agent's own scores for ``files`` (same order), ``spans`` are line ranges it points at, ``symbols``
    are fully qualified names, ``metadata`` is free JSON-native data kept in the case record.
    ``functions`` are ranked function-level entities, ``path.py:Qualified.name``; ``modules`` are
    ranked module-level entities, ``path.py:Name``, derived from ``functions`` when not given
    (``modules_of``).
    """

    files: list[str]
    scores: list[float] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    functions: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.modules and self.functions:
            self.modules = modules_of(self.functions)


def modules_of(functions: list[str]) -> list[str]:
    """Return the module-level entities of ranked ``functions``, in order of first appearance.

    Read from the names alone (``outline.modules.module_by_name``): ``path.py:Class.method`` ->
    ``path.py:Class``; a Go method (``cart.go:Cart.Add``) and every C and C++ name are modules themselves.
    When the harness scores an answer whose modules were derived so, it derives them again from the
    outline of each file at the case's snapshot, the rule patch-derived truth follows
    (``pytest_codesearch/outline/modules.py``). An entry without ``path:`` names no module and is skipped.
    """
    if not functions:
        return []
    from pytest_codesearch.outline.modules import modules_of_functions  # tree-sitter: not at plugin load

    return modules_of_functions(functions)


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
