"""Convert a gold set of any known shape to native JSONL, through the one writer."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_codesearch.repo.remote import is_remote
from pytest_codesearch.repo.resolve import default_repo, resolve_repo

from . import formats
from .entries import LoadedGoldSet, format_error
from .model import GoldSetMetadata, TestCase
from .writer import write_goldset_jsonl


@dataclass(frozen=True)
class Conversion:
    """What a conversion wrote, and the entries it could not (as ``file:line: field: message``)."""

    written: int
    errors: list[str]


def convert_goldset(source: Path, output: Path, options: formats.ReadOptions | None = None) -> Conversion:
    """Write the cases of ``source`` (any known shape) to ``output`` as native JSONL, atomically.

    ``source`` is a file, or a directory whose gold-set files (those some shape claims, by name order)
    are joined into one. Derived ground truth is written out in full. Each case names its repository
    relative to ``output``, so the new file searches the same trees wherever it is written. Broken
    entries, and cases whose id an earlier file already used, are left out and listed in the result.
    """
    options = options or formats.ReadOptions()
    paths = sorted(p for p in source.iterdir() if formats.reader_for(p)) if source.is_dir() else [source]
    errors: list[str] = []
    metadata = GoldSetMetadata()
    if not source.is_dir():
        metadata = formats.load(source, options).metadata.model_copy(update={"repo": None})  # cases name theirs
    written = write_goldset_jsonl(output, metadata, _cases(paths, output, options, errors))
    return Conversion(written, errors)


def _cases(paths: list[Path], output: Path, options: formats.ReadOptions, errors: list[str]) -> Iterator[TestCase]:
    """Yield the good cases of each file, re-based for ``output``; append what is left out to ``errors``."""
    seen: dict[str, str] = {}
    for path in paths:
        loaded = formats.load(path, options)
        if loaded.error:
            errors.append(format_error(str(path), 0, loaded.error))
        base = _default_base(loaded, output, options.repos)
        for entry in loaded.entries:
            where = f"{path}:{entry.line}"
            if entry.case is None:
                errors.append(f"{where}: {entry.error or 'invalid case'}")
            elif entry.case.id in seen:
                errors.append(f"{where}: id: {entry.case.id!r} is already used at {seen[entry.case.id]}")
            else:
                seen[entry.case.id] = where
                yield _case_with_repo(entry.case, path, output, base, options.repos)


def _default_base(loaded: LoadedGoldSet, output: Path, repos: formats.RepoMap) -> str | None:
    """Return how the new file names the repository of cases without their own ``repo``."""
    name = loaded.metadata.repo
    if name is not None and _travels(name, loaded.path, repos):
        return name
    found = default_repo(loaded.path, name, str(loaded.path), repos)[0]
    return None if found is None else _relative(found, output)


def _case_with_repo(case: TestCase, source: Path, output: Path, base: str | None, repos: formats.RepoMap) -> TestCase:
    """Return ``case`` naming its repository for ``output``: a name the repository map or the clone cache
    resolves (``owner/name``, a URL) as it is, the local mapping kept out of the file; a directory relative
    to ``output``; unchanged when it cannot be found."""
    if case.repo is None:
        return case if base is None else case.model_copy(update={"repo": base})
    if _travels(case.repo, source, repos):
        return case
    found = resolve_repo(case.repo, source, repos)[0]
    return case if found is None else case.model_copy(update={"repo": _relative(found, output)})


def _travels(repo: str, source: Path, repos: formats.RepoMap) -> bool:
    """Return True when ``repo`` is a name rather than a local directory: mapped, or remote and no folder
    of that name lies beside ``source``."""
    return repo in repos or (is_remote(repo) and not (source.parent / repo).is_dir())


def _relative(found: Path, output: Path) -> str:
    return Path(os.path.relpath(found, output.parent.resolve())).as_posix()
