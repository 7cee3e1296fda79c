"""Which files count as source code: what the content agents rank by default.

A code-search question is answered by code: the miner leaves documentation, configuration, tests,
generated and vendored files out of a gold set's truth by default (``DEFAULT_EXCLUDE`` in
``mining/filters.py``), and every SWE-bench fix is a ``.py`` file. Those files still share the
issue's words (a changelog names the bug, a translation catalogue repeats every message), so ranked
beside the code they push it down: on 92 SWE-bench Lite instances, leaving them out of ``bm25``'s
answer (and from its statistics) raised file-level Acc@5 from 64.1 to 77.2 (``docs/agents.md``).

A *source path* has a programming language's extension (``SOURCE_EXTENSIONS`` in ``mining/classify.py``,
beside the miner's wider table of text extensions) and matches none of the miner's default exclude
patterns, except that a test file (:func:`~pytest_codesearch.agents.index.testpaths.is_test_path`) counts when
``tests`` is true.
"""

from __future__ import annotations

from functools import lru_cache

from pytest_codesearch.agents.index.testpaths import is_test_path
from pytest_codesearch.mining.classify import SOURCE_EXTENSIONS, PathFilter
from pytest_codesearch.mining.filters import DEFAULT_EXCLUDE


@lru_cache(maxsize=1)
def _excluded() -> PathFilter:
    return PathFilter(DEFAULT_EXCLUDE)


def is_source_path(path: str, tests: bool = False) -> bool:
    """Return whether ``path`` (posix, relative) is a source file (see the module), tests only if ``tests``."""
    name = path.rpartition("/")[2]
    if name.rpartition(".")[2].lower() not in SOURCE_EXTENSIONS or "." not in name.lstrip("."):
        return False
    if tests and is_test_path(path):
        return True
    return not _excluded().excluded(path)
