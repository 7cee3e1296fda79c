"""Text safe for records: the one place that makes strings from gold sets, repositories and agents writable.

A case record is JSON (UTF-8) in the test report, the journal, ``results.json`` and every report file.
A Python string can hold what UTF-8 cannot: a lone surrogate from a gold set (``"\\ud800"`` is valid
JSON) or from a file name that is not UTF-8 (Python decodes its bytes with ``surrogateescape``, so
byte ``0xE9`` becomes ``"\\udce9"``). ``safe_record`` rewrites every such character once, when the record
is made, so that nothing later can fail to write it:

- a byte escaped by ``surrogateescape`` (``U+DC80``..``U+DCFF``) becomes ``\\xNN``, the byte it stands for
  (a Latin-1 ``café`` directory is recorded as ``caf\\xe9``);
- any other lone surrogate becomes ``\\uXXXX``.

Only the record is rewritten: agents get the query as the gold set gives it, and file names still
round-trip to the tree (snapshots keep ``surrogateescape`` names where they are used as paths). A
record that is rewritten no longer names the exact string, which is the price of writing it at all.

Sizes are bounded the same way, since a record is copied into the journal, ``results.json``, the CSV,
the HTML page and the history: the query keeps ``MAX_QUERY_CHARS`` characters, every other string of
the record (an answer entry, an error text, a metadata value) ``MAX_TEXT_CHARS``; what is cut ends in
a note saying how much (``clip``). The fields that name the case (``RECORD_NAMES``) are never cut.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_QUERY_CHARS = 16_384
"""The characters of a query a record keeps (a long issue text fits; a 50 MB one does not)."""
MAX_TEXT_CHARS = 4_096
"""The characters any other string of a record keeps: a path, a symbol, an error text, a metadata value."""
MAX_FAILURE_CHARS = 65_536
"""The characters of a failed item's text (its traceback) pytest shows and sends across xdist."""
RECORD_NAMES = frozenset({"id", "goldset", "agent", "nodeid", "repo", "snapshot", "base_commit", "worker"})
"""Record fields that name the case: made safe, never cut (node ids must match the collected ones)."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Return ``text`` with every lone surrogate escaped (``\\xNN`` for a ``surrogateescape`` byte)."""
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape, text)


def clip(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters, ending in a note saying how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit:,} more characters cut]"


def safe_value(value: Any, limit: int | None = MAX_TEXT_CHARS) -> Any:
    """Return ``value`` with every string in it made safe (``safe_text``) and cut to ``limit`` (``clip``;
    None: not cut), keys of mappings too.

    Strings, lists, tuples and dicts are rebuilt only when something in them changed; any other value
    is returned as it is (the record's model checks its type).
    """
    if _plain(value, MAX_QUERY_CHARS if limit is None else limit):  # the common case, checked without copying
        return value
    if isinstance(value, str):
        return safe_text(value) if limit is None else _bounded(value, limit)
    if isinstance(value, (list, tuple)):
        items = [safe_value(v, limit) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        pairs = [(safe_value(k, limit), safe_value(v, limit)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items())):
            return value
        return dict(pairs)
    return value


_SCALARS = frozenset({float, int, bool, type(None)})
_STRINGS = frozenset({str})


def _plain(value: Any, limit: int) -> bool:
    """Return True when ``value`` is a scalar, an ASCII string of at most ``limit`` characters, or a flat list,
    tuple or dict of those: nothing in it to escape or cut (checked in C loops, nothing copied)."""
    kind = type(value)
    if kind is str:
        return len(value) <= limit and value.isascii()
    if kind in _SCALARS:
        return True
    if kind is list or kind is tuple:
        return _plain_flat(value, limit)
    if kind is dict:
        return _plain_flat(value.keys(), limit) and _plain_flat(value.values(), limit)
    return False


def _plain_flat(values: Collection[Any], limit: int) -> bool:
    """Return True when every one of ``values`` is a scalar or a plain string (see ``_plain``)."""
    kinds = set(map(type, values))
    if kinds <= _SCALARS:
        return True
    if kinds == _STRINGS:
        strings = values
    elif kinds - _SCALARS == _STRINGS:
        strings = [v for v in values if type(v) is str]
    else:
        return False
    return all(map(str.isascii, strings)) and max(map(len, strings)) <= limit


def _bounded(text: str, limit: int) -> str:
    """Return ``text`` made safe and at most ``limit`` characters (escapes included), with a note when cut.

    Only the first ``limit`` characters are escaped: an escape is longer than what it stands for, so the
    escaped head is cut again at ``limit``.
    """
    head = safe_text(text[:limit])
    if len(text) <= limit and len(head) <= limit:
        return head
    shown = head[:limit]
    return f"{shown}... [{max(len(text) - len(shown), 1):,} more characters cut]"


_NONE_SAFE: Mapping[str, Any] = {}
_NOT_GIVEN = object()


def safe_record(record: dict[str, Any], made_safe: Mapping[str, Any] = _NONE_SAFE) -> dict[str, Any]:
    """Return a case record's fields (as given to ``CaseResult``) with every string safe for JSON and bounded.

    A field whose value is the very object ``made_safe`` holds for its name was made safe already (by this
    function: the case's own fields, made once for all its agents and runs) and is kept as it is.
    """
    safe = record.copy()  # most fields are kept as they are: only the others are replaced, in place
    for key, value in record.items():
        kind = type(value)
        if kind in _SCALARS or (kind is str and value.isascii() and len(value) <= MAX_TEXT_CHARS):
            continue  # most fields: nothing to escape or cut, whatever the field's limit
        if not value and (kind is list or kind is dict):
            continue  # half a record's lists are empty (no spans, symbols, tags, ...)
        if made_safe.get(key, _NOT_GIVEN) is not value:
            safe[key] = safe_value(value, _limit(key))
    return safe


def _limit(key: str) -> int | None:
    if key in RECORD_NAMES:
        return None
    return MAX_QUERY_CHARS if key == "query" else MAX_TEXT_CHARS
