"""The report-format registry: one entry per report file (name, file, renderer). Cheap to import.

Writers are named by ``module:function`` and imported when a report is written, so the option that
selects formats can list them without importing the report machinery. Adding a format is one entry.
A renderer returns the file's text, or its UTF-8 bytes when it has them already (``results.json``:
decoding 240 MB only to encode it again cost a second at 100,000 records).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_codesearch.report.model import RunReport


@dataclass(frozen=True)
class ReportFormat:
    """One report file: its option name, its file name, the ``module:function`` rendering it as text."""

    name: str
    filename: str
    renderer: str
    description: str

    def render(self, report: RunReport) -> str:
        """Return the file's text for ``report``."""
        content = self._renderer()(report)
        return content.decode("utf-8") if isinstance(content, bytes) else content

    def content(self, report: RunReport) -> bytes:
        """Return the file's bytes (UTF-8) for ``report``: what ``write_reports`` writes."""
        content = self._renderer()(report)
        return content if isinstance(content, bytes) else content.encode("utf-8")

    def _renderer(self) -> Callable[[RunReport], str | bytes]:
        """Return the rendering function, imported on first use."""
        module, _, function = self.renderer.partition(":")
        render: Callable[[RunReport], str | bytes] = getattr(importlib.import_module(module), function)
        return render


REPORT_FORMATS: dict[str, ReportFormat] = {
    entry.name: entry
    for entry in (
        ReportFormat("json", "results.json", "pytest_codesearch.report.render.json_report:render_json",
                     "the whole run report (schema: docs/results.schema.json)"),
        ReportFormat("csv", "results.csv", "pytest_codesearch.report.render.csv_report:render_csv",
                     "one row per case and agent, spreadsheet-safe"),
        ReportFormat("markdown", "summary.md", "pytest_codesearch.report.render.markdown:render_summary",
                     "GitHub-flavoured summary for CI job pages"),
        ReportFormat("html", "report.html", "pytest_codesearch.report.render.html:render_html",
                     "one self-contained page: charts, recommendations, a filterable case table"),
    )
}
"""Every report format, in the order they are written."""


def write_reports(report: RunReport, directory: Path, names: Iterable[str]) -> list[Path]:
    """Write the files of the formats ``names`` into ``directory`` atomically; return their paths."""
    from pytest_codesearch.atomic import write_atomic

    written = []
    for name in names:
        entry = REPORT_FORMATS[name]
        path = directory / entry.filename
        write_atomic(path, entry.content(report))
        written.append(path)
    return written
