"""Commit message to search query: the rule-based transformer (the leak check is ``goldset/leaks.py``).

A commit message is written by someone who has just changed the code; a query is what someone asks before
knowing where the code is. The rules keep the words that describe the change and drop the bookkeeping:
conventional-commit prefixes, issue and PR references, ticket keys, URLs, trailers and bracket tags.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator

_FLAGS = re.IGNORECASE
_TRAILER_LINE = re.compile(
    r"^\s*(?:[\w-]+-by|co-authored-by|change-id|cc|bug|fixes|closes|resolves|refs?|see-also|link|pr-url|"
    r"reviewed-on|issue|ticket|jira|task|part-of|related(?:-to)?|git-svn-id|cherry-picked-from|backport-of)"
    r"\s*:\s.*$",
    _FLAGS,
)
_BOOKKEEPING_LINE = re.compile(
    r"^\s*(?:\(cherry picked from commit [0-9a-f]+\)|this reverts commit [0-9a-f]+.*)$", _FLAGS
)
_DROPPED_LINE = re.compile(f"(?:{_TRAILER_LINE.pattern})|(?:{_BOOKKEEPING_LINE.pattern})", _FLAGS).match
"""A trailer or a bookkeeping line: one search instead of two (split_message runs on every commit)."""
_COMMIT = "mm"
"""What a bookkeeping line holds once lower-cased (``commit`` in any case; ``m`` has no other case form):
with ``:`` for a trailer, lines holding neither skip ``_DROPPED_LINE``, a third of ``split_message`` (issue 23)."""
_EMOJI = r"(?::[a-z0-9_+-]+:|[\u2600-\u27bf\u2b00-\u2bff\U0001f300-\U0001faff\ufe0f\u200d])"
_CONVENTIONAL = re.compile(  # any case: "Fix: ...", "FEAT(ui)!: ...", also after a gitmoji (":bug: Fix: ...")
    rf"^\s*(?:{_EMOJI}\s*)*(?:feat|feature|fix|bugfix|hotfix|docs|doc|style|refactor|perf|test|tests|build|ci|"
    r"chore|revert|deps|security|wip)(?:\([^)]*\))?!?\s*:\s*",
    _FLAGS,
)
_BRACKET_TAG = re.compile(r"\[(?:skip ci|ci skip|no ci|skip actions|wip|rfc|patch[^\]]*|draft)\]", _FLAGS)
_LEADING_TAGS = re.compile(r"^\s*(?:\[[^\]]{1,30}\]\s*)+")
_GITMOJI = re.compile(r":[a-z0-9_+-]+:")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", _FLAGS)
_NOT_TICKETS = r"(?:UTF|UCS|ISO|SHA|MD|RFC|PEP|HTTP|TLS|SSL|IPV|ES|ECMA|AES|RSA|CRC|WIN|ARM|X86|MP|BASE|LATIN|CP|IEEE)-"
_TICKET = rf"(?-i:\b(?!{_NOT_TICKETS})[A-Z][A-Z0-9]{{1,9}}-\d+\b)"
_REF = rf"(?:[\w.-]+/[\w.-]+)?#\d+\b|\bgh-\d+\b|(?<!\w)![0-9]+\b|{_TICKET}"
_CLOSING_REF = re.compile(
    rf"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|related to|part of|addresses)\s*:?\s*(?:{_REF})"
    rf"(?:\s*(?:,|and)\s*(?:{_REF}))*",
    _FLAGS,
)
_BARE_REF = re.compile(rf"{_REF}|\b(?:pr|pull request|issue|bug)\s*#?\d+\b", _FLAGS)
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;:]?\s*\)|\[\s*[,;:]?\s*\]")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([,;:.!?)])")
_DIGIT = re.compile(r"\d")
_EDGE_PUNCTUATION = " \t:;,.-–—|/"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

MAX_QUERY_CHARS = 300
"""Longer queries are cut at a word boundary."""


def decode_message(raw: bytes, encoding: str | None) -> tuple[str, bool]:
    """Return the message text and whether it decoded cleanly (PITFALLS 20: never trust ``Commit.message``).

    The commit's encoding header is tried first, then UTF-8; failing both, UTF-8 with replacement
    characters, and the flag is False.
    """
    for codec in (encoding, "utf-8"):
        if not codec:
            continue
        try:
            codecs.lookup(codec)
            return raw.decode(codec), True
        except (LookupError, UnicodeDecodeError):
            continue
    return raw.decode("utf-8", errors="replace"), False


def split_message(message: str) -> tuple[str, list[str]]:
    """Return the subject (first non-blank line) and the body paragraphs (joined lines), trailers removed."""
    subject, rest = split_subject(message)
    return subject, list(paragraphs_of(rest))


def split_subject(message: str) -> tuple[str, list[str]]:
    """Return the subject (``split_message``'s) and the lines after it, for ``paragraphs_of``.

    The subject is the first line that is neither blank nor a trailer or bookkeeping line. The miner
    reads the body only when the subject is too short a query (issue 23: splitting every message's
    body was most of ``split_message``'s time).
    """
    lines = message.splitlines()
    for index, line in enumerate(lines):
        if line.strip() and not _dropped(line):
            return line.strip(), lines[index + 1 :]
    return "", []


def paragraphs_of(lines: Iterable[str]) -> Iterator[str]:
    """Yield the body paragraphs (joined lines) of the lines after a subject, trailers removed, as read."""
    current: list[str] = []
    for line in lines:
        if _dropped(line):
            continue
        if line.strip():  # a paragraph keeps its first indent, so code and quotes can be told apart
            current.append(line.strip() if current else line.rstrip())
        elif current:
            yield " ".join(current)
            current = []
    if current:
        yield " ".join(current)


def _dropped(line: str) -> bool:
    """Return whether ``line`` is a trailer or a bookkeeping line."""
    # a line holding neither ``:`` nor ``commit`` is no trailer or bookkeeping: no regex for it
    return (":" in line or _COMMIT in line.lower()) and _DROPPED_LINE(line) is not None


def clean_text(text: str) -> str:
    """Return ``text`` without prefixes, tags, references and URLs, whitespace normalised.

    Each pattern is tried only when ``text`` holds a character that every match needs (a colon, a
    bracket, a digit...): most subjects need two or three of the ten substitutions.
    """
    if ":" in text:
        text = _CONVENTIONAL.sub("", text, count=1)
    if "[" in text:
        text = _BRACKET_TAG.sub(" ", text)
        text = _LEADING_TAGS.sub("", text)
    if ":" in text:
        text = _CONVENTIONAL.sub("", text, count=1)  # "[core] fix: ..." has both
        text = _GITMOJI.sub(" ", text)
    if "://" in text or "." in text:
        text = _URL.sub(" ", text)
    if _DIGIT.search(text):  # every reference holds a digit
        text = _CLOSING_REF.sub(" ", text)
        text = _BARE_REF.sub(" ", text)
    previous = None
    while previous != text and ("(" in text or "[" in text):
        previous, text = text, _EMPTY_BRACKETS.sub(" ", text)
    text = _SPACES.sub(" ", text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    return text.strip(_EDGE_PUNCTUATION)


def word_count(text: str) -> int:
    """Return the number of whitespace-separated words in ``text``."""
    return len(text.split())


def message_to_query(message: str, min_words: int = 4) -> str:
    """Return the rule-based query for a commit message; "" when nothing meaningful is left.

    The cleaned subject is the query; when it has fewer than ``min_words`` words, the first sentence of
    the body with at least three words is added after a colon (or used alone if the subject is empty).
    """
    subject, paragraphs = split_message(message)
    return query_from_parts(subject, paragraphs, min_words)


def query_from_parts(subject: str, paragraphs: Iterable[str], min_words: int = 4) -> str:
    """Return ``message_to_query`` of a message already split by ``split_message`` into these parts."""
    query = clean_text(subject)
    if word_count(query) < min_words:
        sentence = _body_sentence(paragraphs)
        if sentence:
            query = f"{query}: {sentence}" if query else sentence
    return _shorten(query)


def _body_sentence(paragraphs: Iterable[str]) -> str:
    """Return the first sentence of three or more words in the body, cleaned, or ""."""
    for paragraph in paragraphs:
        if paragraph.startswith(("```", "    ", "\t", ">")):
            continue
        for sentence in _SENTENCE_END.split(paragraph):
            cleaned = clean_text(sentence)
            if word_count(cleaned) >= 3:
                return cleaned
    return ""


def _shorten(query: str) -> str:
    if len(query) <= MAX_QUERY_CHARS:
        return query
    cut = query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(_EDGE_PUNCTUATION)
