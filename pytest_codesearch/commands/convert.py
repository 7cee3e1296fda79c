"""``pytest --codesearch-convert IN --codesearch-output OUT.jsonl``: write a gold set as native JSONL, then stop."""

from __future__ import annotations

import sys

import pytest

from pytest_codesearch.goldset.convert import convert_goldset
from pytest_codesearch.settings.model import Settings


def run_convert(settings: Settings) -> int:
    """Convert the file or directory ``settings.convert`` names; print what was written and left out.

    Returns 0 when every entry was written, 1 when some were left out (each printed as file:line: error).
    """
    source, output = settings.convert, settings.output
    if source is None:
        raise pytest.UsageError("--codesearch-convert: give the gold set to convert")
    if output is None:
        raise pytest.UsageError("--codesearch-convert needs --codesearch-output OUT.jsonl (the file to write)")
    if not source.exists():
        raise pytest.UsageError(f"--codesearch-convert: {source} does not exist")
    if output.suffix.lower() != ".jsonl":
        raise pytest.UsageError(f"--codesearch-output: the native gold set is JSONL; name it *.jsonl, got {output}")
    from pytest_codesearch.session.items import read_options

    options = read_options(settings)
    try:
        result = convert_goldset(source, output, options)
    except OSError as exc:
        raise pytest.UsageError(f"--codesearch-output: cannot write {output}: {exc.strerror or exc}") from None
    for error in result.errors:
        sys.stdout.write(f"{error}\n")
    left = f"; {len(result.errors)} left out (above)" if result.errors else ""
    sys.stdout.write(f"codesearch: wrote {result.written} cases to {output}{left}\n")
    return 1 if result.errors else 0
