"""``pytest --codesearch-merge DIR...``: end one run from shards' journals, then stop.

The merged records end as a live run does (``runs.finish.finish_run``): the report files, TREC files,
the job summary, the saved run and the gates, with the exit status a single run of those cases gets.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_codesearch.runs.finish import ending_for, finish_run
from pytest_codesearch.runs.journal import JOURNAL_NAME, JournalWriter
from pytest_codesearch.runs.merge import MergeError, merge_records
from pytest_codesearch.session.run_end import parse_gates
from pytest_codesearch.settings.model import Settings


def run_merge(paths: list[Path], settings: Settings, here: Path, rootdir: Path) -> int:
    """Merge the journals in ``paths`` into ``settings.report_dir`` and end the run; return its exit status."""
    gates = parse_gates(settings, here)
    try:
        records, missing = merge_records(paths)
    except MergeError as exc:
        raise pytest.UsageError(str(exc)) from None
    target = settings.report_dir
    if any(p.resolve() == (target / JOURNAL_NAME).resolve() or p.resolve() == target.resolve() for p in paths):
        raise pytest.UsageError(f"--codesearch-merge: write the merged report elsewhere than {target} "
                                "(--codesearch-report-dir), it is one of the inputs")
    writer = JournalWriter(target / JOURNAL_NAME, records.header)  # so a merged run can be merged or resumed
    writer.replay(records)
    writer.close()
    finished = finish_run(records, ending_for(settings, target, rootdir=rootdir, gates=gates), 0)
    report = finished.report
    lines = [
        f"codesearch: merged {len(paths)} journal(s): {len(report.cases)} case record(s), "
        f"{len(report.not_run)} not run; report in {target}",
        *(f"codesearch: shard {s} is not among the merged journals: its cases are missing" for s in missing),
        *finished.lines,
    ]
    sys.stdout.write("".join(line + "\n" for line in lines))
    return finished.exit_status
