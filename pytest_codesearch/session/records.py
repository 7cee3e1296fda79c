"""How a case record reaches the controller: made JSON once, handed over once (issue 23).

Without xdist the controller takes each record from this process (``RunState.local_results``). An xdist
worker appends it to its own journal (``runs.journal.WorkerJournal``), which the controller reads at the end
of the run: the call report carries only what pytest needs (the outcome, and ``user_properties`` for JUnit
XML), plus the indexing time of a case that paid for it (progress lines). Only a record the worker could not
journal travels on the report.
"""

from __future__ import annotations

import json

import pytest

from pytest_codesearch.recordtext import MAX_FAILURE_CHARS, clip, safe_text
from pytest_codesearch.report.model import CaseResult
from pytest_codesearch.runs.journal import WorkerJournal, worker_journal_dir, write_goldset_counts
from pytest_codesearch.session.items import CASE_RESULT, BrokenEntryItem, CaseItem
from pytest_codesearch.session.state import STATE, RunState

CASE_ATTRIBUTE = "codesearch_case"
"""Attribute of an xdist worker's call report carrying the case record as JSON text, when the worker could
not journal it (``attach_record``)."""
INVALID_ATTRIBUTE = "codesearch_invalid"
"""Attribute of a call report carrying a broken gold-set entry as JSON text."""
INDEX_ATTRIBUTE = "codesearch_index_ms"
"""Attribute of an xdist worker's call report whose case paid for indexing: its ``index_ms`` (progress lines)."""
PROPERTIES_ATTRIBUTE = "codesearch_properties"
"""Attribute of an xdist worker's call and teardown reports of a case carrying their ``user_properties`` as one
JSON text; the controller puts them back before any other plugin reads them (``restore_properties``). execnet
writes and reads each name and value of a case's 36 pairs one at a time in pure Python: about 60 us a report
on each side."""
_JSON_SCALARS = (str, int, float, bool, type(None))


def attach_record(item: pytest.Item, report: pytest.TestReport) -> None:
    """Hand the record of ``item``'s call phase to the controller, once (see the module docstring).

    A failure's text holding lone surrogates (an agent's error about a non-UTF-8 file name) is made safe
    (``recordtext``): xdist cannot send it, and the terminal cannot print it; one longer than
    ``MAX_FAILURE_CHARS`` (a traceback holding a 50 MB message) is cut.
    """
    if report.failed:
        text = report.longreprtext
        if len(text) > MAX_FAILURE_CHARS or not text.isascii():
            shown = safe_text(clip(text, MAX_FAILURE_CHARS))
            if shown != text:
                report.longrepr = shown
    if isinstance(item, CaseItem) and CASE_RESULT in item.stash:
        result, text = _record_json(item, report)
        state = item.config.stash[STATE]
        if state.worker_id is None:
            state.local_results[item.nodeid] = (result, text)
        elif _journalled(state, text):
            if result.indexed and result.index_ms is not None:
                setattr(report, INDEX_ATTRIBUTE, result.index_ms)
        else:
            setattr(report, CASE_ATTRIBUTE, text)
        pack_properties(item, report)
    elif isinstance(item, BrokenEntryItem):
        setattr(report, INVALID_ATTRIBUTE, item.invalid_entry().model_dump_json())


def pack_properties(item: pytest.Item, report: pytest.TestReport) -> None:
    """Move the ``user_properties`` of an xdist worker's call or teardown report of a case (JUnit XML reads them
    from the teardown report) into one JSON text (``PROPERTIES_ATTRIBUTE``), when they are pairs of a name and
    a JSON scalar, which JSON gives back as they were."""
    if not isinstance(item, CaseItem) or item.config.stash[STATE].worker_id is None:
        return
    pairs = report.user_properties
    plain = all(type(p) is tuple and len(p) == 2 and type(p[0]) is str and type(p[1]) in _JSON_SCALARS for p in pairs)
    if pairs and plain:
        setattr(report, PROPERTIES_ATTRIBUTE, json.dumps(pairs))
        report.user_properties = []


def restore_properties(report: pytest.TestReport) -> None:
    """Put back the ``user_properties`` an xdist worker packed (``pack_properties``), as (name, value) tuples."""
    text = report.__dict__.pop(PROPERTIES_ATTRIBUTE, None)
    if text is not None:
        report.user_properties = [*map(tuple, json.loads(text)), *report.user_properties]


def hand_over_goldset_counts(state: RunState) -> None:
    """An xdist worker's end of collection: write how many valid cases each gold set holds where the
    controller reads them (``runs.journal.write_goldset_counts``), before the worker reports its collection."""
    if state.worker_id is not None and state.run_token:
        write_goldset_counts(worker_journal_dir(state.settings.report_dir, state.run_token), state.goldset_cases)


def _record_json(item: CaseItem, report: pytest.TestReport) -> tuple[CaseResult, str]:
    """Return ``item``'s record and its JSON; a record that cannot be written becomes an error (and so does
    the report)."""
    result = item.stash[CASE_RESULT]
    try:
        return result, result.model_dump_json()
    except ValueError as exc:  # pydantic's serialisation error; recordtext.safe_record should leave none
        reason = f"the case record cannot be written: {str(exc).splitlines()[0]}"
        result = item.error_record(reason)
        report.outcome, report.longrepr = "failed", f"{item.spec.goldset}:{item.spec.line}: {reason}"
        return result, result.model_dump_json()


def _journalled(state: RunState, text: str) -> bool:
    """Append a worker's record to its journal; return False when it could not be written there."""
    if not state.run_token:
        return False
    if state.worker_journal is None:
        state.worker_journal = WorkerJournal(worker_journal_dir(state.settings.report_dir, state.run_token))
    journal: WorkerJournal = state.worker_journal
    return journal.case(text)
