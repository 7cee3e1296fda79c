"""Positions in JSON text: where values start, so readers can name the line of each case."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from .entries import LENIENT

_WHITESPACE = re.compile(r"[ \t\n\r]*")


class LineIndex:
    """Maps character offsets of a text to 1-based line numbers."""

    def __init__(self, text: str) -> None:
        self.newlines = [match.start() for match in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        """Return the 1-based line of the character at ``offset``."""
        return bisect_left(self.newlines, offset) + 1


def skip(text: str, offset: int) -> int:
    """Return the offset of the first non-whitespace character at or after ``offset``."""
    match = _WHITESPACE.match(text, offset)
    return match.end() if match else offset


def members(text: str, start: int) -> Iterator[tuple[str, int]]:
    """Yield (key, value offset) for the members of the object at ``start`` in valid JSON ``text``."""
    offset = skip(text, start + 1)
    while text[offset] != "}":
        key, offset = LENIENT.raw_decode(text, offset)
        value_start = skip(text, skip(text, offset) + 1)  # past the ':'
        yield key, value_start
        offset = skip(text, LENIENT.raw_decode(text, value_start)[1])
        if text[offset] == ",":
            offset = skip(text, offset + 1)


def elements(text: str, start: int) -> Iterator[int]:
    """Yield the offset of each element of the array at ``start`` in valid JSON ``text``."""
    offset = skip(text, start + 1)
    while text[offset] != "]":
        yield offset
        offset = skip(text, LENIENT.raw_decode(text, offset)[1])
        if text[offset] == ",":
            offset = skip(text, offset + 1)
