"""The agents of one process: created on first use, each behind a runner, torn down at the session's end."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pytest_codesearch.agents.adapter import adapt_agent
from pytest_codesearch.agents.contract import ContractError
from pytest_codesearch.agents.factory import (
    DetachedRequest,
    close_generators,
    create_agent,
    needs_session,
    refuse_fixture,
)
from pytest_codesearch.agents.index.stores import StoreRoots
from pytest_codesearch.agents.registry import AgentChoice
from pytest_codesearch.runner.base import AgentRunner
from pytest_codesearch.runner.inprocess import InProcessRunner
from pytest_codesearch.runner.recipe import NotRebuildable, recipe_for, session_only


class AgentPool:
    """Creates each agent once per process, behind the runner its isolation level asks for."""

    def __init__(
        self, request: Any, fixture: Callable[[str], Any], isolate: str = "none", stores: StoreRoots | None = None
    ) -> None:
        """``isolate`` is the ``--codesearch-isolate`` level as ``Settings.isolation`` resolves it:
        ``none`` (this process), ``process`` (a child process), or ``auto`` (a child process for
        agents that can be rebuilt there, this process for the others). ``stores``: the built-in agents'
        stores a child process opens (None: it opens none)."""
        self._request = request
        self._stores = stores
        self._fixture = fixture
        self._isolate = isolate
        self._runners: dict[str, AgentRunner] = {}
        self._generators: list[Iterator[Any]] = []

    def runner(self, choice: AgentChoice) -> AgentRunner:
        """Return the runner of ``choice``, creating the agent on first use."""
        runner = self._runners.get(choice.name)
        if runner is None:
            runner = self._runners[choice.name] = self._create_runner(choice)
        return runner

    def _create_runner(self, choice: AgentChoice) -> AgentRunner:
        if self._isolate in ("process", "auto"):
            from pytest_codesearch.runner.process import ProcessRunner

            try:
                return ProcessRunner(choice.name, recipe_for(choice, self._stores))
            except NotRebuildable:  # it needs the pytest session (the child may be the one to find out)
                if self._isolate == "process":
                    raise  # the session-start check said so already; auto falls back to this process
        agent = create_agent(choice, self._request, self._fixture, self._generators)
        return InProcessRunner(choice.name, adapt_agent(choice.name, agent))

    def close(self) -> None:
        """Close the runners, then run generator teardowns (last created first)."""
        for runner in self._runners.values():
            runner.close()
        close_generators(self._generators)


def check_agents(choices: Sequence[AgentChoice], isolate: str) -> tuple[list[str], list[str]]:
    """Build each agent as a child process would, check its contract, tear it down; return (problems, notes).

    A problem per agent that cannot be built: a factory that raises (a wrong keyword in the YAML config,
    a missing import) or returns an object that breaks the contract (no ``reset``). An agent whose
    factory needs the pytest session (a fixture in its signature, ``request.getfixturevalue``,
    ``request.config``) is checked when its first case runs instead, and runs in this process: at
    isolation level ``process`` that is a problem, at ``auto`` (a budget is set) a note. Building
    should be cheap: the expensive work belongs in ``initialize``.
    """
    problems: list[str] = []
    notes: list[str] = []
    for choice in choices:
        problem, bound = _check(choice)
        if problem is not None:
            problems.append(problem)
        elif bound is not None and isolate == "process":
            problems.append(f"{bound}; make it without the session, or run it in process: --codesearch-isolate=none")
        elif bound is not None and isolate == "auto":
            soft = "runs in the pytest process, where its budgets are soft"
            notes.append(f"agent {bound.agent!r} {soft}: {bound.reason}")
    return problems, notes


def _check(choice: AgentChoice) -> tuple[str | None, NotRebuildable | None]:
    """Return what is wrong with building ``choice`` outside the session, and why it must stay in session."""
    try:
        recipe_for(choice)
    except NotRebuildable as exc:  # a fixture in its signature: checked when its first case runs
        return None, exc
    generators: list[Iterator[Any]] = []
    try:
        adapt_agent(choice.name, create_agent(choice, DetachedRequest(), refuse_fixture, generators)).close()
        close_generators(generators)
    except ContractError as exc:
        return f"agent {choice.name!r} cannot be used: {exc}", None
    except Exception as exc:  # the factory's own error: say what it was
        need = needs_session(exc)
        if need is not None:
            return None, NotRebuildable(choice.name, session_only(str(need)))
        where = getattr(choice.spec, "source", "") or "its factory"
        return f"agent {choice.name!r} cannot be built ({where}): {type(exc).__name__}: {exc}", None
    return None, None
