"""The code-aware tokenizer: exact tokens for identifiers, prose and paths."""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np
import pytest

from pytest_codesearch.agents.index.tokenize import (
    STOP_WORDS,
    WORD,
    count_tokens,
    path_tokens,
    split_word,
    tokenize,
    words,
)
from pytest_codesearch.agents.index.tokencache import TokenCache, newest_terms
from pytest_codesearch.agents.index.wordtable import WordTable, changed_lines

IDENTIFIERS = [
    ("snapshot_store", ["snapshot", "store", "snapshot_store"]),
    ("HTTPServerError", ["http", "server", "error", "httpservererror"]),
    ("getItem", ["get", "item", "getitem"]),
    ("CamelCase", ["camel", "case", "camelcase"]),
    ("XMLParser", ["xml", "parser", "xmlparser"]),
    ("IOError", ["io", "error", "ioerror"]),
    ("MAX_BYTES", ["max", "bytes", "max_bytes"]),
    ("getHTTPResponse2XX", ["get", "http", "response", "xx", "gethttpresponse2xx"]),
    ("utf8", ["utf", "utf8"]),
    ("sha256sum", ["sha", "256", "sum", "sha256sum"]),
    ("x86_64", ["86", "64", "x86_64"]),
    ("__init__", ["init"]),
    ("_private_helper", ["private", "helper", "private_helper"]),
    ("is_valid", ["valid", "is_valid"]),
    ("get_x", ["get", "get_x"]),
    ("3d", ["3d"]),
    ("ÉcoleNormale", ["école", "normale", "écolenormale"]),
    ("naïve", ["naïve"]),
    ("parser", ["parser"]),
    ("URL", ["url"]),
    ("404", ["404"]),
]


@pytest.mark.parametrize(("text", "expected"), IDENTIFIERS)
def test_identifiers_split_into_parts_then_the_whole(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_a_word_of_one_part_skips_the_regular_expression_and_gives_its_tokens() -> None:
    part = re.compile(r"[A-Z]+(?=[A-Z][^\W\d_A-Z])|[A-Z]?[^\W\d_A-Z]+|[A-Z]+|\d+")  # the rule, written again

    def expected(word: str) -> tuple[str, ...]:
        parts = part.findall(word)
        kept = [p.lower() for p in parts if len(p) > 1 and p.lower() not in STOP_WORDS]
        return tuple(kept + [word.strip("_").lower()] * (len(parts) > 1))

    assert [split_word(w) for w in ["get", "Item", "XML", "256", "The", "SELF", "a", "Z", "7", "Ab"]] == [
        ("get",), ("item",), ("xml",), ("256",), (), (), (), (), (), ("ab",),
    ]  # fmt: skip
    rng = random.Random(5)
    letters = ["ab", "AB", "aB", "a1", "_a", "é", "ǅ", "Ⅳ", "٣"]  # titlecase, a Roman numeral, an Arabic digit
    for _ in range(2000):
        word = "".join(rng.choice(rng.choice(letters)) for _ in range(rng.randrange(1, 7)))
        if WORD.fullmatch(word):
            assert split_word(word) == expected(word), word


SENTENCES = [
    ("Return the snapshot of a repository.", ["snapshot", "repository"]),
    ("def load_goldset(self, path):", ["load", "goldset", "load_goldset", "path"]),
    ("import os, sys", ["os", "sys"]),
    ("encode as utf-8 (UTF8) text", ["encode", "utf", "utf", "utf8", "text"]),
    ("the --codesearch-agent option", ["codesearch", "agent", "option"]),
    ("x = y + 1  # i is an index", ["index"]),
    ("raise HTTPServerError(code=500)", ["raise", "http", "server", "error", "httpservererror", "code", "500"]),
    ("", []),
    ("   ...  !=  ", []),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCES)
def test_sentences_drop_stop_words_and_single_characters(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pytest_codesearch/repo/snapshot.py", ["pytest", "codesearch", "pytest_codesearch", "repo", "snapshot", "py"]),
        ("docs/README.md", ["docs", "readme", "md"]),
        ("src/HttpClient.java", ["src", "http", "client", "httpclient", "java"]),
        ("Dockerfile", ["dockerfile"]),
        (".github/workflows/ci.yml", ["github", "workflows", "ci", "yml"]),
        ("a/b/c", []),
    ],
)
def test_path_tokens_cover_directories_stem_and_extension(path: str, expected: list[str]) -> None:
    assert path_tokens(path) == expected


def test_stop_words_are_lowercase_and_longer_than_one_character() -> None:
    assert all(word == word.lower() and len(word) > 1 for word in STOP_WORDS)
    assert {"the", "and", "of", "to", "in", "is", "for", "self", "def", "return", "import"} <= STOP_WORDS


def test_stop_words_are_dropped_as_parts_but_kept_inside_a_whole_identifier() -> None:
    assert tokenize("The self return_value") == ["value", "return_value"]


CODE = '''
class SnapshotStore:
    """Keep one snapshot per commit; a snapshot_store is cheap."""

    def get_snapshot(self, commit: str) -> Snapshot:
        return self._snapshots[commit]  # HTTPServerError never, utf8 always
'''


def test_count_tokens_equals_counting_the_token_sequence_in_the_same_order() -> None:
    counts = count_tokens(CODE)
    expected = Counter(tokenize(CODE))
    assert counts == expected
    assert list(counts) == list(expected)
    assert counts["snapshot"] == 5
    assert counts["snapshot_store"] == 1


def test_words_are_the_regular_expressions_matches_on_ascii_and_other_texts() -> None:
    every_ascii = "".join(map(chr, range(128)))
    expected = ["0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "_", "abcdefghijklmnopqrstuvwxyz"]
    assert words(every_ascii) == WORD.findall(every_ascii) == expected
    rng = random.Random(3)
    alphabets = [every_ascii, every_ascii + "éü\u00a0\u2028\x85\u0663ß", "ab_ \n\t\x0b\x0c\x1c\x1d\x1e\x1f.-"]
    for _ in range(300):
        text = "".join(rng.choice(rng.choice(alphabets)) for _ in range(rng.randrange(60)))
        assert words(text) == WORD.findall(text), repr(text)


def test_a_word_table_counts_term_ids_as_count_tokens_counts_tokens() -> None:
    vocabulary: dict[str, int] = {}
    WordTable(vocabulary).counts(CODE)
    assert list(vocabulary) == list(count_tokens(CODE))  # terms are numbered in the order they first occur
    vocabulary.clear()
    table = WordTable(vocabulary, max_words=12)  # small: the table starts afresh mid-way, counts stay exact
    texts = [CODE, "", "a the is", CODE.upper(), "naïve utf8 HTTPServer\r\nsnapshot_store\x00ünïcode " * 3]
    for text in texts + texts:
        ids, counts = table.counts(text)
        terms = list(vocabulary)
        assert list(ids) == sorted(ids) and counts.dtype == ids.dtype == np.int32
        assert dict(zip([terms[i] for i in ids], counts.tolist())) == dict(count_tokens(text))
    ids, counts = table.counts("snapshot snapshot_store Snapshot")
    assert {list(vocabulary)[i]: n for i, n in zip(ids, counts.tolist())} == {"snapshot": 3, "store": 1,
                                                                               "snapshot_store": 1}  # fmt: skip


def test_term_ids_number_new_tokens_after_the_known_ones_in_their_order() -> None:
    cache = TokenCache()
    assert cache.term_ids(["login", "token"]) == [0, 1]
    assert cache.term_ids(["session", "token", "user", "session", "login"]) == [2, 1, 3, 2, 0]
    assert cache.term_ids([]) == [] and list(cache.vocabulary) == ["login", "token", "session", "user"]


def test_the_newest_terms_are_read_from_the_vocabularys_end_oldest_first() -> None:
    vocabulary = {"login": 0, "token": 1, "session": 2}
    assert newest_terms(vocabulary, 2) == ["token", "session"] and newest_terms(vocabulary, 0) == []


@pytest.mark.parametrize("max_words", [1 << 20, 5])  # 5: the table starts afresh again and again
def test_a_new_version_counted_from_the_old_one_and_its_changed_lines_counts_as_counting_it_afresh(
    max_words: int,
) -> None:
    rng = random.Random(7)
    words = ["snapshot", "snapshot_store", "getItem", "HTTPServer", "utf8", "naïve", "the", "x", "", "    "]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randrange(4))) for _ in range(40)]
    vocabulary: dict[str, int] = {}
    table = WordTable(vocabulary, max_words)
    derived = 0
    for _ in range(200):
        edited = list(lines)
        for _ in range(rng.randrange(1, 6)):  # replace, insert, delete or repeat a line
            at = rng.randrange(len(edited))
            kind = rng.randrange(4)
            if kind == 0:
                edited[at] = " ".join(rng.choice(words) for _ in range(3))
            elif kind == 1:
                edited.insert(at, rng.choice(edited))
            elif kind == 2 and len(edited) > 1:
                del edited[at]
            else:
                edited.append(edited[at])
        old, new = "\n".join(lines), "\n".join(edited)
        before = table.counts(old)
        found = table.counts_since(*before, old, new)
        expected = table.counts(new)
        if found is not None:
            derived += 1
            assert found[0].tolist() == expected[0].tolist() and found[1].tolist() == expected[1].tolist()
            assert found[0].dtype == found[1].dtype == np.int32
        lines = edited
    assert derived > 150  # few lines change: nearly every version is derived
    assert table.counts_since(*table.counts("a b\nc d"), "a b\nc d", "e f\ng h") is None  # all lines differ


def test_changed_lines_are_the_lines_whose_number_differs_in_order() -> None:
    old = "a\nb\nb\nc\nd\nd\ne"
    new = "x\nb\nd\nd\nd\nc\ny\nx"
    assert changed_lines(old, new) == (["x", "x", "d", "y"], ["b", "a", "e"])  # new's order, then old's
    assert changed_lines(old, old) == ([], [])


def test_a_version_is_derived_while_its_changed_lines_hold_fewer_characters_than_it() -> None:
    table = WordTable({})
    old = "snapshot_store keeps every commit of the repository\na1\nb1\nc1"
    new = "snapshot_store keeps every commit of the repository\na2\nb2\nc2"  # 3 lines of 4 differ, 18 characters of 60
    found = table.counts_since(*table.counts(old), old, new)
    terms = list(table.vocabulary)
    assert found is not None
    assert dict(zip([terms[i] for i in found[0]], found[1].tolist())) == {
        "snapshot": 1, "store": 1, "snapshot_store": 1, "keeps": 1, "every": 1, "commit": 1, "repository": 1,
        "a2": 1, "b2": 1, "c2": 1,
    }  # fmt: skip
    short = "commit\nrepository\n"
    assert table.counts_since(*table.counts(old), old, short) is None  # 19 + 62 characters change, of 18


def test_the_token_cache_counts_a_files_next_version_from_its_last_one() -> None:
    cache = TokenCache()
    first = "def login(user):\n    return session_token(user)\n" * 20
    second = first + "def logout(user):\n    drop_session(user)\n"
    cache.document("blob-1", "app/auth.py", 1, lambda: first.encode())
    found = cache.document("blob-2", "app/auth.py", 1, lambda: second.encode())
    fresh = TokenCache()
    expected = fresh.document("blob-2", "app/auth.py", 1, lambda: second.encode())
    assert found is not None and expected is not None
    named = dict(zip([list(cache.vocabulary)[i] for i in found[0]], found[1].tolist()))
    assert named == dict(zip([list(fresh.vocabulary)[i] for i in expected[0]], expected[1].tolist()))
    assert named["logout"] == 1 and named["login"] == 20 and named["auth"] == 1  # text, then the path's tokens
    assert (cache.tokenized, cache.derived, fresh.derived) == (2, 1, 0)
