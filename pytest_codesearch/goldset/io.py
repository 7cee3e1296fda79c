"""Reading and writing gold-set files of any known shape: detection, loading with readable errors, JSONL dumps.

The readers live in ``formats/`` (one module per shape); this module is the stable entry point.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from . import formats
from .entries import CaseEntry, LoadedGoldSet, describe_validation_error, format_error
from .model import GoldSetMetadata, TestCase
from .writer import case_to_json, write_goldset_jsonl

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


def load_goldset(path: Path, options: formats.ReadOptions | None = None) -> LoadedGoldSet:
    """Read a gold-set file of any known shape; never raises for bad content, which is reported in the result."""
    return formats.load(path, options)


def dump_goldset_jsonl(path: Path, metadata: GoldSetMetadata, cases: Iterable[TestCase]) -> None:
    """Write a JSONL gold set atomically: the metadata line (if any metadata is set), then one case a line."""
    write_goldset_jsonl(path, metadata, cases)
