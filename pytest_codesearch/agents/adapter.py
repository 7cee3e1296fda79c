"""One face for every kind of agent: contract objects, plain callables, sync or async."""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Callable
from typing import Any

from pytest_codesearch.agents.contract import AGENT_METHODS, ContractError, RetrievalResult, Span


class AgentHandle:
    """An agent as the harness drives it: ``initialize``, ``retrieve`` and ``reset`` always exist.

    A plain callable is ``retrieve`` alone; one that ``takes_repo_path`` is called as
    ``agent(query, repo_path)`` with the directory its last ``initialize`` was given.
    """

    needs_directory: bool
    """Whether the agent may read its snapshot from the directory it is given: what the agent's own
    ``needs_directory`` says, else True, except for a plain callable never told the directory
    (``agent(query)``), which has no way to read it (no snapshot directory is written or checked for it)."""

    def __init__(self, name: str, obj: Any) -> None:
        self.name = name
        self.obj = obj
        self._loop: asyncio.AbstractEventLoop | None = None
        self._repo_path: str | None = None
        if _is_contract_object(obj):
            self._initialize: Callable[[str], Any] | None = obj.initialize
            self._retrieve: Callable[[str], Any] = obj.retrieve
            self._reset: Callable[[], Any] | None = obj.reset
        elif takes_repo_path(obj):
            self._initialize = self._remember_path
            self._retrieve = lambda query: obj(query, self._repo_path)
            self._reset = None
        else:
            self._initialize = None
            self._retrieve = obj
            self._reset = None
        told = self._initialize is not None  # a plain agent(query) is never given the directory
        self.needs_directory = bool(getattr(obj, "needs_directory", told))

    def initialize(self, repo_path: str) -> None:
        """Let the agent prepare to search ``repo_path`` (a plain callable is only told the path, if it takes it)."""
        if self._initialize is not None:
            self._settle(self._initialize(repo_path))

    def _remember_path(self, repo_path: str) -> None:
        self._repo_path = repo_path

    def retrieve(self, query: str) -> Any:
        """Return the agent's raw answer to ``query``, awaiting it when the agent is async."""
        return self._settle(self._retrieve(query))

    def reset(self) -> None:
        """Drop the agent's per-query state (a no-op for a plain callable)."""
        if self._reset is not None:
            self._settle(self._reset())

    def close(self) -> None:
        """Close the event loop used for an async agent."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def _settle(self, value: Any) -> Any:
        if not inspect.isawaitable(value):
            return value
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(_await(value))


async def _await(value: Any) -> Any:
    return await value


def _is_contract_object(obj: Any) -> bool:
    return all(callable(getattr(obj, m, None)) for m in AGENT_METHODS)


def takes_repo_path(function: Callable[..., Any]) -> bool:
    """Return True when a plain callable agent takes the snapshot path as its second positional argument.

    That is ``def agent(query, repo_path)``: a second positional parameter named ``repo_path``, or any
    second positional parameter without a default. ``agent(query)``, ``agent(query, k=10)`` and
    ``agent(*args)`` are called with the query alone.
    """
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 and (positional[1].name == "repo_path" or positional[1].default is inspect.Parameter.empty)


def adapt_agent(name: str, obj: Any) -> AgentHandle:
    """Return a handle for ``obj``, or raise ContractError naming the agent and what is missing."""
    if isinstance(obj, type):
        raise ContractError(
            f"agent {name!r} returned the class {obj.__qualname__}, not an instance: return {obj.__name__}(...)"
        )
    present = [m for m in AGENT_METHODS if callable(getattr(obj, m, None))]
    if _is_contract_object(obj):
        return AgentHandle(name, obj)
    if present or not callable(obj):
        missing = ", ".join(m for m in AGENT_METHODS if m not in present)
        raise ContractError(
            f"agent {name!r} returned {type(obj).__qualname__}, which lacks {missing}: an agent is an object "
            "with initialize(repo_path), retrieve(query) and reset(), or a callable (query[, repo_path]) -> ranked paths"
        )
    return AgentHandle(name, obj)


def coerce_result(name: str, raw: Any) -> RetrievalResult:
    """Return the answer as a RetrievalResult with JSON-native values, or raise ContractError."""
    if isinstance(raw, RetrievalResult):
        files = raw.files
    elif isinstance(raw, (list, tuple)):
        files = list(raw)
        raw = RetrievalResult(files=[])
    else:
        raise ContractError(
            f"agent {name!r} answered {type(raw).__qualname__}: return a RetrievalResult or a list of paths"
        )
    paths = [_as_path(name, f) for f in files]
    return RetrievalResult(
        files=paths,
        scores=[_as_float(name, s) for s in raw.scores],
        spans=[Span(_as_path(name, s[0]), int(s[1]), int(s[2])) for s in raw.spans],
        symbols=[str(s) for s in raw.symbols],
        metadata=_checked_metadata(name, raw.metadata),
        functions=[str(f) for f in raw.functions],
        modules=[str(m) for m in raw.modules],
    )


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
METADATA_MAX_BYTES = 65_536
"""The most metadata one answer may carry, as compact JSON: it is kept in every case record."""


def _checked_metadata(name: str, metadata: Any) -> dict[str, Any]:
    """Return the answer's metadata if it is a JSON-native mapping of bounded size, else raise ContractError."""
    if not isinstance(metadata, dict):
        raise ContractError(f"agent {name!r} returned metadata of type {type(metadata).__qualname__}: use a dict")
    if not metadata:
        return metadata
    problem = _json_problem(metadata, "metadata")
    if problem is not None:
        raise ContractError(f"agent {name!r} returned {problem}: use str, int, float, bool, None, list or dict")
    size = len(_COMPACT.encode(metadata).encode("utf-8", "surrogatepass"))  # surrogates: made safe in the record
    if size > METADATA_MAX_BYTES:
        raise ContractError(
            f"agent {name!r} returned {size:,} bytes of metadata; at most {METADATA_MAX_BYTES:,} are kept per answer"
        )
    return metadata


METADATA_MAX_DEPTH = 64
"""The deepest metadata may nest (lists and dicts)."""


def _json_problem(value: Any, where: str, depth: int = 0) -> str | None:
    """Return where ``value`` stops being JSON-native (exact builtins only, finite floats, at most
    ``METADATA_MAX_DEPTH`` levels deep), or None."""
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return None
    if kind in (list, dict) and depth >= METADATA_MAX_DEPTH:
        return f"metadata nested more than {METADATA_MAX_DEPTH} levels deep"
    if kind is float:
        return None if math.isfinite(value) else f"{where}: {value!r} (JSON has no NaN or Infinity)"
    if kind is list:
        return next((p for i, v in enumerate(value) if (p := _json_problem(v, f"{where}[{i}]", depth + 1))), None)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{where}: key {key!r} is a {type(key).__qualname__}, not a str"
            problem = _json_problem(item, f"{where}[{key!r}]", depth + 1)
            if problem is not None:
                return problem
        return None
    return f"{where}: a {kind.__module__}.{kind.__qualname__} value, which is not JSON-native"


def _as_path(name: str, value: Any) -> str:
    if isinstance(value, str):
        return str(value)
    if hasattr(value, "__fspath__"):
        return str(value.__fspath__())
    raise ContractError(f"agent {name!r} returned {value!r} among its files: each file must be a path string")


def _as_float(name: str, value: Any) -> float:
    number = float(value)
    if math.isnan(number):
        raise ContractError(f"agent {name!r} returned a NaN score")
    return number
