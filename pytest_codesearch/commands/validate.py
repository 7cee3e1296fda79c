"""``pytest --codesearch-validate [PATH...]``: check gold sets against their snapshots, then stop."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_codesearch.goldset.validate import format_table, goldset_files, summary, validate_files
from pytest_codesearch.repo.snapshot import SnapshotStore
from pytest_codesearch.settings.model import Settings


def run_validate(config: pytest.Config, settings: Settings) -> int:
    """Validate the gold sets among pytest's paths (its arguments, else testpaths or the current directory).

    Prints one line per problem and a summary; returns 1 when any problem is an error, else 0.
    """
    here = config.invocation_params.dir
    paths = [_path(arg, here) for arg in config.args] or [here]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise pytest.UsageError(f"--codesearch-validate: no such file or directory: {', '.join(missing)}")
    store = SnapshotStore(settings.cache_dir / "snapshots", materialize=False)
    files = [(file, _shown(file, config.rootpath)) for file in goldset_files(paths)]
    from pytest_codesearch.session.items import read_options

    result = validate_files(files, store, read_options(settings))  # the repository map and clone cache too
    table = format_table(result.problems)
    if table:
        sys.stdout.write(table + "\n")
    sys.stdout.write(summary(result) + "\n")
    return 1 if result.errors else 0


def _path(arg: str, here: Path) -> Path:
    """Return the file or directory a pytest argument names (a node id loses its ``::`` part)."""
    return (here / arg.split("::", 1)[0]).absolute()


def _shown(path: Path, root: Path) -> str:
    """Return ``path`` relative to the rootdir, as node ids show it, when it lies inside."""
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
