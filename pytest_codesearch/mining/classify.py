"""The transparent rules that decide which commits become cases: messages, authors, paths, complexity.

Every rule is data here, with a name and a description, so that ``docs/mining.md`` can list them and a
gold set's metadata can say which ones were applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pytest_codesearch.mining.affixes import common_prefix

_WHITESPACE = b" \t\n\r\f\v"
# fmt: off
SOURCE_EXTENSIONS = frozenset(
    {
        "py", "pyi", "pyx", "pxd", "js", "jsx", "mjs", "cjs", "ts", "tsx", "c", "h", "cc", "cpp", "cxx",
        "hpp", "hh", "cs", "java", "kt", "kts", "scala", "go", "rs", "rb", "php", "swift", "m", "mm",
        "sh", "bash", "pl", "pm", "lua", "r", "jl", "ex", "exs", "erl", "hrl", "hs", "ml", "mli", "clj",
        "dart", "vue", "svelte", "f", "f90", "zig", "nim",
    }
)
# fmt: on
"""Extensions (lowercase, without the dot) of programming-language source files: what the content agents
rank (``agents/index/sourcefiles.py``). Markup, styles, templates, data and message catalogues (``html``,
``css``, ``json``, ``po``) are not source here."""
TEXT_EXTENSIONS = SOURCE_EXTENSIONS | frozenset(
    "hxx fs zsh fish cljs sql html htm css scss sass less el vim groovy gradle cmake proto thrift tf sv vhd pas "
    "perl po pot".split()
)
"""Extensions of source and other text files, whose content the miner takes to be text without sniffing
it for binary data (reading every blob is the miner's largest cost after the tree diff; gettext
catalogs, ``po`` and ``pot``, were 2.7 s of the 4.3 s spent sniffing git's history, issue 12)."""
_SPACES = re.compile(rb"[ \t\n\r\f\v]*")
_WHITESPACE_STEPS = 64
"""Differences the whitespace check steps over one by one before it strips the rest of both contents."""
_BINARY_SNIFF = 8000  # git's buffer_is_binary looks at the first 8000 bytes for a NUL


@dataclass(frozen=True)
class MessageRule:
    """A rule that drops a commit whose message matches ``pattern`` (case-insensitive)."""

    name: str
    description: str
    pattern: re.Pattern[str]
    subject_only: bool = True
    """Match the first line only; otherwise the whole message."""

    def matches(self, subject: str, message: str) -> bool:
        """Return whether the rule drops a commit with this subject and message."""
        return self.pattern.search(subject if self.subject_only else message) is not None


def _rule(name: str, description: str, pattern: str, subject_only: bool = True) -> MessageRule:
    return MessageRule(name, description, re.compile(pattern, re.IGNORECASE | re.MULTILINE), subject_only)


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
    """The message rules of a run, with one combined pattern so that most messages are cleared in one search."""

    def __init__(self, names: Iterable[str]) -> None:
        self.rules = select_rules(names)
        subject = [rule.pattern.pattern for rule in self.rules if rule.subject_only]
        message = [rule.pattern.pattern for rule in self.rules if not rule.subject_only]
        flags = re.IGNORECASE | re.MULTILINE
        self._subject = re.compile("|".join(f"(?:{part})" for part in subject), flags) if subject else None
        self._message = re.compile("|".join(f"(?:{part})" for part in message), flags) if message else None

    def first_match(self, subject: str, message: str) -> str | None:
        """Return the name of the first rule that drops this message, or None."""
        if (self._subject is None or self._subject.search(subject) is None) and (
            self._message is None or self._message.search(message) is None
        ):
            return None
        return message_rule(subject, message, self.rules)


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


def is_known_text_path(path: str) -> bool:
    """Return whether ``path`` has a known text extension (its content is taken to be text unsniffed)."""
    return path.rpartition(".")[2].lower() in TEXT_EXTENSIONS


def looks_binary(data: bytes) -> bool:
    """Return whether ``data`` looks binary the way git decides it: a NUL byte among its first 8000 bytes."""
    return b"\0" in data[:_BINARY_SNIFF]


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


class PathFilter:
    """Matches repository paths against exclude patterns (gitignore-like globs, case-insensitive).

    A pattern without ``/`` matches any one path segment, so ``*.md`` matches ``docs/a/readme.md`` and
    ``tests`` matches ``tests/x.py`` and ``pkg/tests/y.py``. A pattern with ``/`` is anchored at the root
    and also matches everything beneath what it names (``docs/api`` matches ``docs/api/x.md``). A trailing
    ``/`` matches directories only. ``*`` and ``?`` stay within a segment, ``**`` crosses them, ``[...]``
    is a character class.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        # The common shapes ("*.md", "LICENSE*", "vendor/", "conftest.py") become set and suffix lookups;
        # the rest are compiled into one regex. Mining checks every changed path, so this is hot.
        self._names: dict[bool, set[str]] = {True: set(), False: set()}  # key: directory only
        self._suffixes: dict[bool, tuple[str, ...]] = {True: (), False: ()}
        self._prefixes: dict[bool, tuple[str, ...]] = {True: (), False: ()}
        regexes = []
        for pattern in self.patterns:
            body, directory_only = pattern.strip("/").lower(), pattern.endswith("/")
            if not body:
                continue
            if "/" in body or not self._simple(body, directory_only):
                regexes.append(_glob_regex(pattern))
        self._regex = re.compile("|".join(regexes), re.IGNORECASE | re.DOTALL) if regexes else None

    def _simple(self, body: str, directory_only: bool) -> bool:
        """File a one-segment pattern under a fast lookup if it has a simple shape; return whether it did."""
        wild = [index for index, char in enumerate(body) if char in "*?["]
        if not wild:
            self._names[directory_only].add(body)
        elif wild == [0] and body.startswith("*"):
            self._suffixes[directory_only] += (body[1:],)
        elif wild == [len(body) - 1] and body.endswith("*"):
            self._prefixes[directory_only] += (body[:-1],)
        else:
            return False
        return True

    def excluded(self, path: str) -> bool:
        """Return whether ``path`` matches any pattern."""
        segments = path.lower().split("/")
        last = len(segments) - 1
        for index, segment in enumerate(segments):
            for directory_only in (False, True) if index < last else (False,):
                if (
                    segment in self._names[directory_only]
                    or segment.endswith(self._suffixes[directory_only])
                    or segment.startswith(self._prefixes[directory_only])
                ):
                    return True
        return self._regex is not None and self._regex.match(path) is not None


def _glob_regex(pattern: str) -> str:
    """Return a regex, matched at the start of a path, equivalent to one exclude pattern."""
    directory_only = pattern.endswith("/")
    body = pattern.strip("/")
    tail = r"/.*" if directory_only else r"(?:/.*)?"
    if "/" not in body:
        return rf"(?:.*/)?{_segment_regex(body)}{tail}\Z"
    pieces = [r"(?:.*/)?" if part == "**" else _segment_regex(part) + "/" for part in body.split("/")]
    joined = "".join(pieces)
    if joined.endswith("/"):
        joined = joined[:-1]
    elif joined.endswith(r"(?:.*/)?"):  # a pattern ending in /**: everything beneath
        joined = joined[: -len(r"(?:.*/)?")] + r".*"
    return rf"{joined}{tail}\Z"


def _segment_regex(segment: str) -> str:
    """Translate one glob segment: ``*``, ``**`` and ``?`` never cross ``/``, ``**`` alone is handled above."""
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            out.append(r"[^/]*")
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
        elif char == "?":
            out.append(r"[^/]")
        elif char == "[":
            end = segment.find("]", index + 2 if segment[index + 1 : index + 2] in ("!", "]") else index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = segment[index + 1 : end]
                inner = "^" + inner[1:] if inner.startswith("!") else inner
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)
