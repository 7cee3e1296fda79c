"""Which files are tests: the rule behind every built-in agent's ``exclude_tests`` parameter."""

from __future__ import annotations

TEST_DIRECTORIES = frozenset({"test", "tests", "testing"})
"""A file under a directory of one of these names is a test file."""


def is_test_path(path: str) -> bool:
    """Return whether ``path`` (posix, relative) is a test file.

    A test file lies under a directory named ``test``, ``tests`` or ``testing``, or is named
    ``test_*``, ``*_test.py``, ``*_tests.py`` or ``conftest.py``. Code fixes seldom touch them, and an
    issue's words (the failing call, the expected output) are what its tests spell out, so they
    crowd real answers out of the first ranks.
    """
    *directories, name = path.split("/")
    if any(directory in TEST_DIRECTORIES for directory in directories):
        return True
    stem = name.rsplit(".", 1)[0]
    return name == "conftest.py" or stem.startswith("test_") or stem.endswith(("_test", "_tests"))
