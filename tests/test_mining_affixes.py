"""Common prefixes and suffixes, and the whitespace check built on them, against plain byte loops."""

from __future__ import annotations

import random

import pytest

from pytest_codesearch.mining.affixes import common_prefix, common_suffix
from pytest_codesearch.mining.classify import same_ignoring_whitespace


def _prefix(a: bytes, b: bytes) -> int:
    size = 0
    while size < min(len(a), len(b)) and a[size] == b[size]:
        size += 1
    return size


def _suffix(a: bytes, b: bytes, limit: int) -> int:
    size = 0
    while size < min(limit, len(a), len(b)) and a[-size - 1] == b[-size - 1]:
        size += 1
    return size


def _variant(rng: random.Random, base: bytes) -> bytes:
    """Return ``base`` with a few bytes replaced, inserted or deleted, in one place or several."""
    data = bytearray(base)
    for _ in range(rng.choice((0, 1, 1, 2, 5))):
        at = rng.randrange(len(data) + 1)
        kind = rng.random()
        if kind < 0.4 and at < len(data):
            data[at] = rng.choice(b"ab \n\t")
        elif kind < 0.7:
            data[at:at] = bytes(rng.choice(b"ab \n") for _ in range(rng.randint(1, 300)))
        else:
            del data[at : at + rng.randint(1, 300)]
    return bytes(data)


def test_prefix_and_suffix_match_a_byte_loop_on_random_pairs() -> None:
    rng = random.Random(12)
    for _ in range(250):
        base = bytes(rng.choice(b"abc \n") for _ in range(rng.choice((0, 1, 17, 300, 4000))))
        a, b = _variant(rng, base), _variant(rng, base)
        start = common_prefix(a, b)
        assert start == _prefix(a, b)
        limit = min(len(a), len(b)) - start
        assert common_suffix(a, b, limit) == _suffix(a, b, limit)


@pytest.mark.parametrize(
    ("a", "b", "prefix", "suffix"),
    [
        (b"", b"", 0, 0),
        (b"abc", b"abc", 3, 0),  # the suffix may not overlap the prefix
        (b"abc", b"abcd", 3, 0),
        (b"xabc", b"yabc", 0, 3),
        (b"aXa", b"aYYa", 1, 1),
        (b"a" * 1000, b"a" * 999, 999, 0),
    ],
)
def test_prefix_and_suffix_of_small_cases(a: bytes, b: bytes, prefix: int, suffix: int) -> None:
    assert common_prefix(a, b) == prefix
    assert common_suffix(a, b, min(len(a), len(b)) - prefix) == suffix


def test_whitespace_check_equals_stripping_whole_contents() -> None:
    rng = random.Random(5)
    strip = bytes.maketrans(b"", b"")
    same = 0
    for _ in range(250):
        base = bytes(rng.choice(b"ab \n\t\r") for _ in range(rng.choice((0, 40, 3000))))
        a, b = _variant(rng, base), _variant(rng, base)
        expected = a.translate(strip, b" \t\n\r\f\v") == b.translate(strip, b" \t\n\r\f\v")
        assert same_ignoring_whitespace(a, b) is expected
        same += expected
    assert 25 < same < 225  # both answers were exercised


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [
        (b"", b"", True),
        (b"", b" \n", True),
        (b"a  b", b"a b", True),
        (b"a b", b"ab\n", True),
        (b"a b", b"a c", False),
        (b"ab", b"a", False),
        (b"x = 1\n" * 200, b"x  =  1\r\n" * 200, True),  # more differences than are stepped over one by one
        (b"x = 1\n" * 200, b"x  =  1\r\n" * 199 + b"x = 2\n", False),
    ],
)
def test_whitespace_check_small_cases(old: bytes, new: bytes, same: bool) -> None:
    assert same_ignoring_whitespace(old, new) is same
    assert same_ignoring_whitespace(new, old) is same
