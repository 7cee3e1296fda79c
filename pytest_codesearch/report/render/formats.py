"""The report-format registry: one entry per output of a finished run (name, target, renderer). Cheap to import.

Writers are named by ``module:function`` and imported when a report is written, so the option that
selects formats can list them without importing the report machinery. Adding a format is one entry.

An entry goes to one target:

- ``report_dir``: one file in the report directory, when ``--codesearch-report-dir``'s formats name it
  (the YAML ``output.formats``; all of them by default). Its renderer returns the file's text, or its
  UTF-8 bytes when it has them already (``results.json``: decoding 240 MB only to encode it again cost a
  second at 100,000 records);
- ``trec``: files in the directory ``--codesearch-trec DIR`` names; its renderer returns file name -> text;
- ``step_summary``: text appended to the file ``$GITHUB_STEP_SUMMARY`` names (the CI job summary).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pytest_codesearch.report.model import RunReport
    from pytest_codesearch.runs.compare import RunComparison

Target = Literal["report_dir", "trec", "step_summary"]
Compares = Literal["no", "shows", "only"]
"""What an output does with comparisons against other runs (``--codesearch-baseline``,
``--codesearch-compare``): ``no`` ignores them; ``shows`` renders them when there are any (its renderer
takes ``(report, comparisons)``); ``only`` is written only when there are some."""


@dataclass(frozen=True)
class Targets:
    """Where a finished run's outputs go: the report directory (and its formats), TREC's directory, the job summary."""

    report_dir: Path
    formats: Iterable[str] = ("json", "csv", "markdown", "html")
    trec: Path | None = None
    step_summary: Path | None = None


@dataclass(frozen=True)
class ReportFormat:
    """One output: its name, where it goes, the ``module:function`` rendering it, and what it is."""

    name: str
    filename: str
    """The file's name in the report directory ('' for the other targets)."""
    renderer: str
    description: str
    target: Target = "report_dir"
    note: str = ""
    """The line a run prints once it wrote the output (``{path}``: where); report files are listed together."""
    compares: Compares = "no"
    selected_by: str = ""
    """The format whose selection writes this output too ('': its own name; such an output is not a choice
    of ``--codesearch-report-dir``'s formats: ``comparison.md`` comes with ``markdown``)."""

    def applies(self, comparisons: Sequence[RunComparison]) -> bool:
        """Return False for an output made of comparisons when there are none."""
        return self.compares != "only" or bool(comparisons)

    def render(self, report: RunReport, comparisons: Sequence[RunComparison] = ()) -> str:
        """Return the output's text for ``report`` (files of the ``trec`` target: concatenated)."""
        content = self._call(report, comparisons)
        if isinstance(content, Mapping):
            return "".join(content.values())
        return content.decode("utf-8") if isinstance(content, bytes) else content

    def content(self, report: RunReport, comparisons: Sequence[RunComparison] = ()) -> bytes:
        """Return the output's bytes (UTF-8) for ``report``."""
        content = self._call(report, comparisons)
        if isinstance(content, Mapping):
            return "".join(content.values()).encode("utf-8")
        return content if isinstance(content, bytes) else content.encode("utf-8")

    def destination(self, targets: Targets) -> Path | None:
        """Return the file or directory this output goes to for ``targets``, None when it is not asked for."""
        if self.target == "report_dir":
            chosen = (self.selected_by or self.name) in targets.formats
            return targets.report_dir / self.filename if chosen else None
        return targets.trec if self.target == "trec" else targets.step_summary

    def write(self, report: RunReport, destination: Path, comparisons: Sequence[RunComparison] = ()) -> list[Path]:
        """Write the output for ``report`` to ``destination``; return the files written."""
        from pytest_codesearch.atomic import write_atomic

        if self.target == "step_summary":
            with destination.open("a", encoding="utf-8") as stream:
                stream.write(self.render(report, comparisons) + "\n")
            return [destination]
        if self.target == "trec":
            files: Mapping[str, str] = self._call(report, comparisons)  # type: ignore[assignment]
            for name, text in files.items():
                write_atomic(destination / name, text)
            return [destination / name for name in files]
        write_atomic(destination, self.content(report, comparisons))
        return [destination]

    def _call(self, report: RunReport, comparisons: Sequence[RunComparison]) -> str | bytes | Mapping[str, str]:
        """Return what the rendering function (imported on first use) gives for the report."""
        module, _, function = self.renderer.partition(":")
        render: Callable[..., Any] = getattr(importlib.import_module(module), function)
        content: str | bytes | Mapping[str, str] = (
            render(report) if self.compares == "no" else render(report, comparisons)
        )
        return content


REPORT_FORMATS: dict[str, ReportFormat] = {
    entry.name: entry
    for entry in (
        ReportFormat("json", "results.json", "pytest_codesearch.report.render.json_report:render_json",
                     "the whole run report (schema: docs/results.schema.json)"),
        ReportFormat("csv", "results.csv", "pytest_codesearch.report.render.csv_report:render_csv",
                     "one row per case and agent, spreadsheet-safe"),
        ReportFormat("markdown", "summary.md", "pytest_codesearch.report.render.markdown:render_summary",
                     "GitHub-flavoured summary for CI job pages"),
        ReportFormat("html", "report.html", "pytest_codesearch.report.render.html:render_report_page",
                     "one self-contained page: charts, recommendations, a filterable case table, and the "
                     "comparison with the baseline run when there is one", compares="shows"),
        ReportFormat("comparison", "comparison.md", "pytest_codesearch.runs.compare_render:render_comparisons",
                     "the comparison with another run (--codesearch-baseline, --codesearch-compare)",
                     compares="only", selected_by="markdown"),
        ReportFormat("comparison_html", "comparison.html", "pytest_codesearch.report.render.html:render_comparison_page",
                     "the same comparison as a page of its own", compares="only", selected_by="html"),
        ReportFormat("trec", "", "pytest_codesearch.report.render.trec:render_trec",
                     "TREC qrels and one run file per agent, for trec_eval (--codesearch-trec DIR)", "trec",
                     "TREC qrels and run files in {path}"),
        ReportFormat("step_summary", "", "pytest_codesearch.report.render.markdown:render_summary",
                     "summary.md appended to $GITHUB_STEP_SUMMARY when it is set", "step_summary",
                     "summary appended to $GITHUB_STEP_SUMMARY ({path})"),
    )  # fmt: skip
}
"""Every output of a finished run, in the order they are written."""

REPORT_DIR_FORMATS: tuple[str, ...] = tuple(
    n for n, e in REPORT_FORMATS.items() if e.target == "report_dir" and not e.selected_by
)
"""The formats written into the report directory, which ``--codesearch-report-dir``'s formats choose from."""


def write_reports(
    report: RunReport,
    directory: Path,
    names: Iterable[str],
    comparisons: Sequence[RunComparison] = (),
    *,
    only_comparisons: bool = False,
) -> list[Path]:
    """Write the report-directory files of the formats ``names`` into ``directory`` atomically; return their
    paths. ``only_comparisons``: just the outputs made of ``comparisons`` (``--codesearch-compare``)."""
    targets = Targets(report_dir=directory, formats=tuple(names))
    written: list[Path] = []
    for entry in REPORT_FORMATS.values():
        destination = entry.destination(targets)
        if only_comparisons and entry.compares != "only":
            continue
        if entry.target == "report_dir" and destination is not None and entry.applies(comparisons):
            written += entry.write(report, destination, comparisons)
    return written
