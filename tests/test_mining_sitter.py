"""Mining outlines of non-Python files reparse each version from the tree of the version met before:
they must find what outlining each version whole finds, along random histories."""

from __future__ import annotations

import hashlib
import random

import pytest
from language_samples import SAMPLES

from pytest_codesearch.goldset.entities import entities_in_spans
from pytest_codesearch.mining.sitter import TreeOutlines, edited, line_offsets
from pytest_codesearch.mining.spans import diff_hunks, old_side
from pytest_codesearch.outline import grammar, language_of, outline

TREE_SAMPLES = [s for s in SAMPLES if s.language != "python"]


def _mutate(rng: random.Random, text: bytes, pool: list[bytes]) -> bytes:
    """Return ``text`` with a few lines deleted, duplicated or taken from ``pool`` (code of the language)."""
    lines = text.splitlines(keepends=True)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(lines) + 1)
        action = rng.random()
        if action < 0.3 and lines:
            del lines[min(at, len(lines) - 1)]
        elif action < 0.6:
            lines.insert(at, rng.choice(pool))
        elif lines:
            lines.insert(at, lines[min(at, len(lines) - 1)])
    return b"".join(lines)


@pytest.mark.parametrize("sample", TREE_SAMPLES, ids=[s.language for s in TREE_SAMPLES])
def test_reparsed_outlines_find_what_whole_outlines_find(sample: pytest.FixtureDef, seed: int = 7) -> None:
    rng = random.Random(f"{seed}-{sample.language}")
    path, text = next(iter(sample.fixed().items()))
    pool = [line for file in (*sample.files.values(), *sample.fixed().values()) for line in file.encode().splitlines(True)]
    versions = [text.encode()]
    for _ in range(40):
        versions.append(_mutate(rng, versions[-1], pool))
    blobs = {hashlib.sha1(v).digest(): v for v in versions}
    ids = [hashlib.sha1(v).digest() for v in versions]
    trees = TreeOutlines(blobs.__getitem__, lambda a, b: diff_hunks(blobs[a], blobs[b]))
    language = language_of(path)
    assert language is not None
    for index in range(len(versions) - 1, 0, -1):  # newest first: the parent is versions[index - 1]
        parent, child = ids[index - 1], ids[index]
        hunks = diff_hunks(blobs[parent], blobs[child])
        spans = old_side(blobs[parent], hunks)
        if not spans:
            continue
        found = trees.definitions(path, language, (parent, child), hunks, spans)
        whole = outline(path, blobs[parent]).definitions
        assert entities_in_spans(path, found, spans) == entities_in_spans(path, whole, spans), index


def test_edits_that_do_not_account_for_every_byte_are_refused() -> None:
    base, source = b"int a;\nint b;\n", b"int a;\nint c = 1;\n"
    tree = grammar("c").parse(base)
    assert edited(tree, base, source, [(2, 1, 2, 1)]) is not None
    assert edited(grammar("c").parse(base), base, source, [(1, 1, 1, 1)]) is None  # the wrong line
    assert edited(grammar("c").parse(base), base, source, [(5, 1, 5, 1)]) is None  # past the end
    assert line_offsets(b"a\nbc") == [0, 2, 4]
