"""Gold sets: the files of benchmark cases, their models, and how to read and write them."""

from __future__ import annotations

from .convert import Conversion, convert_goldset
from .formats import FORMATS, Format, ReadOptions, reader_for
from .io import CaseEntry, LoadedGoldSet, dump_goldset_jsonl, format_error, is_goldset, load_goldset
from .model import GoldSet, GoldSetMetadata, GroundTruthFile, TestCase
from .writer import write_goldset_jsonl

__all__ = [
    "FORMATS",
    "CaseEntry",
    "Conversion",
    "Format",
    "GoldSet",
    "GoldSetMetadata",
    "GroundTruthFile",
    "LoadedGoldSet",
    "ReadOptions",
    "TestCase",
    "convert_goldset",
    "dump_goldset_jsonl",
    "format_error",
    "is_goldset",
    "load_goldset",
    "reader_for",
    "write_goldset_jsonl",
]
