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
from collections.abc import Iterator, Set
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO

from pytest_codesearch.atomic import atomic_file
from pytest_codesearch.goldset.model import GoldSetMetadata
from pytest_codesearch.goldset.writer import write_json_lines, write_jsonl_to
from pytest_codesearch.mining.walk import MiningError

SUFFIXES = (".jsonl", ".json")
_CHUNK = 1 << 20
"""Bytes copied at a time from a file taken (``GoldsetWriter.take``)."""


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
        self._taken: list[tuple[Path, Set[int]]] = []

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

    def take(self, path: Path, left_out: Set[int], count: int) -> None:
        """Add the ``count`` cases of the file ``path`` (one JSON line each, ``\\n``-ended), without the lines whose
        index (from 0) is in ``left_out``, after those added before; ``publish`` reads it (a file of ``workspace``)."""
        self._taken.append((path, left_out))
        self.count += count

    def publish(self, metadata: GoldSetMetadata) -> None:
        """Write the metadata and every case added so far to the output, replacing it in one step.

        In JSONL, the files taken are copied as bytes, several times faster than line by line through text.
        """
        self._stream.close()
        try:
            with self._scratch.open(encoding="utf-8") as added, atomic_file(self.output) as target:
                if self.output.suffix.lower() == ".json":
                    taken = (_lines(path, left_out) for path, left_out in self._taken)
                    write_json_lines(target, metadata, itertools.chain(added, *taken))
                else:
                    write_jsonl_to(target, metadata, added)
                    target.flush()
                    for path, left_out in self._taken:
                        _copy(path, left_out, target.buffer)
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


def _lines(path: Path, left_out: Set[int]) -> Iterator[str]:
    """Yield the lines of ``path`` but those whose index (from 0) is in ``left_out``."""
    with path.open(encoding="utf-8") as stream:
        for index, line in enumerate(stream):
            if index not in left_out:
                yield line


def _copy(path: Path, left_out: Set[int], target: BinaryIO) -> None:
    """Append the bytes of ``path`` to ``target``, without the lines whose index (from 0) is in ``left_out``."""
    with path.open("rb") as stream:
        if not left_out:
            shutil.copyfileobj(stream, target, _CHUNK)
            return
        start = 0
        while chunk := stream.readlines(_CHUNK):
            target.write(b"".join(line for index, line in enumerate(chunk, start) if index not in left_out))
            start += len(chunk)
