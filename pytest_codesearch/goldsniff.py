"""Which gold-set shape a file has, decided from a cheap look at its start with the standard library only.

Each reader under ``goldset/formats/`` claims its files with one of these sniffers, and a run without
an agent asks the same sniffers (``shape_of``) to say that gold sets were found, without importing
the readers (pydantic, pygit2, PyYAML). A sniffer returns True for broken files of its shape too, so
their errors are shown; it may raise ``OSError``. Shapes are tried most specific first::

    shape_of(Path("goldsets/lite.jsonl"))   # -> "swebench", "fqn", "yaml-queries", "native" or None
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

_HEAD = 65_536
"""Bytes read to recognise a file: the first record's early keys are in them."""
_SINGLE_LIMIT = 4 * 1024 * 1024
"""A ``.json`` object larger than this is not read as one SWE-bench instance (its whole text is parsed to tell)."""
_LENIENT = json.JSONDecoder()


def _head(path: Path) -> bytes:
    with path.open("rb") as stream:
        return stream.read(_HEAD)


def sniff_swebench(path: Path) -> bool:
    """Return True when the file's first instance has ``instance_id`` and ``base_commit`` (a cheap look)."""
    head = _head(path)
    if b'"instance_id"' not in head or b'"base_commit"' not in head:
        return False
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if path.suffix.lower() == ".jsonl":
        first = text.split("\n", 1)[0]
        try:
            value = _LENIENT.decode(first)
        except ValueError:  # a line longer than the head, or broken: the keys were seen in it
            return '"instance_id"' in first and '"base_commit"' in first
        return isinstance(value, dict) and "instance_id" in value and "base_commit" in value
    if text.startswith("{"):
        return _single_instance(path)
    return text.startswith("[")


def _single_instance(path: Path) -> bool:
    """Return True when a ``.json`` object file is one instance (its top-level keys say so), or is broken."""
    data = path.read_bytes()
    if len(data) > _SINGLE_LIMIT:
        return False  # a report or another document, not one instance
    try:
        value = _LENIENT.decode(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):  # also UnicodeDecodeError, or nesting too deep: a broken instance is still one
        return b'"test_cases"' not in data
    return isinstance(value, dict) and "instance_id" in value and "base_commit" in value


def sniff_fqn(path: Path) -> bool:
    """Return True when the start of the file mentions ``positive_ctxs`` (broken files of the shape too)."""
    return b'"positive_ctxs"' in _head(path)


def sniff_yaml_queries(path: Path) -> bool:
    """Return True when the file mentions ``expected_files`` (broken files of the shape too)."""
    return b"expected_files" in _head(path)


def sniff_native(path: Path) -> bool:
    """Return True when ``path`` looks like a native gold set (broken ones too, so their errors are shown)."""
    if path.suffix.lower() == ".json":
        return _json_looks_like_goldset(path.read_bytes())
    return _jsonl_looks_like_goldset(_first_nonblank_line(path))


def _json_looks_like_goldset(data: bytes) -> bool:
    if b'"test_cases"' not in data:
        return False
    try:
        document = _LENIENT.decode(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):  # also UnicodeDecodeError, or nesting too deep: a broken gold set is still one
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
    except (ValueError, RecursionError):
        return b'"ground_truth_files"' in raw or b'"metadata"' in raw
    if not isinstance(first, dict):
        return False
    # a case with a query and an id (or some ground truth) is one, its truth missing or misspelt:
    # claimed, so that its error is shown rather than the file skipped
    truth = any(key.startswith("ground_truth") for key in first)
    return "metadata" in first or ("query" in first and (truth or "id" in first))


SHAPES: tuple[tuple[str, tuple[str, ...], Callable[[Path], bool]], ...] = (
    ("swebench", (".json", ".jsonl"), sniff_swebench),
    ("fqn", (".jsonl",), sniff_fqn),
    ("yaml-queries", (".yaml", ".yml"), sniff_yaml_queries),
    ("native", (".json", ".jsonl"), sniff_native),
)
"""Every shape as (name, suffixes, sniffer), most specific first: the readers' registry follows this order."""


def shape_of(path: Path) -> str | None:
    """Return the name of the first shape that claims ``path`` (suffix, then a look at the content), or None."""
    suffix = path.suffix.lower()
    for name, suffixes, sniff in SHAPES:
        if suffix not in suffixes:
            continue
        try:
            if sniff(path):
                return name
        except OSError:
            return None
    return None
