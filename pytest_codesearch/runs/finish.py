"""The end of a run as a library function: stored records in, ``RunReport`` out, report files written."""

from __future__ import annotations

from pathlib import Path

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.runs.journal import RunRecords, read_journal
from pytest_codesearch.report.model import CaseResult, RunReport


def build_report(records: RunRecords) -> RunReport:
    """Return the run report of ``records``: the same records always give the same report.

    Cases collected but never reported are listed under ``not_run``. A journal without an end line
    (the run was killed) gives a report whose ``exit_status`` is null.
    """
    header = records.header
    cases = list(records.cases.values())
    update: dict[str, object] = {
        "goldsets": sorted({c.goldset for c in cases} | {i.goldset for i in records.invalid}),
    }
    if records.end is not None:
        update |= {"finished_at": records.end.finished_at, "exit_status": records.end.exit_status}
    run = header.run.model_copy(update=update)
    report = build_run_report(
        run,
        cases,
        header.metric_names,
        invalid=records.invalid,
        not_run=sorted(records.collected - set(records.cases)),
        optional=header.optional_metric_names,
        headline=header.headline,
    )
    report.warnings.extend(_answer_warnings(cases))
    interrupted = records.end is None or records.end.exit_status in (2, 3)  # Ctrl-C, internal error
    report.incomplete = interrupted or bool(report.not_run)
    return report


def _answer_warnings(cases: list[CaseResult]) -> list[str]:
    """Return one line per agent whose answers were cut to the bound or held invalid paths."""
    lines = []
    for agent in sorted({c.agent for c in cases}):
        mine = [c for c in cases if c.agent == agent]
        cut = [c.answer_cut_from for c in mine if c.answer_cut_from is not None]
        invalid = sum(c.invalid_paths for c in mine)
        if cut:
            lines.append(f"agent {agent}: {len(cut)} answer(s) longer than the bound were cut (longest {max(cut):,})")
        if invalid:
            lines.append(f"agent {agent}: {invalid:,} answer entries named no file of the snapshot and were dropped")
    return lines


def report_from_journal(path: Path) -> RunReport:
    """Return the run report of the journal at ``path`` (no pytest session needed)."""
    return build_report(read_journal(path))
