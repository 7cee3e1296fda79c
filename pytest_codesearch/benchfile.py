"""The optional YAML benchmark config (``--codesearch-config``): dataset, evaluation, agents, output."""

from __future__ import annotations

import difflib
import importlib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_codesearch.agents.registry import AgentSpec
from pytest_codesearch.mining.filters import FilterConfig

Format = Literal["json", "csv", "markdown", "html"]


def _all_formats() -> list[Format]:
    return ["json", "csv", "markdown", "html"]


class ConfigError(ValueError):
    """A config file that cannot be used; str() names the file, the line and the key."""


class DatasetConfig(FilterConfig):
    """``dataset:``: which repository to mine, from which rev, into which file, with which filters."""

    repository: str | None = Field(default=None, description="Repository to mine (relative to the config file).")
    rev: str | None = Field(default=None, description="Rev whose history is mined (default HEAD).")
    output: str | None = Field(default=None, description="Gold-set file to write (relative to the config file).")


class EvaluationConfig(BaseModel):
    """``evaluation:``: how cases are run."""

    model_config = ConfigDict(extra="forbid", strict=True)

    runs: int | None = Field(default=None, ge=1, description="Timed runs of each retrieval.")
    timeout: float | None = Field(default=None, gt=0, description="Seconds one case may take (pytest-timeout).")
    seed: int | None = Field(default=None, ge=0, description="Seed of the run order and of the random agent.")
    randomize: bool = Field(default=True, description="Shuffle the run order; false keeps gold-set order.")
    ks: list[int] | None = Field(default=None, description="Cut-offs of the @k metrics.")
    k: int | None = Field(default=None, ge=1, description="Score set metrics over the top k only.")


class AgentConfig(BaseModel):
    """One entry of ``agents:``: an agent made from a class, with no conftest needed."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    name: str = Field(description="Agent name, as given to --codesearch-agent.")
    class_: str = Field(alias="class", description="Dotted path: 'package.module:Class' or 'package.module.Class'.")
    config: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for the class.")


class OutputConfig(BaseModel):
    """``output:``: where reports go and which ones."""

    model_config = ConfigDict(extra="forbid", strict=True)

    directory: str | None = Field(default=None, description="Report directory (relative to the config file).")
    formats: list[Format] = Field(default_factory=_all_formats, description="Report files to write.")


class BenchmarkConfig(BaseModel):
    """The whole config file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    dataset: DatasetConfig = Field(default_factory=DatasetConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)
    agents: list[AgentConfig] = Field(default_factory=list)
    output: OutputConfig = Field(default_factory=OutputConfig)


def load_config(path: Path) -> BenchmarkConfig:
    """Return the validated config in ``path``, or raise ConfigError naming file, line and key."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: the config must be a mapping with dataset/evaluation/agents/output")
    try:
        return BenchmarkConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(path, root, exc)) from None


def _describe(path: Path, root: yaml.Node | None, exc: ValidationError) -> str:
    """Return one line per problem: 'file:line: key.path: message'."""
    lines = []
    for error in exc.errors(include_url=False):
        loc = [str(p) for p in error["loc"]]
        key = ".".join(loc) or "(top level)"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = _unknown_key_message(loc, error)
        line = _line_of(root, error["loc"])
        lines.append(f"{path}:{line}: {key}: {message}" if line else f"{path}: {key}: {message}")
    return "\n".join(lines)


def _unknown_key_message(loc: list[str], error: Any) -> str:
    section: dict[str, type[BaseModel]] = {
        "dataset": DatasetConfig, "evaluation": EvaluationConfig, "output": OutputConfig, "agents": AgentConfig
    }
    model = section.get(loc[0], BenchmarkConfig) if len(loc) > 1 else BenchmarkConfig
    known = [f.alias or n for n, f in model.model_fields.items()]
    close = difflib.get_close_matches(loc[-1], known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key{hint}; known keys: {', '.join(sorted(known))}"


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


def config_settings(config: BenchmarkConfig, path: Path) -> dict[str, object]:
    """Return the run settings the config gives (paths made absolute against the config's folder)."""
    evaluation, output = config.evaluation, config.output
    values: dict[str, object] = {
        "agents": [a.name for a in config.agents],
        "seed": evaluation.seed,
        "runs": evaluation.runs,
        "k": evaluation.k,
        "ks": None if evaluation.ks is None else ",".join(map(str, evaluation.ks)),
        "timeout": evaluation.timeout,
        "randomize": None if evaluation.randomize else False,
        "formats": output.formats,
        "report_dir": None if output.directory is None else str(path.parent / output.directory),
    }
    return {k: v for k, v in values.items() if v is not None}


def config_agent_specs(config: BenchmarkConfig, source: str) -> list[AgentSpec]:
    """Return an agent spec per ``agents:`` entry; each creates ``Class(**config)``."""
    specs = []
    for entry in config.agents:
        cls = import_agent_class(entry, source)
        specs.append(AgentSpec(entry.name, _ConfiguredAgent(cls, dict(entry.config)), source=source))
    return specs


class _ConfiguredAgent:
    """Factory of an agent from the YAML config: the class called with its keyword config."""

    def __init__(self, cls: Any, kwargs: dict[str, Any]) -> None:
        self.cls = cls
        self.kwargs = kwargs
        self.__name__ = getattr(cls, "__name__", "agent")

    def __call__(self) -> Any:
        return self.cls(**self.kwargs)
