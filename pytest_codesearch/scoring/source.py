"""The text of a snapshot's files, and the function extents of each, for the scoring steps that look inside them.

The line metrics need the functions of every ground-truth file (``spans.function_units``): outlining a
large Python file costs tens of milliseconds, about a sixth of a warm SWE-bench Lite run, though the
files are the same in every run. With a folder, :class:`SourceFiles` keeps them there by the text's hash
(``outline/stored.py``), for later runs and xdist workers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytest_codesearch.outline.stored import outline_facts

Interval = tuple[int, int]

SourceReader = Callable[[str], "str | None"]
"""Returns the text of a snapshot file given its path, or None if it cannot be read."""


class SourceFiles:
    """Reads files of one snapshot as text through the snapshot's reader, each at most once per instance.

    ``read`` is the snapshot's one reader (``Snapshot.read``: blobs by id for a commit, the listed
    files for a directory), so a case scores the same whether or not the tree was written to disk.
    Bytes are decoded as UTF-8 with undecodable bytes replaced, so any file gives some text. One
    instance serves every case of a snapshot: spans and failure analysis share its reads.
    """

    def __init__(self, read: Callable[[str], bytes | None], folder: Path | None = None) -> None:
        self._read = read
        self._folder = folder
        self._texts: dict[str, str | None] = {}
        self._extents: dict[str, tuple[Interval, ...] | None] = {}
        self.terms: dict[str, frozenset[str]] = {}
        """Terms of the files read, by path, for the failure analysis: each file tokenised once."""

    def __call__(self, path: str) -> str | None:
        """Return the text of the snapshot file ``path``, or None if it is no file or cannot be read."""
        if path not in self._texts:
            data = self._read(path)
            self._texts[path] = None if data is None else data.decode("utf-8", errors="replace")
        return self._texts[path]

    def function_extents(self, path: str) -> tuple[Interval, ...] | None:
        """Return the extents of the functions of the file ``path`` (:func:`function_extents`), None when it
        cannot be read or no outline reads its language; kept in the folder when there is one."""
        if path not in self._extents:
            text = self(path)
            self._extents[path] = None if text is None else self._stored_extents(path, text)
        return self._extents[path]

    def _stored_extents(self, path: str, text: str) -> tuple[Interval, ...] | None:
        found = outline_facts(path, text, self._folder)
        return None if found is None else found.extents


def function_extents(path: str, text: str) -> tuple[Interval, ...] | None:
    """Return the (first line, last line) of every function of ``text`` (the file at ``path``), outer before
    inner; None for a file of no supported language (``pytest_codesearch.outline``).

    The first line is that of the first decorator or template header, if any.
    """
    found = outline_facts(path, text)
    return None if found is None else found.extents
