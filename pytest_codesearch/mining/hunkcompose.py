"""Hunks from one version of a file to another, through a version between them.

``sitter.py`` keeps a file's syntax tree and the hunks that turn the last version outlined from regions into
the tree's version; the next older version comes with the hunks to that one. Composing the two gives the
hunks from the older version to the tree's, with no diff to compute.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_codesearch.mining.outline import Hunk


def composed(first: Sequence[Hunk], second: Sequence[Hunk], lines: tuple[int, int, int]) -> list[Hunk] | None:
    """Return hunks from version A to version C, given ``first`` (A to B) and ``second`` (B to C).

    ``lines`` are the line counts of A, B and C. The result keeps as alike the lines both leave alike
    (not always the fewest hunks a diff would find): what mapping lines needs. None when the hunks do not
    fit the line counts.
    """
    ab, bc = _runs(first, lines[0], lines[1]), _runs(second, lines[1], lines[2])
    if ab is None or bc is None:
        return None
    runs: list[tuple[int, int, int]] = []
    i = j = 0
    while i < len(ab) and j < len(bc):
        (a, b, size), (b2, c, size2) = ab[i], bc[j]
        low, high = max(b, b2), min(b + size, b2 + size2)
        if low < high:
            runs.append((a + low - b, c + low - b2, high - low))
        if b + size < b2 + size2:
            i += 1
        else:
            j += 1
    hunks: list[Hunk] = []
    a = c = 1
    for at, there, size in [*runs, (lines[0] + 1, lines[2] + 1, 0)]:
        if at > a or there > c:
            count, other = at - a, there - c
            hunks.append((a if count else a - 1, count, c if other else c - 1, other))
        a, c = at + size, there + size
    return hunks


def _runs(hunks: Sequence[Hunk], lines: int, other: int) -> list[tuple[int, int, int]] | None:
    """Return the runs of lines ``hunks`` leave alike, as (line, other line, length); None if they do not fit."""
    runs = []
    line = there = 1
    for start, count, other_start, other_count in [*hunks, (lines + 1, 1, other + 1, 1)]:
        end, other_end = (start if count else start + 1), (other_start if other_count else other_start + 1)
        if end - line != other_end - there or end < line:
            return None
        if end > line:
            runs.append((line, there, end - line))
        line, there = end + count, other_end + other_count
    return runs
