"""Gold sets: the files of benchmark cases, their models, and how to read and write them."""

from __future__ import annotations

from .convert import Conversion, convert_goldset
from .entries import CaseEntry, LoadedGoldSet, format_error
from .formats import FORMATS, Format, ReadOptions, load, reader_for
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
    "format_error",
    "load",
    "reader_for",
    "write_goldset_jsonl",
]
