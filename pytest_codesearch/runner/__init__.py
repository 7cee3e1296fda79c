"""Agent runners: where an agent lives and is timed. ``evaluate_case`` talks to a runner, never to the agent.

``base.AgentRunner`` is the interface (prepare a snapshot, answer a query N timed times within a
budget, close); ``inprocess.InProcessRunner`` runs the agent in this process.
"""

from __future__ import annotations

from pytest_codesearch.runner.base import (
    AgentCrashed,
    AgentError,
    AgentRunner,
    AgentTimeout,
    Answers,
    Prepared,
)

__all__ = ["AgentCrashed", "AgentError", "AgentRunner", "AgentTimeout", "Answers", "Prepared"]
