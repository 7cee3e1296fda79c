"""How an agent is rebuilt in a child process: an importable factory, never a pickled object.

A recipe names where the factory lives: the file (or module) that defines an ``@pcs.agent`` fixture
and the agent's name there (a conftest.py is imported again by its path), an entry point's factory by
module and qualified name, or a YAML ``class:`` with its keyword config. A parametrized agent's
parameter is taken again from the rebuilt spec by its index, so it need not be picklable. A factory
that asks for fixtures other than ``request`` cannot be rebuilt: ``NotRebuildable`` says so and names
the fallback.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_codesearch.agents.registry import AgentChoice, specs_in


class NotRebuildable(Exception):
    """An agent that cannot be rebuilt in a child process; str() says why and what to do instead."""


@dataclass(frozen=True)
class AgentRecipe:
    """Everything a child needs to build the agent again (picklable: strings and plain data only)."""

    agent: str
    spec_name: str
    module: str
    qualname: str
    file: str | None
    param_index: int | None
    yaml_class: str | None = None
    yaml_kwargs: dict[str, Any] = field(default_factory=dict)


def recipe_for(choice: AgentChoice) -> AgentRecipe:
    """Return the recipe of ``choice``, or raise ``NotRebuildable`` naming the agent and the fallback."""
    factory = choice.spec.factory
    cls, kwargs = getattr(factory, "cls", None), getattr(factory, "kwargs", None)
    if cls is not None and isinstance(kwargs, dict):  # an ``agents:`` entry of the YAML config
        return AgentRecipe(choice.name, choice.spec.name, cls.__module__, cls.__qualname__, None, None,
                           yaml_class=f"{cls.__module__}:{cls.__qualname__}", yaml_kwargs=dict(kwargs))
    needed = _fixtures_named(factory)
    if needed:
        raise NotRebuildable(
            f"agent {choice.name!r} cannot run in a child process: its fixture asks for "
            f"{', '.join(needed)}, which exist only in the pytest session. Build it without fixtures "
            "(a class, a module:function, an entry point or a YAML 'class:'), or run it in process "
            "with --codesearch-isolate=none"
        )
    module = getattr(factory, "__module__", None) or ""
    qualname = getattr(factory, "__qualname__", None) or ""
    if "<locals>" in qualname or not qualname:
        raise NotRebuildable(
            f"agent {choice.name!r} cannot run in a child process: its factory {qualname or factory!r} is not "
            "importable (defined inside a function); define it at module level, or use --codesearch-isolate=none"
        )
    try:
        file = inspect.getsourcefile(factory)
    except TypeError:
        file = None
    return AgentRecipe(choice.name, choice.spec.name, module, qualname, file, choice.param_index)


def _fixtures_named(factory: Any) -> list[str]:
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


class ChildRequest:
    """The ``request`` a factory gets in a child process: ``param`` (for a parametrized agent) only."""

    def __init__(self, param: Any, has_param: bool) -> None:
        if has_param:
            self.param = param

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"request.{name} is not available when the agent runs in a child process")


def build_agent(recipe: AgentRecipe) -> Any:
    """Build the agent ``recipe`` describes (in the child process); generator factories are advanced once."""
    if recipe.yaml_class is not None:
        return _attribute(_import(recipe.module, None), recipe.qualname)(**recipe.yaml_kwargs)
    module = _import(recipe.module, recipe.file)
    spec = next((s for s in specs_in(vars(module)) if s.name == recipe.spec_name), None)
    factory = spec.factory if spec is not None else _attribute(module, recipe.qualname)
    if isinstance(factory, type):
        return factory()
    if recipe.param_index is not None and spec is not None and spec.params is not None:
        request = ChildRequest(spec.params[recipe.param_index], True)
    else:
        request = ChildRequest(None, False)
    takes_request = "request" in inspect.signature(factory).parameters
    made = factory(request) if takes_request else factory()
    return next(made) if inspect.isgenerator(made) else made


def _import(module: str, file: str | None) -> Any:
    """Import ``module`` by name, or from ``file`` (a conftest.py has no importable name of its own)."""
    if file is None or Path(file).name != "conftest.py":
        try:
            return importlib.import_module(module)
        except ImportError:
            if file is None:
                raise
    name = f"_codesearch_child_{abs(hash(file))}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    spec.loader.exec_module(loaded)
    return loaded


def _attribute(module: Any, qualname: str) -> Any:
    value = module
    for part in qualname.split("."):
        value = getattr(value, part)
    return value
