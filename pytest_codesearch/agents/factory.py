"""Calling an agent's factory: the ``request`` it gets (in a pytest session or outside one) and its teardown.

A factory is the function behind an ``@agent`` fixture, an entry point's class or function, or the
class of a YAML ``agents:`` entry. In the pytest process it gets the session's ``request`` (plus
``param``) and any fixture its signature names. Outside a session (a child process, or the check at
session start) it gets a ``DetachedRequest``: ``param`` and nothing else; reaching for the session
raises ``NeedsSession``, which tells the harness that this agent must stay in the pytest process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from pytest_codesearch.agents.registry import AgentChoice

NO_PARAM = object()
"""The ``param`` of an unparametrized agent: ``request.param`` is then missing, as in pytest."""


class NeedsSession(Exception):
    """A factory reached for the pytest session where there is none; str() says what it used.

    Not an ``AttributeError``: ``getattr(request, "config", None)`` must not quietly build another agent
    outside the session than inside it.
    """


def fixture_names(factory: Callable[..., Any]) -> list[str]:
    """Return the fixtures a factory's signature asks for besides ``request`` (required parameters only)."""
    if isinstance(factory, type):
        return []
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return []
    return [
        name for name, p in parameters.items()
        if name != "request" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
    ]


def call_factory(factory: Callable[..., Any], request: Any, fixture: Callable[[str], Any]) -> Any:
    """Call an agent factory, passing ``request`` and any other fixtures its signature names."""
    if isinstance(factory, type):
        return factory()
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return factory()
    kwargs = {
        pname: (request if pname == "request" else fixture(pname))
        for pname, p in parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
    }
    return factory(**kwargs)


class AgentRequest:
    """The ``request`` an agent factory receives in the session: the session's request plus ``param``."""

    def __init__(self, request: Any, param: Any = NO_PARAM) -> None:
        self._request = request
        if param is not NO_PARAM:
            self.param = param

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


class DetachedRequest:
    """The ``request`` a factory gets outside the pytest session: ``param`` (for a parametrized agent) only.

    Anything else of the session (``config``, ``node``, ``getfixturevalue(...)``) raises ``NeedsSession``.
    """

    def getfixturevalue(self, argname: str) -> Any:
        """Refuse: fixtures exist only in the pytest session."""
        raise NeedsSession(f"uses request.getfixturevalue({argname!r})")

    def __getattr__(self, name: str) -> Any:
        if name == "param" or name.startswith("__"):  # unparametrized, as in pytest; Python's own protocols
            raise AttributeError(name)
        raise NeedsSession(f"uses request.{name}")


def refuse_fixture(name: str) -> Any:
    """Stand in for the session's ``getfixturevalue`` outside a session: raise ``NeedsSession``."""
    raise NeedsSession(f"asks for the fixture {name}")


def needs_session(exc: BaseException) -> NeedsSession | None:
    """Return the ``NeedsSession`` behind ``exc`` (itself, or its cause or context), or None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, NeedsSession):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def create_agent(
    choice: AgentChoice, request: Any, fixture: Callable[[str], Any], generators: list[Iterator[Any]]
) -> Any:
    """Call the agent's factory (with its param); a generator factory's teardown joins ``generators``."""
    param = NO_PARAM if choice.param_index is None else choice.param
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
