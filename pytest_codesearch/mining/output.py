"""Write a mined gold set as cases are found, and publish it in one step at the end.

Cases go to a scratch file beside the output as they are found, so memory stays flat. At the end the final
file is written through the one gold-set writer (``goldset/writer.py``), metadata first (its counts are
only known then), cases copied after, fsynced and renamed over the output with the user's umask
(PITFALLS 14). A run killed midway leaves the previous gold set intact and no half-written file under the
output's name. Mining processes write their cases to files of their own in a folder the writer holds
(``workspace``); the writer copies them after its own at the end (``take``), so they are written once.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO

from pytest_codesearch.atomic import atomic_file
from pytest_codesearch.goldset.model import GoldSetMetadata
from pytest_codesearch.goldset.writer import write_json_lines, write_jsonl_lines
from pytest_codesearch.mining.walk import MiningError

SUFFIXES = (".jsonl", ".json")


class GoldsetWriter:
    """Streams cases to a scratch file; ``publish`` writes the gold set (JSONL or JSON by suffix) atomically."""

    def __init__(self, output: Path) -> None:
        if output.suffix.lower() not in SUFFIXES:
            raise MiningError(f"{output}: a gold set must end with .jsonl or .json (pytest collects only those)")
        self.output = output
        self.count = 0
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.", suffix=".cases.tmp")
        except OSError as exc:
            raise MiningError(f"{output}: cannot write the gold set here: {exc.strerror or exc}") from None
        self._scratch = Path(name)
        self._stream: IO[str] = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        self._folder: Path | None = None
        self._taken: list[Iterable[str]] = []

    def __enter__(self) -> GoldsetWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.discard()

    def add(self, line: str) -> None:
        """Append one case, already serialised as one line of JSON (``writer.case_fields_line``), to the scratch file."""
        self._stream.write(line + "\n")
        self.count += 1

    def workspace(self) -> Path:
        """Return a scratch folder beside the output for other processes' files, removed with the scratch file."""
        if self._folder is None:
            try:
                self._folder = Path(tempfile.mkdtemp(dir=self.output.parent, prefix=f".{self.output.name}.workers-"))
            except OSError as exc:
                raise MiningError(f"{self.output}: cannot write the gold set here: {exc.strerror or exc}") from None
        return self._folder

    def take(self, lines: Iterable[str], count: int) -> None:
        """Add ``count`` cases that ``lines`` yields (each a JSON line, newline or not) when ``publish`` runs.

        ``lines`` is read once, after the cases added before it: it may read files of ``workspace``.
        """
        self._taken.append(lines)
        self.count += count

    def publish(self, metadata: GoldSetMetadata) -> None:
        """Write the metadata and every case added so far to the output, replacing it in one step."""
        self._stream.close()
        try:
            with self._scratch.open(encoding="utf-8") as added:
                cases = itertools.chain(added, *self._taken)
                if self.output.suffix.lower() == ".json":
                    with atomic_file(self.output) as target:
                        write_json_lines(target, metadata, cases)
                else:
                    write_jsonl_lines(self.output, metadata, cases)
        except OSError as exc:
            raise MiningError(f"{self.output}: cannot write the gold set: {exc.strerror or exc}") from None
        finally:
            self.discard()

    def discard(self) -> None:
        """Close and remove the scratch file and folder (idempotent)."""
        if not self._stream.closed:
            self._stream.close()
        self._scratch.unlink(missing_ok=True)
        self._taken.clear()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
