"""Convert a gold set of any known shape to native JSONL, through the one writer."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.resolve import default_repo, resolve_repo

from . import formats
from .entries import LoadedGoldSet, format_error
from .model import TestCase
from .writer import write_goldset_jsonl


@dataclass(frozen=True)
class Conversion:
    """What a conversion wrote, and the entries it could not (as ``file:line: field: message``)."""

    written: int
    errors: list[str]


def convert_goldset(source: Path, output: Path, options: formats.ReadOptions | None = None) -> Conversion:
    """Write the cases of ``source`` (any known shape) to ``output`` as native JSONL, atomically.

    Derived ground truth is written out in full. Each case names its repository relative to
    ``output``, so the new file searches the same trees wherever it is written; broken entries are
    left out and listed in the result.
    """
    options = options or formats.ReadOptions()
    loaded = formats.load(source, options)
    errors = [format_error(str(source), 0, loaded.error)] if loaded.error else []
    errors += [format_error(str(source), e.line, e.error or "invalid case") for e in loaded.entries if e.case is None]
    base = _default_base(loaded, options.repos)
    cases = (_rebased(case, source, output, base, options.repos) for case in loaded.cases)
    metadata = loaded.metadata.model_copy(update={"repo": None})  # each case names its own now
    return Conversion(write_goldset_jsonl(output, metadata, cases), errors)


def _default_base(loaded: LoadedGoldSet, repos: formats.RepoMap) -> Path | None:
    """Return the repository of cases without their own ``repo``, as the source file resolves it."""
    return default_repo(loaded.path, loaded.metadata.repo, str(loaded.path), repos)[0]


def _rebased(case: TestCase, source: Path, output: Path, base: Path | None, repos: formats.RepoMap) -> TestCase:
    """Return ``case`` naming its repository relative to ``output`` (unchanged when it cannot be found)."""
    found = base if case.repo is None else resolve_repo(case.repo, source, repos)[0]
    if found is None:
        return case
    relative = Path(os.path.relpath(found, output.parent.resolve())).as_posix()
    return case.model_copy(update={"repo": relative})
