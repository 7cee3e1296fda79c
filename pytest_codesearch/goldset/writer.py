"""The one native JSONL writer: cases to lines of JSON, streamed into a file that appears atomically.

Mining, conversion and ``write_goldset_jsonl`` all write through here, so every tool writes a case the
same way: empty fields left out, plain ground-truth paths as strings, UTF-8 text, ``NaN`` refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_codesearch.atomic import atomic_file

from .model import EXTENSION_PREFIXES, GoldSetMetadata, GroundTruthFile, TestCase


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""Built once: ``json.dumps`` with options builds an encoder on every call."""


def dumps(value: Any) -> str:
    """Return ``value`` as one line of JSON: UTF-8 kept as is, ``NaN`` and ``Infinity`` refused.

    Code that serialises cases itself for speed (mining) should call this, so every writer agrees.
    """
    return _ENCODER.encode(value)


def case_to_json(case: TestCase) -> dict[str, Any]:
    """Return ``case`` as a JSON object with empty fields left out and plain paths as strings."""
    data = case.model_dump(mode="json", exclude_none=True)
    data["ground_truth_files"] = [_ground_truth_to_json(entry) for entry in case.ground_truth_files]
    return {key: value for key, value in data.items() if value != [] or key.startswith(EXTENSION_PREFIXES)}


def _ground_truth_to_json(entry: GroundTruthFile) -> str | dict[str, Any]:
    if entry.is_plain:
        return entry.path
    data = entry.model_dump(mode="json")
    return {key: value for key, value in data.items() if value != [] and not (key == "relevance" and value == 1)}


def case_line(case: TestCase) -> str:
    """Return ``case`` as its line of a native JSONL gold set, without the newline."""
    return dumps(case_to_json(case))


def metadata_line(metadata: GoldSetMetadata) -> str | None:
    """Return the ``{"metadata": ...}`` line of a JSONL gold set, or None when no metadata is set."""
    meta = metadata.model_dump(mode="json", exclude_none=True)
    return dumps({"metadata": meta}) if meta else None


def write_jsonl_lines(path: Path, metadata: GoldSetMetadata, lines: Iterable[str]) -> int:
    """Write a JSONL gold set atomically from case lines already serialised; return how many were written.

    ``lines`` are ``case_line`` texts, with or without their newline, read one at a time (a file object
    works), so memory stays flat. The metadata line comes first when any metadata is set.
    """
    count = 0
    with atomic_file(path) as target:
        first = metadata_line(metadata)
        if first is not None:
            target.write(first + "\n")
        for line in lines:
            target.write(line if line.endswith("\n") else line + "\n")
            count += 1
    return count


def write_goldset_jsonl(path: Path, metadata: GoldSetMetadata, cases: Iterable[TestCase]) -> int:
    """Write ``cases`` as a native JSONL gold set atomically, streaming; return how many were written."""
    return write_jsonl_lines(path, metadata, (case_line(case) for case in cases))
