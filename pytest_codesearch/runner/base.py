"""The agent-runner interface and the ways an agent can fail to answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pytest_codesearch.agents.contract import RetrievalResult

if TYPE_CHECKING:
    from pytest_codesearch.agents.builtin.sanity import CaseInfo
    from pytest_codesearch.repo.snapshot import Snapshot


class AgentError(Exception):
    """The agent's own code raised; ``__cause__`` holds its exception and traceback."""


class AgentTimeout(Exception):
    """The agent did not finish ``initialize`` or ``retrieve`` within its budget; str() says which."""


class AgentCrashed(Exception):
    """The process running the agent died; str() gives its exit code or signal."""


@dataclass(frozen=True)
class Prepared:
    """The agent's index of a snapshot: how long ``initialize`` took, and whether this call ran it."""

    index_ms: float
    indexed: bool


@dataclass(frozen=True)
class Answers:
    """The timed runs of one query: each answer (already checked against the contract) and its latency."""

    results: list[RetrievalResult]
    latencies_ms: list[float]


class AgentRunner(Protocol):
    """Runs one agent: ``prepare`` a snapshot, ``answer`` queries, ``close`` at the end of the session.

    Timing happens inside the runner, around the agent's call alone. Budgets are seconds (None: no
    limit); a runner that cannot stop the agent in time raises ``AgentTimeout`` as soon as it can.
    ``AgentError`` wraps what the agent raised, ``ContractError`` an answer of the wrong shape.
    """

    name: str
    needs_directory: bool
    """False when the agent reads the snapshot without a directory on disk (the built-ins)."""

    def prepare(self, snapshot: Snapshot, budget_s: float | None) -> Prepared:
        """Have the agent index ``snapshot`` unless its current index is of that snapshot."""

    def observe(self, case: CaseInfo) -> None:
        """Hand a built-in sanity agent the case it is about to answer (a no-op for others)."""

    def answer(self, query: str, runs: int, budget_s: float | None, warmup: int = 0) -> Answers:
        """Return ``runs`` timed answers to ``query``, ``reset()`` before each; each run has the budget.

        ``warmup`` untimed runs (each after ``reset()`` too) come first; their answers are not kept.
        """

    def close(self) -> None:
        """Release the agent (its event loop, its process)."""
