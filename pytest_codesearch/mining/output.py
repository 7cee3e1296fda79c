"""Write a mined gold set as cases are found, and publish it in one step at the end.

Cases go to a scratch file beside the output as they are found, so memory stays flat. At the end the final
file is written beside the output too, metadata first (its counts are only known then), cases copied after,
then fsynced and renamed over the output (PITFALLS 14). A run killed midway leaves the previous gold set
intact and no half-written file under the output's name.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from pytest_codesearch.goldset.model import GoldSetMetadata
from pytest_codesearch.mining.walk import MiningError

SUFFIXES = (".jsonl", ".json")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


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

    def __enter__(self) -> GoldsetWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.discard()

    def add(self, line: str) -> None:
        """Append one case, already serialised as one line of JSON (``case_to_json``), to the scratch file."""
        self._stream.write(line + "\n")
        self.count += 1

    def publish(self, metadata: GoldSetMetadata) -> None:
        """Write the metadata and every case added so far to the output, replacing it in one step."""
        self._stream.close()
        fd, name = tempfile.mkstemp(dir=self.output.parent, prefix=f".{self.output.name}.", suffix=".tmp")
        final = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as target:
                with self._scratch.open(encoding="utf-8") as cases:
                    if self.output.suffix.lower() == ".json":
                        _write_json(target, metadata, cases)
                    else:
                        _write_jsonl(target, metadata, cases)
                target.flush()
                os.fsync(target.fileno())
            os.replace(final, self.output)
        except OSError as exc:
            raise MiningError(f"{self.output}: cannot write the gold set: {exc.strerror or exc}") from None
        finally:
            final.unlink(missing_ok=True)
            self.discard()

    def discard(self) -> None:
        """Close and remove the scratch file (idempotent)."""
        if not self._stream.closed:
            self._stream.close()
        self._scratch.unlink(missing_ok=True)


def _metadata_json(metadata: GoldSetMetadata) -> dict[str, Any]:
    return metadata.model_dump(mode="json", exclude_none=True)


def _write_jsonl(target: IO[str], metadata: GoldSetMetadata, cases: IO[str]) -> None:
    meta = _metadata_json(metadata)
    if meta:
        target.write(_dumps({"metadata": meta}) + "\n")
    shutil.copyfileobj(cases, target)


def _write_json(target: IO[str], metadata: GoldSetMetadata, cases: IO[str]) -> None:
    target.write('{\n  "metadata": ' + _dumps(_metadata_json(metadata)) + ',\n  "test_cases": [')
    separator = "\n    "
    for line in cases:
        target.write(separator + line.rstrip("\n"))
        separator = ",\n    "
    target.write("\n  ]\n}\n" if separator != "\n    " else "]\n}\n")
