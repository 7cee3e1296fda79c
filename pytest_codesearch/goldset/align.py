"""Where a patch's hunks sit in a base file: at the lines their headers name, or some lines off.

Published patches are not always numbered against the base they are read with (SWE-bench Lite has
gold patches whose hunks sit 8 lines below their headers); ``git apply`` and GNU ``patch`` still apply
them, by looking for each hunk's lines near where the header puts it. This module does the same, so the
ground truth names the lines the patch really changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .patch import Hunk, Insertion, spans, Span


@dataclass(frozen=True)
class Placed:
    """A file's hunks where the base holds them: old-side line numbers of the base."""

    lines: tuple[Span, ...]
    """Merged spans of the lines the hunks touch (removed, and around pure insertions)."""
    removed: tuple[int, ...]
    insertions: tuple[Insertion, ...]


def base_lines(data: bytes) -> list[str] | None:
    """Return the lines of a base file (no line ends), or None when it is not UTF-8."""
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if lines[-1] == "":
        lines.pop()  # the text after the last newline is not a line
    return [line.removesuffix("\r") for line in lines]


def hunk_offsets(lines: Sequence[str], hunks: Sequence[Hunk]) -> list[int] | None:
    """Return how many lines below its header each hunk sits in ``lines`` (negative: above), or None.

    As GNU ``patch`` does, a hunk is looked for first where the previous hunk's offset puts it, then 1,
    2, ... lines either side of that; every line it shows (context and removed) must match, trailing
    whitespace aside. None when some hunk fits nowhere.
    """
    offsets: list[int] = []
    previous = 0
    for hunk in hunks:
        found = next((o for o in _candidates(previous, len(lines)) if _fits(lines, hunk, o)), None)
        if found is None:
            return None
        offsets.append(found)
        previous = found
    return offsets


def _candidates(start: int, length: int) -> Iterator[int]:
    """Yield ``start``, then offsets ever further from it on both sides, up to the file's length."""
    yield start
    for distance in range(1, length + 1):
        yield start + distance
        yield start - distance


def _fits(lines: Sequence[str], hunk: Hunk, offset: int) -> bool:
    for number, expected in hunk.shown:
        index = number + offset - 1
        if not 0 <= index < len(lines) or lines[index].rstrip() != expected.rstrip():
            return False
    return True


def place(hunks: Sequence[Hunk], offsets: Sequence[int]) -> Placed:
    """Return the hunks' lines moved by their ``offsets``."""
    touched = [line + offset for hunk, offset in zip(hunks, offsets) for line in hunk.touched]
    removed = [line + offset for hunk, offset in zip(hunks, offsets) for line in hunk.removed]
    insertions = [
        Insertion(insertion.before + offset, insertion.indent)
        for hunk, offset in zip(hunks, offsets)
        for insertion in hunk.insertions
    ]
    return Placed(tuple(spans(touched)), tuple(removed), tuple(insertions))
