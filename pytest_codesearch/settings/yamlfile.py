"""The YAML benchmark file (``--codesearch-config``): option values, mining filters and agents.

Keys of ``dataset:``, ``evaluation:`` and ``output:`` that are options are checked by the option table
(``options.OPTIONS``) with the same parsers as the command line; the rest of ``dataset:`` are the miner's
filters (``FilterConfig``), and ``agents:`` defines agents. Only ``true`` and ``false`` are booleans and only
plain decimals are integers: YAML 1.1's ``yes``, ``on``, ``0123`` and ``1:30`` stay strings and are refused.
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_codesearch.agents.registry import AGENT_NAME, AgentSpec, class_spec
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.settings.options import BY_YAML
from pytest_codesearch.settings.types import Origin, SettingsError
from pytest_codesearch.settings.model import Given, Layer

SECTIONS = ("dataset", "evaluation", "agents", "output")


class ConfigError(ValueError):
    """A benchmark file that cannot be used; str() names the file, the line and the key."""


class AgentConfig(BaseModel):
    """One entry of ``agents:``: an agent made from a class, with no conftest needed."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    name: str = Field(description="Agent name, as given to --codesearch-agent.")
    class_: str = Field(alias="class", description="Dotted path: 'package.module:Class' or 'package.module.Class'.")
    config: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for the class.")


class _Agents(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    agents: list[AgentConfig] = Field(default_factory=list)


@dataclass(frozen=True)
class BenchFile:
    """A checked benchmark file: its option values (raw, with their origin), filters and agents."""

    path: Path
    shown: str
    """How errors name the file."""
    values: dict[str, Given]
    filters: FilterConfig
    agents: tuple[AgentConfig, ...]

    def layer(self) -> Layer:
        """Return the file's settings layer; the agents it defines are selected unless another source picks."""
        if not self.agents:
            return self.values
        names = Given([a.name for a in self.agents], Origin(f"{self.shown}: agents", self.path.parent, typed=True))
        return {**self.values, "agents": names}


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader resolving only true/false as booleans and plain decimals as integers (as YAML 1.2)."""


_BOOL, _INT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int"
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL, _INT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_StrictLoader.add_implicit_resolver(_INT, re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))


def load_benchfile(path: Path, shown: str | None = None) -> BenchFile:
    """Return the checked benchmark file at ``path``, or raise ConfigError naming file, line and key.

    ``shown`` is how errors name the file (default: ``path``). Every problem is reported, one per line.
    """
    shown = shown or str(path)
    root, data = _parse(path, shown)
    problems = [
        f"{shown}:{_line_of(root, (key,))}: {key}: unknown key{_hint(str(key), SECTIONS)}"
        for key in data if key not in SECTIONS
    ]  # fmt: skip
    values, dataset = _option_values(data, root, path, shown, problems)
    filters = _validate(FilterConfig, dataset, ("dataset",), shown, root, problems)
    agents = _validate(_Agents, {"agents": data.get("agents") or []}, (), shown, root, problems)
    if problems or not isinstance(filters, FilterConfig) or not isinstance(agents, _Agents):
        raise ConfigError("\n".join(problems))
    return BenchFile(path, shown, values, filters, tuple(agents.agents))


def _parse(path: Path, shown: str) -> tuple[yaml.Node | None, dict[Any, Any]]:
    """Return the file's root node (for line numbers) and its data, which must be a mapping."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown}: cannot read: {exc}") from None
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        data = None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{shown}:{mark.line + 1}" if mark is not None else shown
        raise ConfigError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()
    if data is None:
        return root, {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}:1: the file must be a mapping with keys {', '.join(SECTIONS)}")
    return root, data


def _option_values(
    data: dict[Any, Any], root: yaml.Node | None, path: Path, shown: str, problems: list[str]
) -> tuple[dict[str, Given], dict[str, Any]]:
    """Return the option values of the sections (checked by their row's type) and the other dataset keys."""
    values: dict[str, Given] = {}
    rest: dict[str, Any] = {}
    for section in ("dataset", "evaluation", "output"):
        body = data.get(section)
        if body is None:
            continue
        if not isinstance(body, dict):
            problems.append(f"{shown}:{_line_of(root, (section,))}: {section}: expected a mapping, got {body!r}")
            continue
        for key, value in body.items():
            option, line = BY_YAML.get(f"{section}.{key}"), _line_of(root, (section, key))
            if option is None and section == "dataset":
                rest[str(key)] = value
            elif option is None:
                known = [k.split(".", 1)[1] for k in BY_YAML if k.startswith(section + ".")]
                problems.append(f"{shown}:{line}: {section}.{key}: unknown key{_hint(str(key), known)}")
            elif value is not None:
                origin = Origin(f"{shown}:{line}: {section}.{key}", path.parent, typed=True)
                try:
                    option.type.parse(value, origin)
                except SettingsError as exc:
                    problems.append(str(exc))
                values[option.field] = Given(value, origin)
    return values, rest


def _validate(
    model: type[BaseModel], data: dict[str, Any], prefix: tuple[str, ...], shown: str, root: yaml.Node | None,
    problems: list[str],
) -> BaseModel | None:
    """Return ``model`` validated from ``data``, or None after adding one problem per error."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = (*prefix, *error["loc"])
            key = ".".join(map(str, loc)) or "(top level)"
            message = error["msg"]
            if error["type"] == "extra_forbidden":
                message = f"unknown key{_hint(str(loc[-1]), _known_keys(loc))}"
            line = _line_of(root, loc)
            problems.append(f"{shown}:{line}: {key}: {message}" if line else f"{shown}: {key}: {message}")
        return None


def _known_keys(loc: tuple[Any, ...]) -> list[str]:
    if loc[0] == "dataset":
        return [*(k.split(".", 1)[1] for k in BY_YAML if k.startswith("dataset.")), *FilterConfig.model_fields]
    return [f.alias or n for n, f in AgentConfig.model_fields.items()]


def _hint(key: str, known: Any) -> str:
    """Return ' (did you mean ...?); known keys: ...' for an unknown key."""
    known = sorted(known)
    close = difflib.get_close_matches(key, known, n=1)
    return (f" (did you mean {close[0]!r}?)" if close else "") + f"; known keys: {', '.join(known)}"


def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """Return the 1-based line of the YAML node at ``loc`` (or of its nearest parent)."""
    line = None if node is None else node.start_mark.line + 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            pair = next(
                ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)), None
            )
            if pair is None:
                return line
            line, node = pair[0].start_mark.line + 1, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def import_agent_class(agent: AgentConfig, source: str) -> Any:
    """Return the class an ``agents:`` entry names, or raise ConfigError saying why it cannot be imported."""
    dotted = agent.class_
    module_name, _, attribute = dotted.partition(":") if ":" in dotted else dotted.rpartition(".")
    if not module_name or not attribute:
        raise ConfigError(f"{source}: agents: {agent.name}: class {dotted!r} is not 'package.module:Class'")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{source}: agents: {agent.name}: cannot import {dotted!r}: {exc}") from None


def config_agent_specs(bench: BenchFile, source: str) -> list[AgentSpec]:
    """Return an agent spec per ``agents:`` entry; each creates ``Class(**config)`` (in a child process too)."""
    for entry in bench.agents:
        if not AGENT_NAME.fullmatch(entry.name):
            raise ConfigError(f"{source}: agents: name {entry.name!r}: use only letters, digits, '-', '_' or '.'")
    return [class_spec(entry.name, import_agent_class(entry, source), entry.config, source) for entry in bench.agents]
