"""Where agents come from: the ``agent`` decorator, conftest modules, built-ins and entry points.

The registry records where it found each agent (``AgentSpec.origin``), so that a child process can
register it again by the same name (``runner/recipe.py``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any, TypeAlias, TypeVar

import pytest

ENTRY_POINT_GROUP = "pytest_codesearch.agents"
SPEC_ATTRIBUTE = "__codesearch_agent__"

F = TypeVar("F", bound=Callable[..., Any])


class AgentSelectionError(Exception):
    """An agent name that cannot be resolved; str() is the user-facing message."""


@dataclass(frozen=True)
class ModuleOrigin:
    """An agent found in a module pytest loaded (a conftest, a plugin, the built-ins): its name and file."""

    module: str
    file: str | None


@dataclass(frozen=True)
class EntryPointOrigin:
    """An agent an installed package registers as the entry point ``name`` of ``pytest_codesearch.agents``."""

    name: str


@dataclass(frozen=True, eq=False)
class ClassOrigin:
    """An agent made as ``Class(**kwargs)`` (a YAML ``agents:`` entry, ``replay``); ``target`` is ``module:Class``."""

    target: str
    kwargs: dict[str, Any]


AgentOrigin: TypeAlias = ModuleOrigin | EntryPointOrigin | ClassOrigin
"""Where an agent was registered: what a child process imports or calls to register it again."""


@dataclass(frozen=True)
class AgentSpec:
    """A registered agent factory: the function behind an ``@agent`` fixture, and where it was found."""

    name: str
    factory: Callable[..., Any]
    params: tuple[Any, ...] | None = None
    ids: tuple[str, ...] | None = None
    source: str = ""
    origin: AgentOrigin | None = field(default=None, compare=False)
    """None for a spec made by hand (outside a registry): it cannot be rebuilt in a child process."""

    def choices(self) -> list[AgentChoice]:
        """Return one benchmarked agent per parameter (or the single unparametrized one)."""
        if self.params is None:
            return [AgentChoice(self.name, self, None, None)]
        ids = self.ids or tuple(_param_id(p, i) for i, p in enumerate(self.params))
        return [
            AgentChoice(f"{self.name}[{ident}]", self, index, param)
            for index, (param, ident) in enumerate(zip(self.params, ids))
        ]


BLIND_SUFFIX = "-blind"
"""What ``--codesearch-blind`` appends to an agent's name for its twin that answers without the repository."""


@dataclass(frozen=True)
class AgentChoice:
    """One agent as benchmarked: a spec and, for a parametrized fixture, one of its params."""

    name: str
    spec: AgentSpec
    param_index: int | None
    param: Any = field(compare=False)
    blind: bool = False
    """``--codesearch-blind``'s twin: it answers with an empty repository (named ``NAME-blind``)."""

    def blinded(self) -> AgentChoice:
        """Return the twin of this agent that answers without the repository (``--codesearch-blind``)."""
        return AgentChoice(f"{self.name}{BLIND_SUFFIX}", self.spec, self.param_index, self.param, blind=True)

    @property
    def registered_name(self) -> str:
        """Return the name the agent is registered under (a blind twin's is its agent's)."""
        return self.name.removesuffix(BLIND_SUFFIX) if self.blind else self.name

    @property
    def param_repr(self) -> str | None:
        """Return the parameter as text for reports, or None."""
        return None if self.param_index is None else repr(self.param)


def agent(
    name: str | None = None,
    *,
    params: Iterable[Any] | None = None,
    ids: Iterable[str] | Callable[[Any], str | None] | None = None,
    scope: str = "function",
) -> Callable[[F], F]:
    """Return a decorator that registers a benchmark agent and makes it a pytest fixture.

    The decorated function may take ``request`` (``request.param`` is the parameter for a
    parametrized agent) and other session-scoped fixtures; it returns, or yields, an object with
    ``initialize``/``retrieve``/``reset`` or a plain callable ``query -> ranked paths``.

    >>> @agent(name="grep", params=[1, 2], ids=["a", "b"])   # doctest: +SKIP
    ... def grep_agent(request): return GrepAgent(request.param)
    """
    params_t = None if params is None else tuple(params)

    def decorate(function: F) -> F:
        agent_name = name or function.__name__
        _check_name(agent_name, function)
        spec = AgentSpec(
            name=agent_name,
            factory=function,
            params=params_t,
            ids=_resolve_ids(ids, params_t, agent_name),
            source=_source_of(function),
        )
        setattr(function, SPEC_ATTRIBUTE, spec)
        fixture_ids = list(spec.ids) if spec.ids is not None else None
        return pytest.fixture(function, scope=scope, params=params_t, ids=fixture_ids)  # type: ignore[call-overload, no-any-return]

    return decorate


AGENT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""An agent's name: ASCII letters, digits, ``-``, ``_`` and ``.`` (a parametrized agent adds ``[id]``);
nothing that means something in a node id, a shell, Markdown or HTML (issue 18 item 12)."""
PARAM_ID = re.compile(r"[\w.=,+-]+", re.ASCII)
"""A parameter id in ``name[id]``: ASCII letters, digits and ``_ . = , + -``."""


def _check_name(agent_name: str, function: Callable[..., Any]) -> None:
    if not AGENT_NAME.fullmatch(agent_name):
        raise ValueError(
            f"agent name {agent_name!r} of {function.__qualname__}: use only letters, digits, '-', '_' or '.'"
        )


def _check_ids(agent_name: str, ids: tuple[str, ...]) -> tuple[str, ...]:
    for ident in ids:
        if not PARAM_ID.fullmatch(ident):
            raise ValueError(
                f"agent {agent_name!r}: parameter id {ident!r}: use only letters, digits and '_', '.', '=', ',', '+', '-'"
            )
    return ids


def _resolve_ids(
    ids: Iterable[str] | Callable[[Any], str | None] | None,
    params: tuple[Any, ...] | None,
    agent_name: str,
) -> tuple[str, ...] | None:
    if params is None:
        if ids is not None:
            raise ValueError(f"agent {agent_name!r}: ids= given without params=")
        return None
    if ids is None:
        return None
    if callable(ids):
        made = [ids(p) for p in params]
        return _check_ids(
            agent_name, tuple(m if m is not None else _param_id(p, i) for i, (m, p) in enumerate(zip(made, params)))
        )
    given = tuple(str(i) for i in ids)
    if len(given) != len(params):
        raise ValueError(f"agent {agent_name!r}: {len(given)} ids for {len(params)} params")
    return _check_ids(agent_name, given)


def _param_id(param: Any, index: int) -> str:
    if isinstance(param, (str, int, float, bool)) or param is None:
        text = str(param)
        if PARAM_ID.fullmatch(text):
            return text
    return str(index)


def _source_of(function: Callable[..., Any]) -> str:
    try:
        path = inspect.getsourcefile(function) or "?"
        line = inspect.getsourcelines(function)[1]
    except (OSError, TypeError):
        return getattr(function, "__module__", "?")
    return f"{path}:{line}"


def specs_in(namespace: Mapping[str, Any]) -> list[AgentSpec]:
    """Return the agent specs defined in a module namespace (a conftest or plugin module)."""
    found = []
    for value in list(namespace.values()):
        spec = getattr(value, SPEC_ATTRIBUTE, None)
        if isinstance(spec, AgentSpec):
            found.append(spec)
    return found


def module_specs(module: ModuleType) -> list[AgentSpec]:
    """Return the agent specs a module registers (a conftest, a plugin module), each with its origin."""
    origin = ModuleOrigin(module.__name__, getattr(module, "__file__", None))
    return [replace(spec, origin=origin) for spec in specs_in(vars(module))]


def entry_point_specs(name: str | None = None) -> tuple[list[AgentSpec], list[str]]:
    """Return the agents installed packages register under ``pytest_codesearch.agents``, and load errors.

    An entry point names an ``@agent``-decorated function (its params are kept) or a plain factory:
    a class or a function returning an agent. Its entry-point name is the agent's name. ``name``
    loads that entry point alone.
    """
    specs: list[AgentSpec] = []
    errors: list[str] = []
    found = entry_points(group=ENTRY_POINT_GROUP)
    for ep in found if name is None else found.select(name=name):
        try:
            specs.append(_entry_point_spec(ep))
        except Exception as exc:  # a broken third-party package must not break the run
            errors.append(f"cannot load agent entry point {ep.name} = {ep.value}: {exc!r}")
    return specs, errors


def _entry_point_spec(ep: EntryPoint) -> AgentSpec:
    loaded = ep.load()
    spec = getattr(loaded, SPEC_ATTRIBUTE, None)
    source, origin = f"entry point {ep.value}", EntryPointOrigin(ep.name)
    if isinstance(spec, AgentSpec):
        return AgentSpec(ep.name, spec.factory, spec.params, spec.ids, source, origin)
    return AgentSpec(name=ep.name, factory=loaded, source=source, origin=origin)


class ClassFactory:
    """The factory of an agent made as ``cls(**kwargs)``: a YAML ``agents:`` entry, ``replay``."""

    def __init__(self, cls: Any, kwargs: dict[str, Any]) -> None:
        self.cls = cls
        self.kwargs = kwargs
        self.__name__ = getattr(cls, "__name__", "agent")

    def __call__(self) -> Any:
        """Return a new agent."""
        return self.cls(**self.kwargs)


def class_spec(name: str, cls: Any, kwargs: Mapping[str, Any], source: str) -> AgentSpec:
    """Return the spec of the agent ``cls(**kwargs)``, which a child process rebuilds from the same."""
    target = f"{cls.__module__}:{cls.__qualname__}"
    return AgentSpec(name, ClassFactory(cls, dict(kwargs)), source=source, origin=ClassOrigin(target, dict(kwargs)))


class AgentRegistry:
    """Every agent known to this pytest run, by name."""

    def __init__(self) -> None:
        self.specs: dict[str, AgentSpec] = {}
        self.conflicts: list[str] = []

    def add(self, spec: AgentSpec) -> None:
        """Register a spec; a second spec under the same name is recorded as a conflict."""
        known = self.specs.get(spec.name)
        if known is not None and known.factory is not spec.factory and known.source != spec.source:
            self.conflicts.append(
                f"agent {spec.name!r} is defined twice: {known.source} and {spec.source}; rename one"
            )
            return
        self.specs.setdefault(spec.name, spec)

    def select(self, requested: Sequence[str]) -> list[AgentChoice]:
        """Return the agents named on the command line, in order, without duplicates."""
        chosen: list[AgentChoice] = []
        for name in requested:
            for choice in self._expand(name):
                if choice not in chosen:
                    chosen.append(choice)
        return chosen

    def _expand(self, name: str) -> list[AgentChoice]:
        if name == "all":
            return [c for spec in self.specs.values() for c in spec.choices()]
        base = name.split("[", 1)[0]
        spec = self.specs.get(base)
        if spec is None:
            raise AgentSelectionError(f"unknown agent {name!r}; available agents: {self.describe()}")
        choices = spec.choices()
        if base == name:
            return choices
        picked = [c for c in choices if c.name == name]
        if not picked:
            names = ", ".join(c.name for c in choices)
            raise AgentSelectionError(f"unknown agent {name!r}; {base!r} offers: {names}")
        return picked

    def describe(self) -> str:
        """Return the available agent names, comma separated, for messages."""
        names = sorted(c.name for spec in self.specs.values() for c in spec.choices())
        return ", ".join(names) if names else "(none)"
