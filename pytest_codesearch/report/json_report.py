"""``results.json``: the ``RunReport`` itself, for machines."""

from __future__ import annotations

from pathlib import Path

from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.model import RunReport


def render_json(report: RunReport) -> str:
    """Return the report as JSON: indent 2, keys in model order, trailing newline."""
    return report.model_dump_json(indent=2) + "\n"


def write_json(report: RunReport, path: Path) -> None:
    """Write ``results.json`` atomically."""
    write_atomic(path, render_json(report))
