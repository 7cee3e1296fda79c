"""The case journal: a run's records as JSON lines, appended and flushed as they arrive.

The controller (or the only process) writes it in the report directory while the run goes on: a header
with the run's settings, the node ids collected, one line per case record and per broken gold-set
entry, and an end line. A run killed at any point (even with SIGKILL) leaves every record that
arrived before; ``read_journal`` skips a torn last line. ``runs.finish.finish_run`` turns what it
holds into the ``RunReport`` and the run's outputs, with or without a pytest session. ``JournalWriter`` is
the one writer of journals (a live run's, a merge's).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, ClassVar

from pydantic import Field, ValidationError

from pytest_codesearch.atomic import write_atomic
from pytest_codesearch.report.model import CaseResult, InvalidEntry, RunInfo, _Record

JOURNAL_VERSION = 1
JOURNAL_NAME = "journal.jsonl"
"""The case journal's file name in the report directory."""


class JournalHeader(_Record):
    """The first line: what the run was asked to do, and which metrics every case carries."""

    journal_version: int = JOURNAL_VERSION
    run: RunInfo = Field(description="The run's settings; finished_at and exit_status are updated by the end line.")
    metric_names: list[str] = Field(description="Metrics every scored case carries, in report order.")
    optional_metric_names: list[str] = Field(default_factory=list, description="Metrics only some cases carry.")
    headline: list[str] | None = Field(default=None, description="Metrics asked for as the headline; null: automatic.")
    run_token: str | None = Field(
        default=None, description="Names the directory (.workers/<token>/) where the run's xdist workers journal."
    )


class JournalEnd(_Record):
    """The last line, written when the session finishes (absent when the run was killed)."""

    finished_at: str
    exit_status: int | None


class JournalError(ValueError):
    """A journal that cannot be read; str() names the file and the line."""


@dataclass
class RunRecords:
    """Everything a journal holds: the header, the records by node id, and the end when the run ended."""

    header: JournalHeader
    cases: dict[str, CaseResult] = field(default_factory=dict)
    invalid: list[InvalidEntry] = field(default_factory=list)
    collected: set[str] = field(default_factory=set)
    goldsets: dict[str, str] = field(default_factory=dict)
    """Gold-set path (as in node ids) -> SHA-256 of its content when the run read it."""
    end: JournalEnd | None = None
    skipped: list[str] = field(default_factory=list)
    """One line per garbled journal line that was skipped (``path:line: why``)."""


def _open_unbuffered(path: Path) -> BinaryIO:
    return open(path, "wb", buffering=0)


class JournalWriter:
    """Appends a run's records to ``path`` (truncated first), one JSON line each, written straight to the OS.

    A write that fails (a full disk: ``ENOSPC``, ``EDQUOT``; any ``OSError``) stops the journal, not the
    process: nothing more is written, and ``error`` is the one line to show, naming the file and how many
    case records it keeps (``--codesearch-resume`` runs the rest). ``open_file`` is how the file is opened
    (unbuffered, binary): the seam a test uses to simulate a full disk.
    """

    open_file: ClassVar[Callable[[Path], BinaryIO]] = staticmethod(_open_unbuffered)

    def __init__(self, path: Path, header: JournalHeader) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.error: str | None = None
        """Why the journal stopped (None while it is written)."""
        self.cases_written = 0
        self._stream: BinaryIO | None = type(self).open_file(path)
        self._write("header", header.model_dump_json())

    def collected(self, nodeids: list[str]) -> None:
        """Record node ids collected (the universe for 'not run')."""
        self._write("collected", json.dumps(nodeids))

    def goldsets(self, digests: dict[str, str]) -> None:
        """Record the content hash of gold-set files (what a resumed run checks)."""
        self._write("goldsets", json.dumps(digests))

    def case(self, record_json: str) -> None:
        """Record one case, given as ``CaseResult`` JSON (as it arrived in the test report)."""
        if self._write("case", record_json):
            self.cases_written += 1

    def invalid(self, entry_json: str) -> None:
        """Record one broken gold-set entry, given as ``InvalidEntry`` JSON."""
        self._write("invalid", entry_json)

    def replay(self, records: RunRecords) -> None:
        """Write everything ``records`` holds: collected ids, gold sets, cases, broken entries, and the end."""
        self.collected(sorted(records.collected))
        if records.goldsets:
            self.goldsets(records.goldsets)
        for case in records.cases.values():
            self.case(case.model_dump_json())
        for entry in records.invalid:
            self.invalid(entry.model_dump_json())
        if records.end is not None:
            self.end(records.end)

    def end(self, end: JournalEnd) -> None:
        """Record the end of the session and close the file."""
        self._write("end", end.model_dump_json())
        self.close()

    def close(self) -> None:
        """Close the file (records written so far stay; unbuffered, so closing writes nothing more)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass  # nothing is buffered: what was written stays

    def _write(self, kind: str, payload: str) -> bool:
        """Write one line straight to the OS (a killed process loses nothing written); return True when it was."""
        if self._stream is None:
            return False
        data = memoryview(f'{{"{kind}": {payload}}}\n'.encode("utf-8"))
        try:
            while data:
                data = data[self._stream.write(data) or 0 :]
        except OSError as exc:
            self.error = (
                f"codesearch: cannot write the journal {self.path}: {exc.strerror or exc}; the run stopped, and the "
                f"journal keeps {self.cases_written} case record(s): make room, then finish it with "
                "--codesearch-resume"
            )
            self.close()
            return False
        return True


WORKERS_DIR = ".workers"
"""Sub-directory of the report directory where xdist workers journal the cases they made, one directory per run."""


def worker_journal_dir(report_dir: Path, token: str) -> Path:
    """Return where the workers of the run ``token`` journal their cases."""
    return report_dir / WORKERS_DIR / token


class WorkerJournal:
    """An xdist worker's own journal: each case record it made, one line, written before its report leaves.

    Under ``-n`` an interrupt stops the controller reading reports while workers still finish the cases
    they run: their records would be lost (and paid for again by a resume). Each worker appends them to
    a file of its own (``<pid>-<random>.jsonl``, never keyed on the worker id, which replacement workers
    reuse) in ``worker_journal_dir``; the controller's end and ``--codesearch-resume`` take what is there.
    It is also how records reach the controller under xdist (issue 23): reports carry no record, and the
    controller's end reads these files (``read_worker_records``). A file that cannot be written is given
    up: ``case`` returns False, and the worker sends that record on its report instead.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._stream: BinaryIO | None = None
        self._failed = False

    def case(self, record_json: str) -> bool:
        """Append one case record (``CaseResult`` JSON); return False when it could not be written."""
        if self._failed:
            return False
        data = memoryview(f'{{"case": {record_json}}}\n'.encode("utf-8"))
        try:
            if self._stream is None:
                self.directory.mkdir(parents=True, exist_ok=True)
                name = f"{os.getpid()}-{secrets.token_hex(4)}.jsonl"
                self._stream = open(self.directory / name, "wb", buffering=0)
            while data:
                data = data[self._stream.write(data) or 0 :]
        except OSError:
            self._failed = True
        return not self._failed

    def close(self) -> None:
        """Close the file (nothing is buffered: every record written stays)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()


_CASE_LINE = '{"case": '


def read_worker_records(directory: Path) -> list[tuple[CaseResult, str]]:
    """Return each case record the workers journaled in ``directory`` with its JSON text, file by file in
    name order; torn or garbled lines are skipped."""
    records = []
    for path in sorted(directory.glob("*.jsonl")):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        except OSError:
            continue
        for line in lines:
            if not (line.startswith(_CASE_LINE) and line.endswith("}")):
                continue  # a torn line (the worker was killed while writing it)
            payload = line[len(_CASE_LINE) : -1]  # as WorkerJournal.case writes it
            try:
                records.append((CaseResult.model_validate_json(payload), payload))
            except ValueError:  # pydantic's ValidationError included
                continue
    return records


def write_goldset_counts(directory: Path, counts: dict[str, int]) -> None:
    """Write the valid cases of each gold set a worker collected (by path relative to the rootdir) beside the
    workers' journals, so that the controller, which collects nothing, need not read the gold sets again
    to tell a partial run (a 10,000-case gold set took it about 1 s, issue 23). Best effort: the controller
    reads a gold set no worker counted."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(directory / f"{_COUNTS_PREFIX}{os.getpid()}.json", json.dumps(counts))
    except OSError:
        pass


def read_goldset_counts(directory: Path) -> dict[str, int]:
    """Return the valid cases of each gold set the workers counted (``write_goldset_counts``); unreadable files
    count nothing."""
    counts: dict[str, int] = {}
    for path in sorted(directory.glob(f"{_COUNTS_PREFIX}*.json")):
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(found, dict):
            counts.update((k, v) for k, v in found.items() if isinstance(k, str) and type(v) is int)
    return counts


_COUNTS_PREFIX = "goldsets-"


def read_worker_journals(directory: Path) -> list[CaseResult]:
    """Return the case records the workers journaled in ``directory``; torn or garbled lines are skipped."""
    return [case for case, _ in read_worker_records(directory)]


def remove_worker_journals(report_dir: Path, keep: str | None = None) -> None:
    """Remove the workers' journals under ``report_dir``, but the run ``keep``'s."""
    root = report_dir / WORKERS_DIR
    if not root.is_dir():
        return
    for entry in root.iterdir():
        if entry.name != keep:
            shutil.rmtree(entry, ignore_errors=True)
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)


def read_journal(path: Path) -> RunRecords:
    """Return the records of the journal at ``path``; a torn last line (a killed writer) is skipped, and so
    is any other line that is not a record (two writers, a bad disk), each named in ``skipped``.

    Raises ``JournalError`` naming the file and line when it cannot be read or its header is not one.
    """
    try:
        # lines end in "\n" alone: a record may hold U+2028 or U+0085, which JSON leaves as they are
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and not lines[-1]:
            lines.pop()
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None
    records: RunRecords | None = None
    for number, line in enumerate(lines, start=1):
        try:
            kind, payload = _parse_line(line)
            if records is None:
                if kind != "header":
                    raise ValueError("the first line must be the header")
                records = RunRecords(JournalHeader.model_validate(payload))
            else:
                _add(records, kind, payload)
        except (ValueError, ValidationError) as exc:
            if number == len(lines) and records is not None:
                break  # the writer was killed mid-line
            message = f"{path}:{number}: not a journal record: {str(exc).splitlines()[0]}"
            if records is None:
                raise JournalError(message) from None
            records.skipped.append(message)
    if records is None:
        raise JournalError(f"{path}: empty journal (no header line)")
    return records


def _parse_line(line: str) -> tuple[str, object]:
    value = json.loads(line)
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError("expected one {kind: payload} object")
    ((kind, payload),) = value.items()
    return str(kind), payload


def _add(records: RunRecords, kind: str, payload: object) -> None:
    if kind == "case":
        case = CaseResult.model_validate(payload)
        records.cases[case.nodeid] = case
    elif kind == "invalid":
        records.invalid.append(InvalidEntry.model_validate(payload))
    elif kind == "collected":
        if not isinstance(payload, list):
            raise ValueError("collected must be a list of node ids")
        records.collected.update(str(n) for n in payload)
    elif kind == "goldsets":
        if not isinstance(payload, dict):
            raise ValueError("goldsets must map paths to hashes")
        records.goldsets.update({str(k): str(v) for k, v in payload.items()})
    elif kind == "end":
        records.end = JournalEnd.model_validate(payload)
    else:
        raise ValueError(f"unknown record kind {kind!r}")
