"""Gold-set readers, one module per input shape, behind one registry.

Adding a shape is one module defining a ``Format`` plus its line in ``FORMATS`` (more specific shapes
first: the first format that claims a file reads it)::

    from pytest_codesearch.goldset.formats import load, reader_for

    fmt = reader_for(path)          # None: not a gold set of any known shape
    loaded = load(path)             # never raises; errors are in loaded.error and the entries
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..entries import LoadedGoldSet
from ..model import GoldSetMetadata
from . import fqn, native, swebench, yaml_queries
from .base import Format, ReadOptions, RepoMap, SkippedFileWarning

FORMATS: tuple[Format, ...] = (swebench.FORMAT, fqn.FORMAT, yaml_queries.FORMAT, native.FORMAT)
"""Every known shape, most specific first."""

SUFFIXES: frozenset[str] = frozenset(suffix for fmt in FORMATS for suffix in fmt.suffixes)
"""Every suffix some shape may have: other files are never opened."""


def reader_for(path: Path, formats: Sequence[Format] = FORMATS) -> Format | None:
    """Return the first of ``formats`` that claims ``path``, or None when none does."""
    if formats is FORMATS and path.suffix.lower() not in SUFFIXES:
        return None  # the common case, decided without opening the file
    return next((fmt for fmt in formats if fmt.claims(path)), None)


def load(path: Path, options: ReadOptions | None = None) -> LoadedGoldSet:
    """Read ``path`` with the format that claims it (the native reader when none does); never raises."""
    fmt = reader_for(path) or native.FORMAT
    try:
        return fmt.read(path, options or ReadOptions())
    except Exception as exc:  # a reader's own failure on odd content: the file's one error, the run goes on
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"cannot read: {type(exc).__name__}: {exc}")


__all__ = ["FORMATS", "SUFFIXES", "Format", "ReadOptions", "RepoMap", "SkippedFileWarning", "load", "reader_for"]
