"""The transparent rules that decide which commits become cases: messages, authors, complexity.

Which paths can be ground truth (tests, docs, binary files...) is ``pytest_codesearch/filekinds.py``'s.

Every rule is data here, with a name and a description, so that ``docs/mining.md`` can list them and a
gold set's metadata can say which ones were applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pytest_codesearch.mining.affixes import common_prefix

_WHITESPACE = b" \t\n\r\f\v"
_SPACES = re.compile(rb"[ \t\n\r\f\v]*")
_WHITESPACE_STEPS = 64
"""Differences the whitespace check steps over one by one before it strips the rest of both contents."""


@dataclass(frozen=True)
class MessageRule:
    """A rule that drops a commit whose message matches ``pattern`` (case-insensitive)."""

    name: str
    description: str
    pattern: re.Pattern[str]
    subject_only: bool = True
    """Match the first line only; otherwise the whole message."""
    words: tuple[str, ...] = ()
    """Lower-case words one of which every match holds (letters without special case folding, so that
    ``str.lower`` finds them where the pattern does): a message holding none is cleared without a regular
    expression search. Empty: the pattern is always searched."""

    def matches(self, subject: str, message: str) -> bool:
        """Return whether the rule drops a commit with this subject and message."""
        return self.pattern.search(subject if self.subject_only else message) is not None


def _rule(
    name: str, description: str, pattern: str, subject_only: bool = True, words: tuple[str, ...] = ()
) -> MessageRule:
    return MessageRule(name, description, re.compile(pattern, re.IGNORECASE | re.MULTILINE), subject_only, words)


_VERSION = r"v?\d+\.\d+(?:\.\d+)*(?:[-.+]?\w+)?"
_PREFIX = r"^\s*(?:(?:chore|build|deps|release)(?:\([^)]*\))?!?:\s*)?"
MESSAGE_RULES: tuple[MessageRule, ...] = (
    _rule(
        "merge",
        "the subject reads like a merge ('Merge branch ...', 'Merge pull request #1 ...')",
        r"^\s*merged? (?:branch|pull request|remote-tracking branch|tag|commit|changes|upstream|master|main)\b",
    ),
    _rule(
        "revert",
        "the commit reverts another ('Revert \"...\"', 'revert: ...', 'This reverts commit ...')",
        r"\A\s*(?:revert|reapply)\b|^this reverts commit [0-9a-f]{7,}",
        subject_only=False,
        words=("revert", "reapply"),
    ),
    _rule(
        "version-bump",
        "the subject bumps a version ('Bump version to 1.2', 'Bump foo from 1.0 to 1.1', "
        "'chore: update foo to 2.0', '1.2.3')",
        rf"{_PREFIX}bump(?:ed|s|ing)?\b|{_PREFIX}(?:update|upgrade|pin)\b.* to {_VERSION}\s*$"
        rf"|\b(?:set|update|increment|change) (?:the )?version\b|^\s*(?:version )?{_VERSION}\s*$",
    ),
    _rule(
        "release",
        "the subject prepares or tags a release ('Release 2.0', 'chore(release): ...', 'Prepare 1.3.0')",
        rf"^\s*(?:cut|prepare|preparing|prep|tag|tagging|release|releasing|publish|ship)\b.*\b{_VERSION}"
        r"|^\s*chore\(release\)|^\s*prepare (?:for )?(?:the )?(?:next )?release\b",
    ),
    _rule(
        "typo",
        "the subject fixes typos or spelling",
        r"\btypos?\b|\bspelling\b|\bmisspel|\bgrammar\b",
    ),
    _rule(
        "style",
        "the subject is about formatting or linting ('style: ...', 'Run black', 'Fix lint', 'Reformat code')",
        r"^\s*style(?:\([^)]*\))?!?:|^\s*(?:(?:apply|run|ran|fix|fixed|fixes|update|appease|satisfy)\s+)?"
        r"(?:black|isort|prettier|flake8|ruff|pylint|eslint|clang-format|gofmt|rustfmt|pre-commit|lint(?:ing|er)?"
        r"|reformat\w*|formatting|format (?:code|files|sources|with|using)|code style|whitespace|pep ?8"
        r"|trailing (?:white)?spaces?)\b",
    ),
)
"""The message rules, in the order they are tried; ``FilterConfig.drop_rules`` names those applied."""

RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in MESSAGE_RULES)


@dataclass(frozen=True)
class KindRule:
    """A rule that labels a kept commit's category from its message subject."""

    name: str
    category: str
    pattern: re.Pattern[str]


_CONVENTIONAL = re.compile(
    r"^\s*(?P<type>feat|feature|fix|bugfix|hotfix|perf|refactor|security|docs|test|tests|build|ci|chore|deps)"
    r"(?:\([^)]*\))?!?:",
    re.IGNORECASE,
)
_CONVENTIONAL_CATEGORY = {"feat": "feature", "feature": "feature", "bugfix": "fix", "hotfix": "fix", "tests": "test"}
KIND_RULES: tuple[KindRule, ...] = (
    KindRule("keyword-fix", "fix", re.compile(r"\b(?:fix\w*|bugs?|crash\w*|regression|broken|wrong)\b", re.I)),
    KindRule("keyword-perf", "perf", re.compile(r"\b(?:speed\w* up|faster|performance|optimi[sz]\w*|slow)\b", re.I)),
    KindRule(
        "keyword-refactor",
        "refactor",
        re.compile(r"^\s*(?:refactor\w*|rename\w*|move[sd]?|extract\w*|simplif\w*|clean\w*[ -]?up|split)\b", re.I),
    ),
    KindRule(
        "keyword-feature",
        "feature",
        re.compile(r"^\s*(?:add\w*|implement\w*|support\w*|introduc\w*|allow\w*|enabl\w*|new)\b", re.I),
    ),
)


def classify_kind(subject: str) -> tuple[str, str]:
    """Return (category, rule name) for a kept commit: its conventional-commit type, a keyword, or "change"."""
    conventional = _CONVENTIONAL.match(subject)
    if conventional:
        kind = conventional.group("type").lower()
        return _CONVENTIONAL_CATEGORY.get(kind, kind), f"conventional-{kind}"
    for rule in KIND_RULES:
        if rule.pattern.search(subject):
            return rule.category, rule.name
    return "change", "default"


def message_rule(subject: str, message: str, rules: Sequence[MessageRule]) -> str | None:
    """Return the name of the first rule in ``rules`` that drops this message, or None."""
    for rule in rules:
        if rule.matches(subject, message):
            return rule.name
    return None


class RuleSet:
    """The message rules of a run, with one combined pattern so that most messages are cleared in one search.

    The whole-message pattern is searched only in a message holding one of its rules' ``words`` (when each
    has some): searching a long message line by line cost twice as much as the subject rules (issue 23).
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.rules = select_rules(names)
        subject = [rule.pattern.pattern for rule in self.rules if rule.subject_only]
        message = [rule for rule in self.rules if not rule.subject_only]
        flags = re.IGNORECASE | re.MULTILINE
        self._subject = re.compile("|".join(f"(?:{part})" for part in subject), flags) if subject else None
        self._message = None
        if message:
            self._message = re.compile("|".join(f"(?:{rule.pattern.pattern})" for rule in message), flags)
        words = [word for rule in message for word in rule.words]
        self._words = tuple(words) if all(rule.words for rule in message) else ()

    def first_match(self, subject: str, message: str) -> str | None:
        """Return the name of the first rule that drops this message, or None."""
        if (self._subject is None or self._subject.search(subject) is None) and not self._message_matches(message):
            return None
        return message_rule(subject, message, self.rules)

    def _message_matches(self, message: str) -> bool:
        if self._message is None:
            return False
        if self._words:
            lowered = message.lower()
            if not any(word in lowered for word in self._words):
                return False
        return self._message.search(message) is not None


def select_rules(names: Iterable[str]) -> tuple[MessageRule, ...]:
    """Return the message rules named in ``names``, in their documented order."""
    wanted = set(names)
    return tuple(rule for rule in MESSAGE_RULES if rule.name in wanted)


def bot_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Return a test of whether any pattern is a case-insensitive substring of an author's "name <email>"."""
    if not patterns:
        return lambda author: False
    regex = re.compile("|".join(re.escape(pattern) for pattern in patterns), re.IGNORECASE)
    return lambda author: regex.search(author) is not None


def complexity(file_count: int) -> str:
    """Return ``low`` (fewer than 2 files), ``medium`` (2 to 20) or ``high`` (more than 20)."""
    if file_count < 2:
        return "low"
    return "medium" if file_count <= 20 else "high"


def same_ignoring_whitespace(old: bytes, new: bytes) -> bool:
    """Return whether two contents are equal once every whitespace byte is removed (``git diff -w``).

    Read from the start: runs of equal bytes are skipped in one comparison (``affixes.common_prefix``);
    where the two differ, whitespace is skipped on both sides and the next bytes must agree. A real edit
    is usually found at its first difference, so a large file costs a few comparisons, not a full strip
    (issue 12: stripping both versions of every changed file cost 11 s of 63 on git's history).
    """
    here = there = 0
    for _ in range(_WHITESPACE_STEPS):
        same = common_prefix(old, new, here, there)
        here, there = _after_spaces(old, here + same), _after_spaces(new, there + same)
        if here == len(old) or there == len(new):
            return here == len(old) and there == len(new)
        if old[here] != new[there]:
            return False
    return old[here:].translate(None, _WHITESPACE) == new[there:].translate(None, _WHITESPACE)


def _after_spaces(data: bytes, at: int) -> int:
    """Return the position of the first byte at or after ``at`` that is not whitespace (or the end)."""
    match = _SPACES.match(data, at)
    return at if match is None else match.end()
