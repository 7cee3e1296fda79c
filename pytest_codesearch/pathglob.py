"""Gitignore-like path patterns: the one matcher of exclude patterns and of the file-kind rules.

``PathFilter`` decides whether a repository path matches any of a list of patterns. The miner applies
the user's ``exclude`` patterns with it, and :mod:`pytest_codesearch.filekinds` its default groups
(documentation, tests, ...), so a pattern means the same wherever it is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


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
