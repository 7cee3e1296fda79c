"""Old-side spans of mined commits against git's own diff text read by the SWE-bench patch parser."""

from __future__ import annotations

import random
from pathlib import Path

import pygit2
import pytest
from gitrepo import init_repo

from pytest_codesearch.goldset.patch import parse_patch
from pytest_codesearch.mining.spans import BlobDiffer, diff_hunks, old_side_spans

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


def test_diffing_stored_blobs_gives_the_hunks_of_their_contents(tmp_path: Path) -> None:
    """The miner hands libgit2 stored blobs (no re-hashing); the hunks are those of the contents diffed."""
    repo = init_repo(tmp_path / "r", bare=True)
    rng = random.Random(7)
    contents: dict[bytes, bytes] = {}
    pairs: list[tuple[bytes, bytes | None]] = []
    for _ in range(600):
        old = b"".join(rng.choice(_LINES) + b"\n" for _ in range(rng.randint(0, 30)))
        new = b"".join(line + b"\n" for line in _edited(rng, old.splitlines()))
        if rng.random() < 0.05:
            new = new.replace(b"x", b"\0")  # binary on one side
        ids = [repo.create_blob(data).raw for data in (old, new)]
        contents.update(zip(ids, (old, new)))
        pairs.append((ids[0], None if rng.random() < 0.05 else ids[1]))  # a deleted file now and then
    differ = BlobDiffer(repo, contents.__getitem__)
    for old_id, new_id in pairs:
        expected = diff_hunks(contents[old_id], b"" if new_id is None else contents[new_id])
        assert differ(old_id, new_id) == expected, (contents[old_id], new_id and contents[new_id])
    tree = repo.write(pygit2.enums.ObjectType.TREE, b"").raw  # an id that names no blob, given content
    contents[tree] = b"x\nb\ny\n"  # shares a line with the other side: libgit2 must diff
    blob = repo.create_blob(b"a\nb\nc\n").raw
    contents[blob] = b"a\nb\nc\n"
    with pytest.raises(KeyError, match="is not a blob"):
        differ(blob, tree)
