"""Gold sets: the files of benchmark cases, their models, and how to read and write them."""

from __future__ import annotations

from .io import CaseEntry, LoadedGoldSet, dump_goldset_jsonl, format_error, is_goldset, load_goldset
from .model import GoldSet, GoldSetMetadata, GroundTruthFile, TestCase

__all__ = [
    "CaseEntry",
    "GoldSet",
    "GoldSetMetadata",
    "GroundTruthFile",
    "LoadedGoldSet",
    "TestCase",
    "dump_goldset_jsonl",
    "format_error",
    "is_goldset",
    "load_goldset",
]
