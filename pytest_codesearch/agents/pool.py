"""The agents of one process: created on first use, kept for the session, torn down at its end."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from pytest_codesearch.agents.adapter import AgentHandle, adapt_agent
from pytest_codesearch.agents.registry import AgentChoice, call_factory

_NO_PARAM = object()


class AgentRequest:
    """The ``request`` an agent factory receives: the session's request plus ``param``."""

    def __init__(self, request: Any, param: Any = _NO_PARAM) -> None:
        self._request = request
        if param is not _NO_PARAM:
            self.param = param

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


class AgentPool:
    """Creates each agent once per process and remembers which snapshot it last indexed."""

    def __init__(self, request: Any, fixture: Callable[[str], Any]) -> None:
        self._request = request
        self._fixture = fixture
        self._handles: dict[str, AgentHandle] = {}
        self._generators: list[Iterator[Any]] = []
        self._indexed: dict[str, tuple[str, float]] = {}

    def get(self, choice: AgentChoice) -> AgentHandle:
        """Return the handle for ``choice``, creating the agent on first use."""
        handle = self._handles.get(choice.name)
        if handle is None:
            handle = adapt_agent(choice.name, self._create(choice))
            self._handles[choice.name] = handle
        return handle

    def _create(self, choice: AgentChoice) -> Any:
        param = _NO_PARAM if choice.param_index is None else choice.param
        made = call_factory(choice.spec.factory, AgentRequest(self._request, param), self._fixture)
        if inspect.isgenerator(made):
            agent = next(made)
            self._generators.append(made)
            return agent
        return made

    def indexed(self, agent_name: str) -> tuple[str, float] | None:
        """Return (snapshot root, index ms) of the agent's current index, or None."""
        return self._indexed.get(agent_name)

    def mark_indexed(self, agent_name: str, root: str, index_ms: float) -> None:
        """Record that the agent now holds an index of ``root``."""
        self._indexed[agent_name] = (root, index_ms)

    def forget_index(self, agent_name: str) -> None:
        """Forget the agent's index, so the next case initializes it again."""
        self._indexed.pop(agent_name, None)

    def close(self) -> None:
        """Run generator teardowns (last created first) and close async loops."""
        for handle in self._handles.values():
            handle.close()
        while self._generators:
            generator = self._generators.pop()
            try:
                next(generator)
            except StopIteration:
                pass
            else:
                raise RuntimeError(f"agent fixture {generator!r} yielded more than once")
