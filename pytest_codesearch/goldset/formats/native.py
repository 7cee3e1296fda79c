"""The native shape: JSON (``{"metadata": ..., "test_cases": [...]}``) or JSONL (one case a line)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..entries import (
    LENIENT,
    STRICT,
    CaseEntry,
    LoadedGoldSet,
    case_entry,
    decode_error,
    json_error,
    read_metadata,
    undecodable_entry,
)
from pytest_codesearch.goldsniff import sniff_native

from ..jsontext import LineIndex, elements, members, skip
from ..model import EXTENSION_PREFIXES, GoldSetMetadata, unknown_field_message
from .base import PROGRESS_EVERY, Format, ReadOptions

_DOCUMENT_KEYS = ("metadata", "test_cases")


def load_native(path: Path, options: ReadOptions | None = None) -> LoadedGoldSet:
    """Return the gold set in a native JSON or JSONL file (by suffix); no option applies.

    Never raises for bad content: it is reported in the result instead, per entry where it can be.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"cannot read: {exc.strerror or exc}")
    if path.suffix.lower() == ".jsonl":
        return _JsonlReader(path, (options or ReadOptions()).progress).read(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return LoadedGoldSet(path, GoldSetMetadata(), [], decode_error(exc, line, 0))
    return _JsonReader(path, text.removeprefix("\ufeff")).read()


class _JsonlReader:
    """Reads the JSONL form: an optional metadata line first, then one case per line."""

    def __init__(self, path: Path, progress: Callable[[int, int], None] | None = None) -> None:
        self.path = path
        self.progress = progress
        self.metadata = GoldSetMetadata()
        self.entries: list[CaseEntry] = []
        self.errors: list[str] = []
        self.seen: dict[str, int] = {}
        self.first = True

    def read(self, data: bytes) -> LoadedGoldSet:
        """Return the gold set held by the bytes ``data``."""
        offset = 0
        lines = data.split(b"\n")
        total = len(lines) - (lines[-1] == b"")  # a last newline ends the last line, it starts none
        for number, raw in enumerate(lines, start=1):
            if self.progress is not None and number % PROGRESS_EVERY == 0:
                self.progress(number, total)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.errors.append(decode_error(exc, number, offset))
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
            value = STRICT.decode(text)
        except ValueError as exc:
            self.entries.append(undecodable_entry(text, skip(text, 0), number, self.seen, exc))
            return
        if isinstance(value, dict) and "metadata" in value and "query" not in value:
            self._metadata_line(number, value, first)
        else:
            self.entries.append(case_entry(value, number, self.seen))

    def _metadata_line(self, number: int, value: dict[str, Any], first: bool) -> None:
        if not first:
            message = "metadata: only the first line of the file may hold metadata"
            self.entries.append(CaseEntry(number, None, message, None))
            return
        for key in value:
            if key != "metadata":
                self.errors.append(f"line {number}: {key}: {unknown_field_message(key, ['metadata'], False)}")
        self.metadata, error = read_metadata(value["metadata"])
        if error:
            self.errors.append(f"line {number}: {error}")


class _JsonReader:
    """Reads the JSON form, giving each case the line where its object starts."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.line = LineIndex(text).line
        self.metadata = GoldSetMetadata()
        self.entries: list[CaseEntry] = []
        self.errors: list[str] = []

    def read(self) -> LoadedGoldSet:
        """Return the gold set held by the text."""
        try:
            document = LENIENT.decode(self.text)
        except json.JSONDecodeError as exc:
            return self._result(f"line {exc.lineno}: {json_error(exc)}")
        if not isinstance(document, dict) or not isinstance(document.get("test_cases"), list):
            return self._result("line 1: a JSON gold set must be an object with a 'test_cases' list")
        seen_keys: set[str] = set()
        for key, start in members(self.text, skip(self.text, 0)):
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
                value = STRICT.raw_decode(self.text, start)[0]
            except ValueError as exc:
                self.errors.append(f"{where}: metadata: {json_error(exc)}")
                return
            self.metadata, error = read_metadata(value)
            if error:
                self.errors.append(f"{where}: {error}")
        elif not key.startswith(EXTENSION_PREFIXES):
            self.errors.append(f"{where}: {key}: {unknown_field_message(key, _DOCUMENT_KEYS, True)}")
        seen_keys.add(key)

    def _cases(self, start: int) -> None:
        seen: dict[str, int] = {}
        for element in elements(self.text, start):
            line = self.line(element)
            try:
                value = STRICT.raw_decode(self.text, element)[0]
            except ValueError as exc:
                self.entries.append(undecodable_entry(self.text, element, line, seen, exc))
                continue
            self.entries.append(case_entry(value, line, seen))


FORMAT = Format(name="native", suffixes=(".json", ".jsonl"), sniff=sniff_native, read=load_native)
