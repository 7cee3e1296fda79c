"""Whether a query names its answer: the one leaky-query rule of the miner and of ``--codesearch-validate``.

A query *names* a ground-truth file, and gives its answer away, when it holds as a whole word (letter
case ignored):

* the file's path, or any end of it that starts after a ``/``: ``src/flask/app.py``, ``flask/app.py``,
  ``app.py``, and ``Makefile`` for ``docs/Makefile``;
* for a Python file (``.py``, ``.pyi``), its dotted module name or any end of it of two names or more:
  ``flask.app`` for ``src/flask/app.py``, ``flask.json`` for ``src/flask/json/__init__.py``.

A whole word has, just before it, none of a letter, a digit, ``_``, ``.``, ``-`` or ``/``, and just after
it none of a letter, a digit or ``_``: ``app.py`` is not named by "myapp.py", "app.pyc" or
"docs/app.py" (another path). A bare word of a name is no leak: "fix the app" or "flaskr" name no
file, a module of one name (``flask``) is the project as often as the file.

The miner drops the cases whose query is leaky (unless ``keep_leaky``) and marks the others
``leaky: false``; validation warns about them. Both call :func:`find_leak`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .truth import PYTHON_SUFFIXES

_NOT_BEFORE = frozenset("_.-/")
_NOT_AFTER = frozenset("_")


@dataclass(frozen=True)
class Leak:
    """How a query names a ground-truth file: ``mention`` (as the path spells it) of ``path``, of a ``kind``."""

    path: str
    mention: str
    kind: str
    """``path`` (the whole path), ``file name``, ``path end`` (a shorter end with a ``/``) or ``module``."""

    def describe(self) -> str:
        """Return what the query contains, as validation words it."""
        if self.kind in ("path", "file name"):
            return f"the query contains the ground-truth {self.kind} {self.mention!r}"
        if self.kind == "module":
            return f"the query contains {self.mention!r}, the module of the ground-truth file {self.path!r}"
        return f"the query contains {self.mention!r}, the end of the ground-truth path {self.path!r}"


def find_leak(query: str, paths: Iterable[str]) -> Leak | None:
    """Return how ``query`` names the first of ``paths`` it names (see the module), or None.

    Of one path, the longest mention is given: the whole path first, then shorter ends, then modules.
    """
    lowered = query.lower()
    for path in paths:
        leak = _path_leak(lowered, path) or _module_leak(lowered, path)
        if leak is not None:
            return leak
    return None


def _path_leak(query: str, path: str) -> Leak | None:
    """Return the longest end of ``path`` that ``query`` (lowercase) holds as a whole word, or None."""
    parts = path.split("/")
    if parts[-1].lower() not in query:  # every end holds the file name: most paths stop here
        return None
    for start in range(len(parts)):
        mention = "/".join(parts[start:])
        if contains_word(query, mention.lower()):
            kind = "path" if start == 0 else "file name" if start == len(parts) - 1 else "path end"
            return Leak(path, mention, kind)
    return None


def _module_leak(query: str, path: str) -> Leak | None:
    """Return the longest dotted end (two names or more) of ``path``'s Python module in ``query``, or None."""
    if not path.endswith(PYTHON_SUFFIXES):
        return None
    names = path.rsplit(".", 1)[0].split("/")
    if names[-1] == "__init__":
        names.pop()
    if len(names) < 2 or names[-1].lower() not in query:
        return None
    for start in range(len(names) - 1):
        mention = ".".join(names[start:])
        if contains_word(query, mention.lower()):
            return Leak(path, mention, "module")
    return None


def contains_word(text: str, word: str) -> bool:
    """Return whether ``word`` occurs in ``text`` as a whole word (see the module for the boundaries)."""
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in _NOT_BEFORE) and not (after.isalnum() or after in _NOT_AFTER):
            return True
        start = text.find(word, start + 1)
    return False
