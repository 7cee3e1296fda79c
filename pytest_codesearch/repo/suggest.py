""""Did you mean": the one rule that suggests an existing path for one that is not in a snapshot, and
the one sentence that says so (``missing_path_message``).

A run (a case whose ground-truth file is missing from its tree, ``evaluate.py``) and
``--codesearch-validate`` (``goldset/validate.py``) both call :func:`suggest_path`, so a mistyped path
gets the same suggestion from either.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6
"""Least ``difflib`` similarity (0 to 1) of a suggestion that is not a case or directory fix."""


def suggest_path(path: str, files: Iterable[str]) -> str | None:
    """Return the existing path closest to ``path``, or None when nothing is close.

    Tried in order: a path differing only in letter case; a path that ends with ``path`` or that
    ``path`` ends with, at a ``/`` (a missing or extra leading directory), the most similar of them
    (``difflib``'s ratio; the first in sorted order on a tie); then the path ``difflib.get_close_matches``
    finds most similar, at :data:`CUTOFF` or above.
    """
    candidates = sorted(set(files))
    folded = path.casefold()
    for candidate in candidates:
        if candidate.casefold() == folded:
            return candidate
    nested = [c for c in candidates if c.endswith("/" + path) or path.endswith("/" + c)]
    if nested:
        return max(nested, key=lambda candidate: difflib.SequenceMatcher(None, path, candidate).ratio())
    close = difflib.get_close_matches(path, candidates, n=1, cutoff=CUTOFF)
    return close[0] if close else None


def missing_path_message(path: str, files: Iterable[str], label: str, *, is_tree: bool) -> str:
    """Return ``'<path>' is not in tree <label> (did you mean '<closest>'?)`` (``directory`` for a working
    tree), the sentence a run and ``--codesearch-validate`` both give for a ground-truth path a snapshot lacks."""
    close = suggest_path(path, files)
    hint = f" (did you mean {close!r}?)" if close else ""
    return f"{path!r} is not in {'tree' if is_tree else 'directory'} {label}{hint}"
