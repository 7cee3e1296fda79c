"""The text of a snapshot's files, for the scoring steps that look inside them."""

from __future__ import annotations

from collections.abc import Callable

SourceReader = Callable[[str], "str | None"]
"""Returns the text of a snapshot file given its path, or None if it cannot be read."""


class SourceFiles:
    """Reads files of one snapshot as text through the snapshot's reader, each at most once per instance.

    ``read`` is the snapshot's one reader (``Snapshot.read``: blobs by id for a commit, the listed
    files for a directory), so a case scores the same whether or not the tree was written to disk.
    Bytes are decoded as UTF-8 with undecodable bytes replaced, so any file gives some text. One
    instance serves every case of a snapshot: spans and failure analysis share its reads.
    """

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self._read = read
        self._texts: dict[str, str | None] = {}
        self.terms: dict[str, frozenset[str]] = {}
        """Terms of the files read, by path, for the failure analysis: each file tokenised once."""

    def __call__(self, path: str) -> str | None:
        """Return the text of the snapshot file ``path``, or None if it is no file or cannot be read."""
        if path not in self._texts:
            data = self._read(path)
            self._texts[path] = None if data is None else data.decode("utf-8", errors="replace")
        return self._texts[path]
