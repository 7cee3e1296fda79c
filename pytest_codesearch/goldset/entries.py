"""What every gold-set reader returns (``LoadedGoldSet`` of ``CaseEntry``) and the helpers that build it."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .model import GoldSetMetadata, GroundTruthFile, TestCase, case_id_problem, unknown_field_message

_TYPE_MESSAGES = {
    "missing": "missing required field",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


@dataclass(frozen=True)
class CaseEntry:
    """One case of a gold-set file as read: the case, or why it is broken."""

    line: int
    """1-based line where the case starts."""
    case: TestCase | None
    """None when the entry is broken."""
    error: str | None
    """``field: message`` when the entry is broken, e.g. ``query: must not be empty``."""
    case_id: str | None
    """The id when it was readable, valid and not a duplicate: a safe name for the item."""


@dataclass(frozen=True)
class LoadedGoldSet:
    """A gold-set file as read: its metadata, its entries, and any whole-file problem."""

    path: Path
    metadata: GoldSetMetadata
    entries: list[CaseEntry]
    error: str | None
    """A whole-file problem such as ``line 3: invalid JSON: ...``; ``entries`` hold what could be read."""

    @property
    def cases(self) -> list[TestCase]:
        """Return the cases that loaded without error, in file order."""
        return [entry.case for entry in self.entries if entry.case is not None]


class _StrictJsonError(ValueError):
    """JSON that Python's parser accepts but a gold set refuses (NaN, duplicate keys)."""


def _reject_constant(name: str) -> Any:
    raise _StrictJsonError(f"{name} is not allowed (JSON has no NaN or Infinity; use a number or null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _StrictJsonError(f"{text} is too large for a number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _StrictJsonError(f"duplicate key {key!r}")
        result[key] = value
    return result


MAX_DEPTH = 64
"""The deepest a gold-set JSON value may nest (a case needs about 5 levels): deeper is an invalid entry."""
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class _BoundedDecoder(json.JSONDecoder):
    """A JSON decoder refusing values nested deeper than ``MAX_DEPTH`` with a ``JSONDecodeError`` at the
    bracket too many, where Python's parser would raise ``RecursionError`` (or let later code do so)."""

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        """Return the value at ``idx`` and where it ends; raise ``JSONDecodeError`` for one too deep."""
        try:
            value, end = super().raw_decode(s, idx)
        except RecursionError:
            raise _too_deep(s, idx) from None
        if _deeper_than(value, MAX_DEPTH):
            raise _too_deep(s, idx)
        return value, end


def _deeper_than(value: Any, limit: int) -> bool:
    """Return True when arrays and objects in ``value`` nest more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _too_deep(text: str, start: int) -> json.JSONDecodeError:
    """Return the error for the value at ``start`` nesting too deep, at its first bracket too many."""
    depth, position = 0, start
    for token in _TOKENS.finditer(text, start):
        mark = token.group()
        depth += 1 if mark in "[{" else -1 if mark in "]}" else 0
        if depth > MAX_DEPTH:
            position = token.start()
            break
        if depth <= 0 and mark in "]}":
            break
    return json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, position)


STRICT = _BoundedDecoder(parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys)
"""Refuses NaN, Infinity, overflowing numbers, duplicate keys (PITFALLS 31) and values nested too deep."""
LENIENT = _BoundedDecoder()
"""Python's own parser (values nested too deep refused): for sniffing, and for reading ids out of strictly
invalid JSON."""


def format_error(path: str, line: int, error: str) -> str:
    """Return ``path:line: error``, the form editors and terminals link to (``path: error`` if line < 1)."""
    return f"{path}:{line}: {error}" if line >= 1 else f"{path}: {error}"


def decode_error(exc: UnicodeDecodeError, line: int, line_offset: int) -> str:
    """Describe bytes that are not UTF-8; ``line_offset`` is the file offset of the decoded bytes."""
    byte = line_offset + exc.start
    return f"line {line}: not valid UTF-8 at byte offset {byte} ({exc.reason}); save the file as UTF-8"


def json_error(exc: ValueError) -> str:
    """Return ``invalid JSON: <why> (column <n>)`` for a decoding error."""
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    return f"invalid JSON: {exc}"


def json_type(value: Any) -> str:
    """Return the JSON name of the type of a decoded value (``object``, ``array``, ``number``...)."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def describe_validation_error(exc: ValidationError, prefix: tuple[str | int, ...] = ()) -> str:
    """Return pydantic's errors as readable ``field: message`` text, joined with '; '."""
    return "; ".join(_describe_one(error, prefix) for error in exc.errors(include_url=False))


def _describe_one(error: ErrorDetails, prefix: tuple[str | int, ...]) -> str:
    loc = prefix + tuple(error["loc"])
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    message = _message(error, loc)
    return f"{where}: {message}" if where else message


def _message(error: ErrorDetails, loc: tuple[str | int, ...]) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return unknown_field_message(str(loc[-1]), GroundTruthFile.model_fields, False)
    if kind == "greater_than_equal":
        return f"must be >= {ctx['ge']}"
    if kind in ("too_short", "string_too_short") and ctx.get("min_length") == 1:
        return "must not be empty"
    if kind in _TYPE_MESSAGES:
        return _TYPE_MESSAGES[kind]
    return error["msg"].removeprefix("Value error, ")


def claim_id(value: Any, line: int, seen: dict[str, int]) -> tuple[str | None, str | None]:
    """Return the id an entry may be named by and a duplicate error; ``seen`` maps ids to lines."""
    raw = value.get("id") if isinstance(value, dict) else None
    if not isinstance(raw, str) or case_id_problem(raw) is not None:
        return None, None
    if raw in seen:
        return None, f"id: duplicate of line {seen[raw]}"
    seen[raw] = line
    return raw, None


def case_entry(value: Any, line: int, seen: dict[str, int]) -> CaseEntry:
    """Validate one decoded native case; ``seen`` maps the ids met so far to their lines."""
    if not isinstance(value, dict):
        return CaseEntry(line, None, f"a case must be a JSON object, got {json_type(value)}", None)
    case_id, duplicate = claim_id(value, line, seen)
    if duplicate:
        return CaseEntry(line, None, duplicate, None)
    try:
        case = TestCase.model_validate(value)
    except ValidationError as exc:
        return CaseEntry(line, None, describe_validation_error(exc), case_id)
    return CaseEntry(line, case, None, case_id)


def undecodable_entry(text: str, offset: int, line: int, seen: dict[str, int], exc: ValueError) -> CaseEntry:
    """Return the broken entry for a case that is not valid JSON, named by its id when it has one."""
    try:  # NaN or a duplicate key: Python's own parser still reads the id
        lenient = LENIENT.raw_decode(text, offset)[0]
    except ValueError:
        return CaseEntry(line, None, json_error(exc), None)
    return CaseEntry(line, None, json_error(exc), claim_id(lenient, line, seen)[0])


def read_metadata(value: Any) -> tuple[GoldSetMetadata, str | None]:
    """Return the metadata held by a decoded value, or empty metadata and why it is invalid."""
    try:
        return GoldSetMetadata.model_validate(value), None
    except ValidationError as exc:
        return GoldSetMetadata(), describe_validation_error(exc, ("metadata",))
