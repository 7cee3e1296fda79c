"""Which agents a run has: the built-ins, those in conftest modules and plugins, entry points, the YAML
file's, and ``replay`` once it has predictions; and which of them the run selected."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from pytest_codesearch.agents.registry import (
    AgentChoice,
    AgentRegistry,
    AgentSelectionError,
    entry_point_specs,
    module_specs,
)
from pytest_codesearch.settings.model import Settings

if TYPE_CHECKING:
    from pytest_codesearch.settings.yamlfile import BenchFile


def choose_agents(
    config: pytest.Config, bench: BenchFile | None, settings: Settings
) -> tuple[AgentRegistry, list[AgentChoice]]:
    """Return every registered agent and the ones ``settings.agents`` names, each followed by its blind twin
    under ``--codesearch-blind``; a usage error otherwise."""
    registry = build_registry(config, bench)
    if settings.predictions is not None:  # the replay agent exists once it has predictions to replay
        from pytest_codesearch.agents.builtin.replay import replay_spec
        from pytest_codesearch.scoring.profiles import get_profile

        registry.add(replay_spec(settings.predictions, get_profile(settings.profile).truth))
    try:
        chosen = registry.select(settings.agents)
    except AgentSelectionError as exc:
        replay = "replay" in str(exc)
        needs = " (replay exists once --codesearch-predictions FILE gives it predictions)" if replay else ""
        raise pytest.UsageError(f"{exc}{needs}") from None
    return registry, chosen + ([choice.blinded() for choice in chosen] if settings.blind else [])


def build_registry(config: pytest.Config, bench: BenchFile | None) -> AgentRegistry:
    """Register the agents found in the built-ins, plugin modules, entry points and the YAML file.

    Each spec keeps where it was found (``AgentSpec.origin``): a child process imports that module again,
    loads that entry point, or calls that class, to register the agent by the same name.
    """
    from pytest_codesearch.agents.builtin import fixtures as builtin

    registry = AgentRegistry()
    for spec in module_specs(builtin):
        registry.add(spec)
    for plugin in config.pluginmanager.get_plugins():  # conftest modules, -p and entry-point plugins
        if isinstance(plugin, ModuleType) and plugin is not builtin:
            for spec in module_specs(plugin):
                registry.add(spec)
    specs, errors = entry_point_specs()
    if bench is not None:
        from pytest_codesearch.settings.yamlfile import ConfigError, config_agent_specs

        try:
            specs += config_agent_specs(bench, bench.shown)
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None
    for spec in specs:
        registry.add(spec)
    for message in errors:
        config.issue_config_time_warning(pytest.PytestConfigWarning(message), stacklevel=2)
    if registry.conflicts:
        raise pytest.UsageError("\n".join(registry.conflicts))
    return registry
