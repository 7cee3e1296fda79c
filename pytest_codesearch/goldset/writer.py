"""The one gold-set writer: cases to lines of JSON (:func:`case_fields_to_json`), streamed into a file.

Mining, conversion and ``write_goldset_jsonl`` all write through here, so every tool writes a case the
same way: fields in the model's order, empty fields left out, plain ground-truth paths as strings,
UTF-8 text, ``NaN`` refused. JSONL files appear atomically; the JSON document form is written to a
stream the caller makes atomic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from pytest_codesearch.atomic import atomic_file

from .model import EXTENSION_PREFIXES, GoldSetMetadata, TestCase

_FIELDS = tuple(TestCase.model_fields)
"""The case fields in the order a case is written."""
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""Built once: ``json.dumps`` with options builds an encoder on every call."""


def dumps(value: Any) -> str:
    """Return ``value`` as one line of JSON: UTF-8 kept as is, ``NaN`` and ``Infinity`` refused."""
    return _ENCODER.encode(value)


def case_fields_to_json(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return a case's JSON object from its fields in JSON form: the one case serialiser.

    ``fields`` are what ``TestCase.model_dump(mode="json")`` gives, or the same built by hand (the miner
    builds each case's fields unvalidated, for speed; its tests check every line against ``TestCase``).
    The object holds the model's fields in the model's order, then the extension keys (``x-...``) as
    given; ``None`` and empty lists are left out (an extension key's empty list is kept), and a
    ground-truth entry with only a path (no lines, no symbols, relevance 1) is written as the path.
    """
    data: dict[str, Any] = {}
    for key in _FIELDS:
        value = fields.get(key)
        if value is not None and value != []:
            data[key] = [_ground_truth_to_json(entry) for entry in value] if key == "ground_truth_files" else value
    for key, value in fields.items():
        if key.startswith(EXTENSION_PREFIXES) and value is not None:
            data[key] = value
    return data


def _ground_truth_to_json(entry: str | Mapping[str, Any]) -> str | dict[str, Any]:
    if isinstance(entry, str):
        return entry
    data = {key: value for key, value in entry.items() if value != [] and not (key == "relevance" and value == 1)}
    return data["path"] if data.keys() == {"path"} else data


def case_to_json(case: TestCase) -> dict[str, Any]:
    """Return ``case`` as a JSON object (see :func:`case_fields_to_json`)."""
    return case_fields_to_json(case.model_dump(mode="json", exclude_none=True))


def case_line(case: TestCase) -> str:
    """Return ``case`` as its line of a native JSONL gold set, without the newline."""
    return dumps(case_to_json(case))


def case_fields_line(fields: Mapping[str, Any]) -> str:
    """Return the line of a case given by its fields in JSON form (see :func:`case_fields_to_json`)."""
    return dumps(case_fields_to_json(fields))


def metadata_line(metadata: GoldSetMetadata) -> str | None:
    """Return the ``{"metadata": ...}`` line of a JSONL gold set, or None when no metadata is set."""
    meta = metadata.model_dump(mode="json", exclude_none=True)
    return dumps({"metadata": meta}) if meta else None


def write_jsonl_lines(path: Path, metadata: GoldSetMetadata, lines: Iterable[str]) -> int:
    """Write a JSONL gold set atomically from case lines already serialised; return how many were written.

    ``lines`` are ``case_line`` texts, with or without their newline, read one at a time (a file object
    works), so memory stays flat. The metadata line comes first when any metadata is set.
    """
    with atomic_file(path) as target:
        return write_jsonl_to(target, metadata, lines)


def write_jsonl_to(target: IO[str], metadata: GoldSetMetadata, lines: Iterable[str]) -> int:
    """Write a JSONL gold set to ``target`` (see :func:`write_jsonl_lines`); return how many cases were written."""
    first = metadata_line(metadata)
    if first is not None:
        target.write(first + "\n")
    count = 0
    for line in lines:
        target.write(line if line.endswith("\n") else line + "\n")
        count += 1
    return count


def write_json_lines(target: IO[str], metadata: GoldSetMetadata, lines: Iterable[str]) -> int:
    """Write a gold set in the JSON document form to ``target`` from case lines already serialised.

    Metadata first, then one case a line in ``test_cases``, so a mined file diffs line by line like
    JSONL; return how many cases were written. ``lines`` are read one at a time.
    """
    meta = dumps(metadata.model_dump(mode="json", exclude_none=True))
    target.write('{\n  "metadata": ' + meta + ',\n  "test_cases": [')
    count = 0
    for line in lines:
        target.write(("\n    " if count == 0 else ",\n    ") + line.rstrip("\n"))
        count += 1
    target.write("\n  ]\n}\n" if count else "]\n}\n")
    return count


def write_goldset_jsonl(path: Path, metadata: GoldSetMetadata, cases: Iterable[TestCase]) -> int:
    """Write ``cases`` as a native JSONL gold set atomically, streaming; return how many were written."""
    return write_jsonl_lines(path, metadata, (case_line(case) for case in cases))
