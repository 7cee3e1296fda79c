"""Reading and writing gold-set files of any known shape: detection, loading with readable errors, JSONL dumps.

The readers live in ``formats/`` (one module per shape); this module is the stable entry point.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_codesearch.atomic import write_atomic

from . import formats
from .entries import CaseEntry, LoadedGoldSet, describe_validation_error, format_error
from .model import EXTENSION_PREFIXES, GoldSetMetadata, GroundTruthFile, TestCase

__all__ = [
    "CaseEntry",
    "LoadedGoldSet",
    "case_to_json",
    "describe_validation_error",
    "dump_goldset_jsonl",
    "format_error",
    "is_goldset",
    "load_goldset",
]


def is_goldset(path: Path) -> bool:
    """Return True when some known shape claims ``path`` (broken files too, so their errors are shown)."""
    return formats.reader_for(path) is not None


def load_goldset(path: Path, repos: formats.RepoMap | None = None) -> LoadedGoldSet:
    """Read a gold-set file of any known shape; never raises for bad content, which is reported in the result."""
    return formats.load(path, repos)


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


def dump_goldset_jsonl(path: Path, metadata: GoldSetMetadata, cases: Iterable[TestCase]) -> None:
    """Write a JSONL gold set atomically: the metadata line (if any metadata is set), then one case a line."""
    lines = []
    meta = metadata.model_dump(mode="json", exclude_none=True)
    if meta:
        lines.append(json.dumps({"metadata": meta}, ensure_ascii=False, allow_nan=False))
    lines.extend(json.dumps(case_to_json(case), ensure_ascii=False, allow_nan=False) for case in cases)
    write_atomic(path, "".join(line + "\n" for line in lines))
