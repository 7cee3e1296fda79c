"""How an agent author plugs an agent into pytest-codesearch.

Copy this file to ``conftest.py`` next to your gold sets (or at your project's root), then run::

    pytest --codesearch-agent=grep-lines goldsets/
    pytest --codesearch-agent=grep-lines,bm25 goldsets/ -n 2      # against the built-in BM25
    pytest --codesearch-agent=grep-lines goldsets/ -k "medium"     # only medium-complexity cases

Pick one agent form: a class, a callable given each case's snapshot, or agents made by a helper.
"""

from __future__ import annotations

import os
import re

import pytest_codesearch as pcs


class GrepLinesAgent:
    """A complete agent: indexes the snapshot once, answers each query with ranked files and spans."""

    def __init__(self, min_hits: int = 1) -> None:
        self.min_hits = min_hits
        self.lines: dict[str, list[str]] = {}

    def initialize(self, repo_path: str) -> None:
        """Called once per repository state with the directory to search (no .git in it)."""
        self.lines = {}
        for dirpath, _dirs, files in os.walk(repo_path):
            for name in files:
                full = os.path.join(dirpath, name)
                try:
                    with open(full, encoding="utf-8") as handle:
                        self.lines[os.path.relpath(full, repo_path)] = handle.read().splitlines()
                except (UnicodeDecodeError, OSError):
                    continue

    def retrieve(self, query: str) -> pcs.RetrievalResult:
        """Rank files by the number of lines that mention a query word; point at the first such line."""
        words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 2]
        hits: list[tuple[int, str, int]] = []
        for path, lines in self.lines.items():
            matching = [i for i, line in enumerate(lines, 1) if any(w in line.lower() for w in words)]
            if len(matching) >= self.min_hits:
                hits.append((len(matching), path, matching[0]))
        hits.sort(key=lambda h: (-h[0], h[1]))
        return pcs.RetrievalResult(
            files=[path for _, path, _ in hits],
            scores=[float(count) for count, _, _ in hits],
            spans=[pcs.Span(path, first, first) for _, path, first in hits],
        )

    def reset(self) -> None:
        """Called before every timed run: drop per-query caches (this agent keeps none)."""


@pcs.agent(name="grep-lines", params=[1, 3], ids=["min1", "min3"])
def grep_lines(request: object) -> GrepLinesAgent:
    """A parametrized agent: benchmarked as grep-lines[min1] and grep-lines[min3] (a grid search)."""
    return GrepLinesAgent(min_hits=request.param)  # type: ignore[attr-defined]


@pcs.agent(name="filename-match")
def filename_match() -> object:
    """The smallest agent: a callable (query, repo_path) -> ranked paths, given the snapshot of each case."""

    def search(query: str, repo_path: str) -> list[str]:
        words = set(re.findall(r"[a-z]+", query.lower()))
        paths = [os.path.relpath(os.path.join(d, f), repo_path) for d, _, names in os.walk(repo_path) for f in names]
        return sorted(p for p in paths if words & set(re.findall(r"[a-z]+", p.lower())))

    return search


def make_agent(name: str, answer: list[str]) -> object:
    """A factory helper: each agent it makes is a closure; with a budget it still runs in a child process."""

    @pcs.agent(name=name)
    def factory() -> object:
        return lambda query: list(answer)

    return factory


readme_first = make_agent("readme-first", ["README.md"])
