"""The text of a snapshot's files, for the scoring steps that look inside them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

SourceReader = Callable[[str], "str | None"]
"""Returns the text of a snapshot file given its path, or None if it cannot be read."""


class SourceFiles:
    """Reads files of one snapshot directory as text, each at most once per instance.

    Bytes are decoded as UTF-8 with undecodable bytes replaced, so any file gives some text. One
    instance serves one case: spans and failure analysis share its reads.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._texts: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        """Return the text of ``path`` (relative to the root), or None if it cannot be read."""
        if path not in self._texts:
            try:
                data = (self.root / path).read_bytes()
            except OSError:
                self._texts[path] = None
            else:
                self._texts[path] = data.decode("utf-8", errors="replace")
        return self._texts[path]
