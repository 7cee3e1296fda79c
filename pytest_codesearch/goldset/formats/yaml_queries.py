"""YAML query files: a list of queries with expected files (matched as substrings) and symbols.

A file is either a list of queries, or a mapping with ``queries`` and optional ``repo``, ``base_commit``,
``name``, ``description`` and ``match``::

    repo: ../engine
    queries:
      - id: collision
        query: Where are two bodies tested for collision?
        category: function_search
        expected_files: [Physics/Collision.cpp]
        expected_symbols: [DetectCollision]

Each query needs ``id``, ``query``, ``category`` and a non-empty ``expected_files``; ``expected_symbols``,
``repo``, ``base_commit``, ``complexity`` and ``tags`` are optional. The file is parsed safely (PyYAML's
``SafeLoader``) into nodes, so every error names its line; a value YAML 1.1 reads as a boolean, number
or date where a string is expected (``yes``, ``1.10``, ``0123``) is refused with a hint to quote it.
The matching rule is ``substring`` unless the file says ``match: exact`` (see ``scoring/matching.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from pytest_codesearch.goldsniff import sniff_yaml_queries

from ..entries import CaseEntry, LoadedGoldSet, claim_id, describe_validation_error
from ..model import GoldSetMetadata, TestCase, path_problem, unknown_field_message
from .base import Format, ReadOptions

_STR = "tag:yaml.org,2002:str"
_QUERY_KEYS = ("id", "query", "category", "expected_files", "expected_symbols", "repo", "base_commit",
               "complexity", "tags")
_REQUIRED = ("id", "query", "category", "expected_files")
_FILE_KEYS = ("queries", "repo", "base_commit", "name", "description", "match")
_YAML_TYPES = {"bool": "a boolean", "int": "a number", "float": "a number", "null": "empty",
               "timestamp": "a date", "seq": "a list", "map": "a mapping"}


class _Invalid(Exception):
    """A value of the wrong shape: ``line`` and ``field: message``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def load_yaml_queries(path: Path, options: ReadOptions | None = None) -> LoadedGoldSet:
    """Return the cases of a YAML query file; never raises for bad content. No option applies."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
    except OSError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"line 1: not UTF-8 text: {exc.reason}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"line {line}: invalid YAML: {getattr(exc, 'problem', exc)}")
    try:
        metadata, queries = _document(root)
    except _Invalid as exc:
        return LoadedGoldSet(path, GoldSetMetadata(match="substring"), [], f"line {exc.line}: {exc}")
    seen: dict[str, int] = {}
    return LoadedGoldSet(path, metadata, [_entry(node, seen) for node in queries], None)


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    return _YAML_TYPES.get(str(node.tag).rsplit(":", 1)[-1], str(node.tag))


def _string(node: yaml.Node, field: str) -> str:
    """Return the string a scalar node holds; refuse what YAML 1.1 reads as another type."""
    if not isinstance(node, yaml.ScalarNode) or node.tag != _STR:
        value = f" {node.value!r}" if isinstance(node, yaml.ScalarNode) else ""
        hint = "; quote it to keep it as written" if isinstance(node, yaml.ScalarNode) and node.value else ""
        raise _Invalid(_line(node), f"{field}: must be a string, got {_kind(node)}{value}{hint}")
    return str(node.value)


def _strings(node: yaml.Node, field: str) -> list[str]:
    if not isinstance(node, yaml.SequenceNode):
        raise _Invalid(_line(node), f"{field}: must be a list of strings, got {_kind(node)}")
    return [_string(item, f"{field}[{index}]") for index, item in enumerate(node.value)]


def _mapping(node: yaml.MappingNode, known: tuple[str, ...], where: str) -> dict[str, yaml.Node]:
    """Return the keys of a mapping node; unknown or repeated keys are errors naming their line."""
    found: dict[str, yaml.Node] = {}
    for key_node, value_node in node.value:
        key = _string(key_node, f"{where}key")
        if key in found:
            raise _Invalid(_line(key_node), f"{key}: duplicate key")
        if key not in known:
            raise _Invalid(_line(key_node), f"{key}: {unknown_field_message(key, known, False)}")
        found[key] = value_node
    return found


def _document(root: yaml.Node | None) -> tuple[GoldSetMetadata, list[yaml.Node]]:
    """Return the file's metadata and its query nodes."""
    if isinstance(root, yaml.SequenceNode):
        return GoldSetMetadata(match="substring"), list(root.value)
    if not isinstance(root, yaml.MappingNode):
        line = 1 if root is None else _line(root)
        raise _Invalid(line, "a YAML query file must be a list of queries or a mapping with 'queries'")
    fields = _mapping(root, _FILE_KEYS, "")
    if "queries" not in fields:
        raise _Invalid(_line(root), "queries: missing required field")
    if not isinstance(fields["queries"], yaml.SequenceNode):
        raise _Invalid(_line(fields["queries"]), f"queries: must be a list, got {_kind(fields['queries'])}")
    meta = {key: _string(node, key) for key, node in fields.items() if key != "queries"}
    meta.setdefault("match", "substring")
    try:
        return GoldSetMetadata.model_validate(meta), list(fields["queries"].value)
    except ValidationError as exc:
        raise _Invalid(_line(root), describe_validation_error(exc)) from None


def _entry(node: yaml.Node, seen: dict[str, int]) -> CaseEntry:
    """Return the case of one query node, or the entry naming its first problem."""
    line = _line(node)
    try:
        if not isinstance(node, yaml.MappingNode):
            raise _Invalid(line, f"a query must be a mapping, got {_kind(node)}")
        fields = _mapping(node, _QUERY_KEYS, "")
        missing = [key for key in _REQUIRED if key not in fields]
        if missing:
            raise _Invalid(line, f"{missing[0]}: missing required field")
        case_json = _case_json(fields)
    except _Invalid as exc:
        return CaseEntry(exc.line, None, str(exc), None)
    case_id, duplicate = claim_id({"id": case_json["id"]}, line, seen)
    if duplicate:
        return CaseEntry(line, None, duplicate, None)
    try:
        return CaseEntry(line, TestCase.model_validate(case_json), None, case_id)
    except ValidationError as exc:
        message = describe_validation_error(exc).replace("ground_truth_files", "expected_files")
        return CaseEntry(line, None, message, case_id)


def _case_json(fields: dict[str, yaml.Node]) -> dict[str, Any]:
    """Return the native case (as JSON) of a query's checked fields."""
    files = _strings(fields["expected_files"], "expected_files")
    for index, (path, item) in enumerate(zip(files, fields["expected_files"].value)):
        problem = path_problem(path)
        if problem:
            raise _Invalid(_line(item), f"expected_files[{index}]: {problem}")
    if not files:
        raise _Invalid(_line(fields["expected_files"]), "expected_files: must list at least one file")
    symbols = _strings(fields["expected_symbols"], "expected_symbols") if "expected_symbols" in fields else []
    truth: list[Any] = [{"path": files[0], "symbols": symbols}, *files[1:]] if symbols else list(files)
    case: dict[str, Any] = {"ground_truth_files": truth}
    for key in ("id", "query", "category", "repo", "base_commit", "complexity"):
        if key in fields:
            case[key] = _string(fields[key], key)
    if "tags" in fields:
        case["tags"] = _strings(fields["tags"], "tags")
    return case


FORMAT = Format(name="yaml-queries", suffixes=(".yaml", ".yml"), sniff=sniff_yaml_queries, read=load_yaml_queries)
