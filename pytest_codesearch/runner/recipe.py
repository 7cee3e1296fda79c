"""How an agent is rebuilt in a child process: registered again by its name, never pickled.

The registry records where it found each agent (``AgentSpec.origin``). The child registers it again
from there and calls its factory, so an agent made by a helper (a closure, ``agent("x", make(...))``)
is rebuilt as well as a module-level one:

- a module pytest loaded (a ``conftest.py``, a plugin module, the built-ins): imported again under the
  name pytest gave it, from the same file (``reimport.py``); the agent is looked up by name among those
  it registers;
- an entry point of ``pytest_codesearch.agents``: loaded again by its name;
- a class with keyword arguments (a YAML ``agents:`` entry, ``replay``): called again.

A parametrized agent takes its parameter again by index from the rebuilt spec, so the parameter need
not be picklable. The factory gets a ``DetachedRequest``; one that needs the pytest session (a fixture
in its signature, ``request.getfixturevalue``, ``request.config``) cannot be rebuilt: ``recipe_for``
raises ``NotRebuildable`` for the first kind, the child reports ``NeedsSession`` for the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_codesearch.agents.index.stores import StoreRoots
from pytest_codesearch.agents.factory import DetachedRequest, create_agent, fixture_names, refuse_fixture
from pytest_codesearch.agents.registry import (
    AgentChoice,
    AgentOrigin,
    AgentSpec,
    ClassOrigin,
    EntryPointOrigin,
    ModuleOrigin,
    class_spec,
    entry_point_specs,
    specs_in,
)
from pytest_codesearch.runner.reimport import import_as


class NotRebuildable(Exception):
    """An agent that cannot be rebuilt in a child process; str() names it and says why (``reason``)."""

    def __init__(self, agent: str, reason: str) -> None:
        super().__init__(f"agent {agent!r} cannot run in a child process: {reason}")
        self.agent = agent
        self.reason = reason


@dataclass(frozen=True)
class AgentRecipe:
    """Everything a child needs to build the agent again (picklable: strings and plain data only)."""

    agent: str
    """The agent as benchmarked, with its parameter id: ``grid[app]``."""
    spec_name: str
    param_index: int | None
    origin: AgentOrigin
    stores: StoreRoots | None = None
    """The built-in agents' stores the child opens, so an isolated agent reuses what runs stored."""


def session_only(need: str) -> str:
    """Return why an agent must run in the pytest process: its factory ``need`` (``uses request.config``)."""
    return f"its factory {need}, which exists only in the pytest session"


def recipe_for(choice: AgentChoice, stores: StoreRoots | None = None) -> AgentRecipe:
    """Return the recipe of ``choice`` (its child opening ``stores``), or raise ``NotRebuildable`` saying why
    there is none."""
    needed = fixture_names(choice.spec.factory)
    if needed:
        fixtures = f"fixture{'s' if len(needed) > 1 else ''} {', '.join(needed)}"
        raise NotRebuildable(choice.name, session_only(f"asks for the {fixtures}"))
    if choice.spec.origin is None:
        unknown = "it was not registered by a module, an entry point or the YAML config, so a child cannot find it"
        raise NotRebuildable(choice.name, unknown)
    return AgentRecipe(choice.registered_name, choice.spec.name, choice.param_index, choice.spec.origin, stores)


def build_agent(recipe: AgentRecipe) -> tuple[Any, list[Iterator[Any]]]:
    """Build the agent ``recipe`` describes (in the child process); return it and its generator teardowns.

    Raises ``NeedsSession`` when the factory reaches for the pytest session.
    """
    spec = registered_spec(recipe.origin, recipe.spec_name)
    choices = spec.choices()
    index = recipe.param_index or 0
    if index >= len(choices) or choices[index].name != recipe.agent:
        names = ", ".join(c.name for c in choices)
        raise LookupError(
            f"agent {recipe.agent!r} is registered differently in a child process ({names}): its parameters "
            "must be the same each time its module is imported"
        )
    generators: list[Iterator[Any]] = []
    return create_agent(choices[index], DetachedRequest(), refuse_fixture, generators), generators


def registered_spec(origin: AgentOrigin, name: str) -> AgentSpec:
    """Register the agent ``name`` again from ``origin`` and return its spec."""
    if isinstance(origin, ClassOrigin):
        module, _, qualname = origin.target.partition(":")
        cls = _attribute(importlib.import_module(module), qualname)
        return class_spec(name, cls, origin.kwargs, origin.target)
    if isinstance(origin, EntryPointOrigin):
        specs, errors = entry_point_specs(origin.name)
        if errors:
            raise ImportError(errors[0])
        found = specs
    else:
        found = specs_in(vars(import_as(origin.module, origin.file)))
    spec = next((s for s in found if s.name == name), None)
    if spec is None:
        raise LookupError(f"agent {name!r} is not registered when {_described(origin)} is imported in a child process")
    return spec


def _described(origin: AgentOrigin) -> str:
    if isinstance(origin, ModuleOrigin):
        return f"{origin.file or origin.module}"
    if isinstance(origin, EntryPointOrigin):
        return f"the entry point {origin.name}"
    return origin.target


def _attribute(module: Any, qualname: str) -> Any:
    value = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value
