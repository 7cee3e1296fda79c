"""What every gold-set reader returns (``LoadedGoldSet`` of ``CaseEntry``) and the helpers that build it."""

from __future__ import annotations

import json
import math
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


STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys)
"""Refuses NaN, Infinity, overflowing numbers and duplicate keys (PITFALLS 31)."""
LENIENT = json.JSONDecoder()
"""Python's own parser: for sniffing, and for reading ids out of strictly invalid JSON."""


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
