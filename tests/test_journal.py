"""The case journal: records appended as they arrive, read back into the same report."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.runs.finish import build_report, report_from_journal
from pytest_codesearch.runs.journal import JournalEnd, JournalError, JournalHeader, JournalWriter, read_journal
from pytest_codesearch.report.model import CaseResult, InvalidEntry, RunInfo
from pytest_codesearch.status import Status

NAMES = ["precision", "recall", "f1", "mrr"]


def _run() -> RunInfo:
    return RunInfo(
        seed=3, runs=1, k=None, ks=[1], started_at="2026-11-23T09:00:00+00:00",
        finished_at="2026-11-23T09:00:00+00:00", versions={}, goldsets=[], agents={}, workers=1,
    )  # fmt: skip


def _case(case_id: str, agent: str, f1: float, status: Status = Status.OK) -> CaseResult:
    return CaseResult(
        id=case_id, goldset="g.jsonl", agent=agent, query="q", nodeid=f"g.jsonl::{case_id}[{agent}]",
        ground_truth=["a.py"], relevance={"a.py": 1}, retrieved=["a.py"] if f1 else [], status=status,
        latency_ms=1.0 if status is Status.OK else None, latencies_ms=[1.0] if status is Status.OK else [],
        index_ms=None, metrics={"precision": f1, "recall": f1, "f1": f1, "mrr": f1},
    )  # fmt: skip


def _write(path: Path, *, end: bool) -> list[CaseResult]:
    cases = [_case("c1", "bm25", 1.0), _case("c2", "bm25", 0.0, Status.TIMEOUT), _case("c1", "grep", 0.0)]
    writer = JournalWriter(path, JournalHeader(run=_run(), metric_names=NAMES))
    writer.collected([c.nodeid for c in cases] + ["g.jsonl::c2[grep]"])
    for case in cases:
        writer.case(case.model_dump_json())
    writer.invalid(InvalidEntry(goldset="g.jsonl", line=4, case_id=None, error="query: missing").model_dump_json())
    if end:
        writer.end(JournalEnd(finished_at="2026-11-23T09:05:00+00:00", exit_status=1))
    else:
        writer.close()
    return cases


def test_journal_reads_back_every_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    cases = _write(path, end=True)
    records = read_journal(path)
    assert list(records.cases.values()) == cases
    assert records.collected == {c.nodeid for c in cases} | {"g.jsonl::c2[grep]"}
    assert records.end == JournalEnd(finished_at="2026-11-23T09:05:00+00:00", exit_status=1)
    report = report_from_journal(path)
    assert report.not_run == ["g.jsonl::c2[grep]"]
    assert report.run.finished_at == "2026-11-23T09:05:00+00:00" and report.run.exit_status == 1
    assert report.agents["bm25"].counts["timeout"] == 1
    assert report.agents["bm25"].metrics["f1"].mean == 0.5
    assert [e.line for e in report.invalid] == [4]


def test_a_killed_run_keeps_every_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _write(path, end=False)
    with path.open("a", encoding="utf-8") as stream:
        stream.write('{"case": {"id": "c3", "goldset"')  # killed mid-line
    records = read_journal(path)
    assert len(records.cases) == 3 and records.end is None
    assert build_report(records).run.exit_status is None


def test_a_broken_line_in_the_middle_is_skipped_and_named_keeping_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _write(path, end=True)
    whole = read_journal(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(2, '{"what": 1}')
    lines.insert(4, '{"case": {"id": "c9", "goldset"{"case": {"id": "c1"}}')  # two writers interleaved
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = read_journal(path)
    assert records.skipped == [
        f"{path}:3: not a journal record: unknown record kind 'what'",
        f"{path}:5: not a journal record: Expecting ':' delimiter: line 1 column 32 (char 31)",
    ]
    assert records.cases == whole.cases and records.end == whole.end


def test_a_journal_whose_header_is_garbled_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    _write(path, end=True)
    path.write_text('{"header": 1' + path.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(JournalError, match=r"journal.jsonl:1: not a journal record: "):
        read_journal(path)


def test_order_of_arrival_does_not_change_the_report(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    cases = _write(first, end=True)
    writer = JournalWriter(second, JournalHeader(run=_run(), metric_names=NAMES))
    writer.collected([c.nodeid for c in reversed(cases)] + ["g.jsonl::c2[grep]"])
    for case in reversed(cases):
        writer.case(case.model_dump_json())
    writer.invalid(InvalidEntry(goldset="g.jsonl", line=4, case_id=None, error="query: missing").model_dump_json())
    writer.end(JournalEnd(finished_at="2026-11-23T09:05:00+00:00", exit_status=1))
    assert report_from_journal(first) == report_from_journal(second)


def test_records_holding_unicode_line_separators_are_read_whole(tmp_path: Path) -> None:
    from pytest_codesearch.runs.journal import WorkerJournal, read_worker_records

    odd = _case("c1", "bm25", 1.0).model_copy(update={"query": "a\u2028b\x85c\u2029d\x1ce"})
    writer = JournalWriter(tmp_path / "journal.jsonl", JournalHeader(run=_run(), metric_names=NAMES))
    writer.case(odd.model_dump_json())
    writer.close()
    assert list(read_journal(tmp_path / "journal.jsonl").cases.values()) == [odd]
    worker = WorkerJournal(tmp_path / "workers")
    assert worker.case(odd.model_dump_json()) and worker.case(_case("c2", "bm25", 0.0).model_dump_json())
    worker.close()
    with open(next((tmp_path / "workers").iterdir()), "a", encoding="utf-8") as torn:
        torn.write('{"case": {"id": "c3", "gol')  # a worker killed mid-line
    assert [(case, text) for case, text in read_worker_records(tmp_path / "workers")] == [
        (odd, odd.model_dump_json()), (_case("c2", "bm25", 0.0), _case("c2", "bm25", 0.0).model_dump_json())
    ]
