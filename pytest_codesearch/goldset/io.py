"""Reading and writing gold-set files: detection, loading with readable errors, atomic JSONL dumps."""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from pytest_codesearch.report.atomic import write_atomic

from .model import GoldSetMetadata, GroundTruthFile, TestCase, case_id_problem, unknown_field_message

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DOCUMENT_KEYS = ("metadata", "test_cases")
_EXTENSION_PREFIXES = ("x-", "x_")
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


_STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys)
_LENIENT = json.JSONDecoder()


def format_error(path: str, line: int, error: str) -> str:
    """Return ``path:line: error``, the form editors and terminals link to (``path: error`` if line < 1)."""
    return f"{path}:{line}: {error}" if line >= 1 else f"{path}: {error}"


def is_goldset(path: Path) -> bool:
    """Return True when ``path`` looks like a gold set (broken ones too, so their errors are shown)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            return _json_looks_like_goldset(path.read_bytes())
        if suffix == ".jsonl":
            return _jsonl_looks_like_goldset(_first_nonblank_line(path))
    except OSError:
        return False
    return False


def _json_looks_like_goldset(data: bytes) -> bool:
    if b'"test_cases"' not in data:
        return False
    try:
        document = _LENIENT.decode(data.decode("utf-8-sig"))
    except ValueError:  # also UnicodeDecodeError: a broken gold set is still one
        return True
    return isinstance(document, dict) and isinstance(document.get("test_cases"), list)


def _first_nonblank_line(path: Path) -> bytes:
    with path.open("rb") as stream:
        for raw in stream:
            if raw.strip():
                return raw
    return b""


def _jsonl_looks_like_goldset(raw: bytes) -> bool:
    if not raw:
        return False
    try:
        first = _LENIENT.decode(raw.decode("utf-8-sig"))
    except ValueError:
        return b'"ground_truth_files"' in raw or b'"metadata"' in raw
    if not isinstance(first, dict):
        return False
    return "metadata" in first or ("query" in first and "ground_truth_files" in first)


def load_goldset(path: Path) -> LoadedGoldSet:
    """Read a gold-set file; never raises for bad content, which is reported in the result instead."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"cannot read: {exc.strerror or exc}")
    if path.suffix.lower() == ".jsonl":
        return _JsonlReader(path).read(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return LoadedGoldSet(path, GoldSetMetadata(), [], _decode_error(exc, line, 0))
    return _JsonReader(path, text.removeprefix("\ufeff")).read()


def _decode_error(exc: UnicodeDecodeError, line: int, line_offset: int) -> str:
    """Describe bytes that are not UTF-8; ``line_offset`` is the file offset of the decoded bytes."""
    byte = line_offset + exc.start
    return f"line {line}: not valid UTF-8 at byte offset {byte} ({exc.reason}); save the file as UTF-8"


def _json_error(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    return f"invalid JSON: {exc}"


def _json_type(value: Any) -> str:
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


def _claim_id(value: Any, line: int, seen: dict[str, int]) -> tuple[str | None, str | None]:
    """Return the id an entry may be named by and a duplicate error; ``seen`` maps ids to lines."""
    raw = value.get("id") if isinstance(value, dict) else None
    if not isinstance(raw, str) or case_id_problem(raw) is not None:
        return None, None
    if raw in seen:
        return None, f"id: duplicate of line {seen[raw]}"
    seen[raw] = line
    return raw, None


def _case_entry(value: Any, line: int, seen: dict[str, int]) -> CaseEntry:
    """Validate one decoded case."""
    if not isinstance(value, dict):
        return CaseEntry(line, None, f"a case must be a JSON object, got {_json_type(value)}", None)
    case_id, duplicate = _claim_id(value, line, seen)
    if duplicate:
        return CaseEntry(line, None, duplicate, None)
    try:
        case = TestCase.model_validate(value)
    except ValidationError as exc:
        return CaseEntry(line, None, describe_validation_error(exc), case_id)
    return CaseEntry(line, case, None, case_id)


def _undecodable_entry(text: str, offset: int, line: int, seen: dict[str, int], exc: ValueError) -> CaseEntry:
    """Return the broken entry for a case that is not valid JSON, named by its id when it has one."""
    try:  # NaN or a duplicate key: Python's own parser still reads the id
        lenient = _LENIENT.raw_decode(text, offset)[0]
    except ValueError:
        return CaseEntry(line, None, _json_error(exc), None)
    return CaseEntry(line, None, _json_error(exc), _claim_id(lenient, line, seen)[0])


def _metadata(value: Any) -> tuple[GoldSetMetadata, str | None]:
    try:
        return GoldSetMetadata.model_validate(value), None
    except ValidationError as exc:
        return GoldSetMetadata(), describe_validation_error(exc, ("metadata",))


class _JsonlReader:
    """Reads the JSONL form: an optional metadata line first, then one case per line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.metadata = GoldSetMetadata()
        self.entries: list[CaseEntry] = []
        self.errors: list[str] = []
        self.seen: dict[str, int] = {}
        self.first = True

    def read(self, data: bytes) -> LoadedGoldSet:
        """Return the gold set held by the bytes ``data``."""
        offset = 0
        for number, raw in enumerate(data.split(b"\n"), start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.errors.append(_decode_error(exc, number, offset))
                self.first = False
            else:
                self._line(number, text.removeprefix("\ufeff") if number == 1 else text)
            offset += len(raw) + 1
        error = "; ".join(self.errors) or None
        return LoadedGoldSet(self.path, self.metadata, self.entries, error)

    def _line(self, number: int, text: str) -> None:
        if not text.strip():
            return
        first, self.first = self.first, False
        try:
            value = _STRICT.decode(text)
        except ValueError as exc:
            self.entries.append(_undecodable_entry(text, _skip(text, 0), number, self.seen, exc))
            return
        if isinstance(value, dict) and "metadata" in value and "query" not in value:
            self._metadata_line(number, value, first)
        else:
            self.entries.append(_case_entry(value, number, self.seen))

    def _metadata_line(self, number: int, value: dict[str, Any], first: bool) -> None:
        if not first:
            message = "metadata: only the first line of the file may hold metadata"
            self.entries.append(CaseEntry(number, None, message, None))
            return
        for key in value:
            if key != "metadata":
                self.errors.append(f"line {number}: {key}: {unknown_field_message(key, ['metadata'], False)}")
        self.metadata, error = _metadata(value["metadata"])
        if error:
            self.errors.append(f"line {number}: {error}")


class _JsonReader:
    """Reads the JSON form, giving each case the line where its object starts."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.newlines = [match.start() for match in re.finditer("\n", text)]
        self.metadata = GoldSetMetadata()
        self.entries: list[CaseEntry] = []
        self.errors: list[str] = []

    def line(self, offset: int) -> int:
        """Return the 1-based line of the character at ``offset``."""
        return bisect_left(self.newlines, offset) + 1

    def read(self) -> LoadedGoldSet:
        """Return the gold set held by the text."""
        try:
            document = _LENIENT.decode(self.text)
        except json.JSONDecodeError as exc:
            return self._result(f"line {exc.lineno}: {_json_error(exc)}")
        if not isinstance(document, dict) or not isinstance(document.get("test_cases"), list):
            return self._result("line 1: a JSON gold set must be an object with a 'test_cases' list")
        seen_keys: set[str] = set()
        for key, start in _members(self.text, _skip(self.text, 0)):
            self._member(key, start, seen_keys)
        return self._result("; ".join(self.errors) or None)

    def _result(self, error: str | None) -> LoadedGoldSet:
        return LoadedGoldSet(self.path, self.metadata, self.entries, error)

    def _member(self, key: str, start: int, seen_keys: set[str]) -> None:
        where = f"line {self.line(start)}"
        if key in seen_keys:
            self.errors.append(f"{where}: invalid JSON: duplicate key {key!r}")
        elif key == "test_cases":
            self._cases(start)
        elif key == "metadata":
            try:
                value = _STRICT.raw_decode(self.text, start)[0]
            except ValueError as exc:
                self.errors.append(f"{where}: metadata: {_json_error(exc)}")
                return
            self.metadata, error = _metadata(value)
            if error:
                self.errors.append(f"{where}: {error}")
        elif not key.startswith(_EXTENSION_PREFIXES):
            self.errors.append(f"{where}: {key}: {unknown_field_message(key, _DOCUMENT_KEYS, True)}")
        seen_keys.add(key)

    def _cases(self, start: int) -> None:
        seen: dict[str, int] = {}
        for element in _elements(self.text, start):
            line = self.line(element)
            try:
                value = _STRICT.raw_decode(self.text, element)[0]
            except ValueError as exc:
                self.entries.append(_undecodable_entry(self.text, element, line, seen, exc))
                continue
            self.entries.append(_case_entry(value, line, seen))


def _skip(text: str, offset: int) -> int:
    """Return the offset of the first non-whitespace character at or after ``offset``."""
    match = _WHITESPACE.match(text, offset)
    return match.end() if match else offset


def _members(text: str, start: int) -> Iterator[tuple[str, int]]:
    """Yield (key, value offset) for the members of the object at ``start`` in valid JSON ``text``."""
    offset = _skip(text, start + 1)
    while text[offset] != "}":
        key, offset = _LENIENT.raw_decode(text, offset)
        value_start = _skip(text, _skip(text, offset) + 1)  # past the ':'
        yield key, value_start
        offset = _skip(text, _LENIENT.raw_decode(text, value_start)[1])
        if text[offset] == ",":
            offset = _skip(text, offset + 1)


def _elements(text: str, start: int) -> Iterator[int]:
    """Yield the offset of each element of the array at ``start`` in valid JSON ``text``."""
    offset = _skip(text, start + 1)
    while text[offset] != "]":
        yield offset
        offset = _skip(text, _LENIENT.raw_decode(text, offset)[1])
        if text[offset] == ",":
            offset = _skip(text, offset + 1)


def case_to_json(case: TestCase) -> dict[str, Any]:
    """Return ``case`` as a JSON object with empty fields left out and plain paths as strings."""
    data = case.model_dump(mode="json", exclude_none=True)
    data["ground_truth_files"] = [_ground_truth_to_json(entry) for entry in case.ground_truth_files]
    return {key: value for key, value in data.items() if value != [] or key.startswith(_EXTENSION_PREFIXES)}


def _ground_truth_to_json(entry: GroundTruthFile) -> str | dict[str, Any]:
    if entry.is_plain:
        return entry.path
    data = entry.model_dump(mode="json")
    return {key: value for key, value in data.items() if value != [] and not (key == "relevance" and value == 1)}


def dump_goldset_jsonl(path: Path, metadata: GoldSetMetadata, cases: Iterable[TestCase]) -> None:
    """Write a JSONL gold set atomically: the metadata line (if any metadata is set), then one case a line."""
    lines = []
    meta = metadata.model_dump(mode="json", exclude_none=True)
    if meta:
        lines.append(json.dumps({"metadata": meta}, ensure_ascii=False, allow_nan=False))
    lines.extend(json.dumps(case_to_json(case), ensure_ascii=False, allow_nan=False) for case in cases)
    write_atomic(path, "".join(line + "\n" for line in lines))

