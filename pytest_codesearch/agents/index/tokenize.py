"""Code-aware tokenizer shared by the built-in search agents.

The rules, each pinned by ``tests/test_tokenize.py``:

* A *word* is a maximal run of word characters (Unicode letters, digits and ``_``). Every other
  character separates words, so spaces, ``.``, ``/`` and ``-`` all split: kebab-case is split
  like prose, and ``utf-8`` is the two words ``utf`` and ``8``.
* A word is cut into *parts* at underscores, where a lowercase letter meets a capital
  (``getItem``), before the last capital of an acronym (``HTTPServer`` -> HTTP, Server) and where
  letters meet digits (``utf8`` -> utf, 8). Only ASCII capitals open a part; any other letter
  counts as lowercase, so ``naïve`` stays whole.
* Parts are lowercased. A part of one character, or one in :data:`STOP_WORDS`, is dropped.
* A word cut into two or more parts is also kept whole, lowercased and without leading or trailing
  underscores, right after its parts: ``snapshot_store`` gives snapshot, store, snapshot_store and
  ``utf8`` gives utf, utf8. A query naming an identifier thus matches it exactly, and its pieces
  still match prose. Hyphenated words are never kept whole: in code ``a-b`` is mostly a subtraction.

Tokenizing runs over every file of a repository, so the regular expressions are compiled once and
a word's tokens are cached: identifiers repeat a great deal within and across files.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

# fmt: off
STOP_WORDS = frozenset(
    {
        # English glue words.
        "an", "and", "are", "as", "at", "be", "by", "for", "from", "if", "in", "into", "is",
        "it", "of", "on", "or", "that", "the", "this", "to", "was", "with",
        # Boilerplate found in nearly every source file.
        "cls", "def", "elif", "else", "import", "pass", "return", "self", "var",
    }
)
# fmt: on
"""Tokens dropped everywhere. One-letter tokens (``a``, ``i``, ``x``) go by the length rule."""

WORD = re.compile(r"\w+")
"""A word: a maximal run of word characters (no word spans a line)."""

_ASCII_SPACES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == ord("_")) else ord(" ") for c in range(256))
"""Each byte itself if it is an ASCII word character (a letter, a digit or ``_``: what ``\\w`` matches
among ASCII characters), else a space."""

# Lowercase letters here mean every word character except digits, "_" and ASCII capitals.
_PART = re.compile(
    r"[A-Z]+(?=[A-Z][^\W\d_A-Z])"  # an acronym before a capitalised part: HTTP|Server
    r"|[A-Z]?[^\W\d_A-Z]+"  # a lowercase or capitalised part: get, Item
    r"|[A-Z]+"  # a trailing acronym: XML
    r"|\d+"  # a number: 8, 256
)


@lru_cache(maxsize=1 << 16)
def word_tokens(word: str) -> tuple[str, ...]:
    """Return the tokens of one word: its kept parts, then the whole word if it was cut (cached)."""
    return split_word(word)


def split_word(word: str) -> tuple[str, ...]:
    """Return :func:`word_tokens` of ``word``, not cached.

    An ASCII word of letters alone, all lowercase, all capitals or one capital then lowercase (``get``,
    ``XML``, ``Item``), or of digits alone, is one part: it skips the regular expression.
    """
    if word.isascii() and (word.isalpha() and (word.islower() or word.isupper() or word.istitle()) or word.isdigit()):
        token = word.lower()
        return (token,) if len(token) > 1 and token not in STOP_WORDS else ()
    parts = _PART.findall(word)
    tokens = [part for part in map(str.lower, parts) if len(part) > 1 and part not in STOP_WORDS]
    if len(parts) > 1:
        tokens.append(word.strip("_").lower())
    return tuple(tokens)


def words(text: str) -> list[str]:
    """Return the words of ``text`` in reading order: ``WORD.findall(text)``.

    An ASCII text (most source files) has every other character turned into a space by
    ``bytes.translate`` and is then split at spaces, about three times as fast as the regular expression.
    """
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_SPACES).decode("ascii").split()
    return WORD.findall(text)


def tokenize(text: str) -> list[str]:
    """Return the tokens of ``text`` in reading order (see the module docstring for the rules)."""
    tokens: list[str] = []
    for word in words(text):
        tokens.extend(word_tokens(word))
    return tokens


def count_tokens(text: str) -> Counter[str]:
    """Return how often each token of ``text`` occurs; equal to ``Counter(tokenize(text))``.

    Words are counted before they are cut, so each distinct word is tokenized once per call. Keys
    come in the order of their first occurrence, as in ``Counter(tokenize(text))``.
    """
    counts: dict[str, int] = {}  # a dict, not a Counter: its missing keys cost no Python call
    get = counts.get
    for word, occurrences in Counter(words(text)).items():
        for token in word_tokens(word):
            counts[token] = get(token, 0) + occurrences
    return Counter(counts)


def path_tokens(path: str) -> list[str]:
    """Return the tokens of a relative file path: every directory, the file stem and extension.

    ``/`` and ``.`` separate words like any other punctuation, so
    ``pytest_codesearch/repo/snapshot.py`` gives pytest, codesearch, pytest_codesearch, repo,
    snapshot, py. The extension is kept on purpose: it lets "yaml config" or "the toml file" find
    files by type, and an extension shared by most files of a repository weighs little in ranking.
    """
    return tokenize(path)
