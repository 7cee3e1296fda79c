"""The agents of one process: created on first use, each behind a runner, torn down at the session's end."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pytest_codesearch.agents.adapter import adapt_agent
from pytest_codesearch.agents.contract import ContractError
from pytest_codesearch.agents.registry import AgentChoice, call_factory
from pytest_codesearch.runner.base import AgentRunner
from pytest_codesearch.runner.inprocess import InProcessRunner

_NO_PARAM = object()


class AgentRequest:
    """The ``request`` an agent factory receives: the session's request plus ``param``."""

    def __init__(self, request: Any, param: Any = _NO_PARAM) -> None:
        self._request = request
        if param is not _NO_PARAM:
            self.param = param

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


class _Unavailable(Exception):
    """The factory asked for something only a running session has: check it when its first case runs."""


class _CheckRequest:
    """The ``request`` a factory gets while it is checked at session start: ``config`` and nothing more."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def getfixturevalue(self, name: str) -> Any:
        """Refuse: fixtures exist only once the session runs."""
        raise _Unavailable(name)

    def __getattr__(self, name: str) -> Any:
        if name == "param":
            raise AttributeError(name)
        raise _Unavailable(name)


class AgentPool:
    """Creates each agent once per process, behind the runner its isolation level asks for."""

    def __init__(self, request: Any, fixture: Callable[[str], Any], isolate: str = "none") -> None:
        """``isolate`` is the ``--codesearch-isolate`` level as ``Settings.isolation`` resolves it:
        ``none`` (this process), ``process`` (a child process), or ``auto`` (a child process for
        agents that can be rebuilt there, this process for the others)."""
        self._request = request
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
            from pytest_codesearch.runner.recipe import NotRebuildable, recipe_for

            try:
                return ProcessRunner(choice.name, recipe_for(choice))
            except NotRebuildable:
                if self._isolate == "process":
                    raise  # the session-start check said so already; auto falls back to this process
        agent = create_agent(choice, self._request, self._fixture, self._generators)
        return InProcessRunner(choice.name, adapt_agent(choice.name, agent))

    def close(self) -> None:
        """Close the runners, then run generator teardowns (last created first)."""
        for runner in self._runners.values():
            runner.close()
        close_generators(self._generators)


def create_agent(choice: AgentChoice, request: Any, fixture: Callable[[str], Any], generators: list[Iterator[Any]]) -> Any:
    """Call the agent's factory (with its param); a generator factory's teardown joins ``generators``."""
    param = _NO_PARAM if choice.param_index is None else choice.param
    made = call_factory(choice.spec.factory, AgentRequest(request, param), fixture)
    if inspect.isgenerator(made):
        agent = next(made)
        generators.append(made)
        return agent
    return made


def close_generators(generators: list[Iterator[Any]]) -> None:
    """Resume each generator factory once, last created first, so that its teardown runs."""
    while generators:
        generator = generators.pop()
        try:
            next(generator)
        except StopIteration:
            pass
        else:
            raise RuntimeError(f"agent fixture {generator!r} yielded more than once")


def isolation_problems(choices: Sequence[AgentChoice], isolate: str) -> tuple[list[str], list[str]]:
    """Return (errors, notes) about running ``choices`` in child processes at isolation level ``isolate``.

    With ``process`` an agent that cannot be rebuilt in a child is an error; with ``auto`` it runs in
    this process instead, and a note says so.
    """
    if isolate not in ("process", "auto"):
        return [], []
    from pytest_codesearch.runner.recipe import NotRebuildable, recipe_for

    errors: list[str] = []
    notes: list[str] = []
    for choice in choices:
        try:
            recipe_for(choice)
        except NotRebuildable as exc:
            if isolate == "process":
                errors.append(str(exc))
            else:
                notes.append(f"{exc}; it runs in this process, where its budget is soft")
    return errors, notes


def check_agents(choices: Sequence[AgentChoice], config: Any) -> list[str]:
    """Build each agent whose factory needs no fixture, check its contract, tear it down; return problems.

    One message per agent that cannot be built: a factory that raises (a wrong keyword in the YAML
    config, a missing import) or returns an object that breaks the contract (no ``reset``). A factory
    gets a ``request`` with ``config`` (and ``param``); one that asks for fixtures or anything else of
    a running session is checked when its first case runs instead. Building should be cheap: the
    expensive work belongs in ``initialize``.
    """
    problems: list[str] = []
    for choice in choices:
        if _needs_fixtures(choice.spec.factory):
            continue
        generators: list[Iterator[Any]] = []
        try:
            adapt_agent(choice.name, create_agent(choice, _CheckRequest(config), _no_fixture, generators)).close()
            close_generators(generators)
        except _Unavailable:
            continue
        except ContractError as exc:
            problems.append(f"agent {choice.name!r} cannot be used: {exc}")
        except Exception as exc:  # the factory's own error: say what it was
            where = getattr(choice.spec, "source", "") or "its factory"
            problems.append(f"agent {choice.name!r} cannot be built ({where}): {type(exc).__name__}: {exc}")
    return problems


def _needs_fixtures(factory: Callable[..., Any]) -> bool:
    """Return True when the factory's signature names a fixture other than ``request``."""
    if isinstance(factory, type):
        return False
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return any(
        name != "request" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
        for name, p in parameters.items()
    )


def _no_fixture(name: str) -> Any:
    raise _Unavailable(name)
