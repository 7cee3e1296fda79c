"""``pytest --codesearch-merge DIR...``: write one report from shards' journals, then stop."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_codesearch.keys import JOURNAL_NAME
from pytest_codesearch.runs.finish import build_report
from pytest_codesearch.report.render.formats import write_reports
from pytest_codesearch.runs.journal import JournalWriter, RunRecords
from pytest_codesearch.runs.merge import MergeError, merge_records
from pytest_codesearch.settings.model import Settings


def run_merge(paths: list[Path], settings: Settings) -> int:
    """Merge the journals in ``paths`` into ``settings.report_dir`` (report files and a merged journal)."""
    try:
        records = merge_records(paths)
    except MergeError as exc:
        raise pytest.UsageError(str(exc)) from None
    report = build_report(records)
    target = settings.report_dir
    if any(p.resolve() == (target / JOURNAL_NAME).resolve() or p.resolve() == target.resolve() for p in paths):
        raise pytest.UsageError(f"--codesearch-merge: write the merged report elsewhere than {target} "
                                "(--codesearch-report-dir), it is one of the inputs")
    _write_journal(target / JOURNAL_NAME, records)
    written = write_reports(report, target, settings.formats)
    cases = len(report.cases)
    sys.stdout.write(
        f"codesearch: merged {len(paths)} journal(s): {cases} case record(s), {len(report.not_run)} not run; "
        f"report in {target} ({', '.join(p.name for p in written)})\n"
    )
    return 0


def _write_journal(path: Path, records: RunRecords) -> None:
    """Write the merged records as one journal, so merged runs can be merged or resumed again."""
    writer = JournalWriter(path, records.header)
    writer.collected(sorted(records.collected))
    if records.goldsets:
        writer.goldsets(records.goldsets)
    for case in records.cases.values():
        writer.case(case.model_dump_json())
    for entry in records.invalid:
        writer.invalid(entry.model_dump_json())
    if records.end is not None:
        writer.end(records.end)
    writer.close()
