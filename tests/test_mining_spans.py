"""Old-side spans of mined commits against git's own diff text read by the SWE-bench patch parser."""

from __future__ import annotations

import random

import pygit2
import pytest

from pytest_codesearch.goldset.patch import parse_patch
from pytest_codesearch.mining.spans import old_side_spans

_FLAGS = pygit2.enums.DiffOption.INDENT_HEURISTIC
_LINES = [b"a\n", b"b\n", b"}\n", b"\n", b"x\n", b"c", b"\t\tif (y)\n", b"\t\ty\n"]


def _reference(old: bytes, new: bytes) -> tuple[tuple[int, int], ...]:
    """Return the spans ``goldset/patch.py`` reads from libgit2's three-line-context patch text."""
    text = pygit2.Patch.create_from(old, new, "f", "f", flag=_FLAGS).text or ""
    return parse_patch(text).old_lines().get("f", ())


def _edited(rng: random.Random, lines: list[bytes]) -> list[bytes]:
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        at, roll = rng.randint(0, len(lines)), rng.random()
        if roll < 0.4:
            lines.insert(at, rng.choice(_LINES))
        elif lines and roll < 0.7:
            del lines[min(at, len(lines) - 1)]
        elif lines:
            lines[min(at, len(lines) - 1)] = rng.choice(_LINES)
    return lines


@pytest.mark.parametrize("seed", range(3))
def test_spans_equal_those_of_the_patch_text(seed: int) -> None:
    """Repetitive lines make hunks that slide and middles that share lines: both paths are exercised."""
    rng = random.Random(seed)
    for _ in range(3000):
        old = [rng.choice(_LINES) for _ in range(rng.randint(0, 14))]
        old = [line if line.endswith(b"\n") else line + b"\n" for line in old[:-1]] + old[-1:]
        new = _edited(rng, old)
        new = [line if line.endswith(b"\n") else line + b"\n" for line in new[:-1]] + new[-1:]
        before, after = b"".join(old), b"".join(new)
        assert old_side_spans(before, after) == _reference(before, after), (before, after)


@pytest.mark.parametrize(
    ("old", "new", "spans"),
    [
        (b"a\nb\nc\n", b"a\nX\nb\nc\n", ((1, 2),)),  # an insertion marks the lines on either side
        (b"a\nb\nc\n", b"X\na\nb\nc\n", ((1, 1),)),  # at the top: the line after only
        (b"a\nb\nc\n", b"a\nb\nc\nX\n", ((3, 3),)),  # at the end: the line before only
        (b"a\nb\nc\n", b"a\nB\nc\n", ((2, 2),)),
        (b"a\nb\nc\n", b"", ((1, 3),)),  # a deleted file: every line
        (b"a\nb", b"a\nb\nc\n", ((2, 2),)),  # the last line gains its newline
        (b"a\0b\n", b"a\0c\n", ()),  # binary: no lines, as "Binary files differ"
        (b"same\n", b"same\n", ()),
    ],
)
def test_spans_of_small_changes(old: bytes, new: bytes, spans: tuple[tuple[int, int], ...]) -> None:
    assert old_side_spans(old, new) == spans == _reference(old, new)
