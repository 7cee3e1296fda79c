"""The controller's side of a run: records from test reports go to the journal; the end is ``runs.finish``."""

from __future__ import annotations

import platform
import secrets
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest

from pytest_codesearch.nodeids import base_nodeid, is_case_nodeid, parse_nodeid
from pytest_codesearch.report.render.cost import cost_lines
from pytest_codesearch.report.model import AgentInfo, CaseResult, InvalidEntry, RunInfo, RunReport
from pytest_codesearch.printable import visible
from pytest_codesearch.report.render.terminal import render_terminal
from pytest_codesearch.agents.index.filestore import store_pruning_notes
from pytest_codesearch.repo.prunelog import pruning_note
from pytest_codesearch.runner.inprocess import timing_overhead_ns
from pytest_codesearch.runs.finish import Finished, exit_status
from pytest_codesearch.runs.journal import (
    JOURNAL_NAME,
    JournalEnd,
    JournalHeader,
    JournalWriter,
    RunRecords,
    read_goldset_counts,
    read_worker_records,
    remove_worker_journals,
    worker_journal_dir,
)
from pytest_codesearch.runs.reportdir import ReportDirBusy, ReportLock, supersede
from pytest_codesearch.runs.resume import file_digest
from pytest_codesearch.scoring import metric_names, optional_metric_names
from pytest_codesearch.session.records import CASE_ATTRIBUTE, INDEX_ATTRIBUTE, INVALID_ATTRIBUTE, restore_properties
from pytest_codesearch.session.run_end import RunEnd
from pytest_codesearch.session.progress import Progress, collected_line, progress_wanted
from pytest_codesearch.session.state import RunState
from pytest_codesearch.settings.options import identity_values
from pytest_codesearch.status import Status

_PACKAGES = ("pytest", "pytest-codesearch", "pytest-xdist", "pytest-timeout", "pygit2", "numpy")


class RunCollector:
    """Registered on the controller (or the only process): journals records and ends the run."""

    def __init__(self, config: pytest.Config, state: RunState, run: RunInfo) -> None:
        self.config = config
        self.state = state
        settings = state.settings
        state.run_token = secrets.token_hex(8)
        header = JournalHeader(
            run=run,
            metric_names=metric_names(settings.ks, settings.f_beta is not None, settings.profile),
            optional_metric_names=optional_metric_names(settings.ks),
            headline=list(settings.headline) or None,
            run_token=state.run_token,
        )
        self.records = RunRecords(header)
        self.journal: JournalWriter | None = None
        self._journal_pending = False
        self.answered: set[str] = set()
        """Node ids whose call report came from an xdist worker that journaled the record (read at the end)."""
        self.finished: Finished | None = None
        self.journal_error: str | None = None
        self.end = RunEnd(config, state)  # gates are parsed here: a bad one stops the run before any case
        self.started = time.time()
        self.lock: ReportLock | None = None
        self.session: pytest.Session | None = None
        if not config.option.collectonly:
            self.lock = _lock(settings.report_dir, header.run.started_at)
        self.progress = Progress() if progress_wanted(config, settings.progress) else None
        self.collect_started: float | None = None

    @property
    def report(self) -> RunReport | None:
        """Return the run's report once the session finished."""
        return None if self.finished is None else self.finished.report

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Take the resumed cases; the journal opens once collection says where the report goes."""
        self.session = session
        self.collect_started = time.monotonic()
        if self.config.option.collectonly:
            return
        self.end.junit_properties()
        self._journal_pending = True
        for case in self.state.resumed.values():  # --codesearch-resume: the earlier run's completed cases
            self.records.cases[case.nodeid] = case

    def _open_journal(self) -> None:
        """Open the journal where this run's report goes (``partial/`` for a partial rerun, so the last
        full run's journal is kept) and write what arrived before it."""
        self._journal_pending = False
        target = self.end.report_dir(self.records)
        supersede(target, self.records.header.run.started_at)  # a killed run leaves no stale report looking current
        try:
            self.journal = JournalWriter(target / JOURNAL_NAME, self.records.header)
        except OSError as exc:
            self.journal_error = f"codesearch: cannot write the journal in {exc.filename or target}: {exc.strerror or exc}"
            return
        self.journal.replay(self.records)
        self._check_journal()
        # an earlier run's worker journals were taken by the resume (configure) and replayed above
        remove_worker_journals(self.state.settings.report_dir, keep=self.state.run_token)

    def _take_worker_journals(self) -> None:
        """Journal the records xdist workers journaled: every case they answered (reports carry no record,
        issue 23), those whose reports never arrived (an interrupt) too; then remove their files once the
        journal holds them. A crashed case's record stands (the crash report came first)."""
        token = self.state.run_token
        if token is None or self.config.pluginmanager.getplugin("dsession") is None:
            return  # no xdist workers
        directory = worker_journal_dir(self.state.settings.report_dir, token)
        for case, text in read_worker_records(directory):
            if case.nodeid not in self.records.cases:
                self._case(case, text, counted=case.nodeid in self.answered)
        if self.journal is not None and self.journal_error is None:
            remove_worker_journals(self.state.settings.report_dir)

    def _check_journal(self) -> None:
        """Stop the session, once, when the journal could not be written (a full disk): every case after
        would be lost to a resume. Its line names the file and what it keeps."""
        if self.journal is None or self.journal.error is None or self.journal_error is not None:
            return
        self.journal_error = self.journal.error
        self._stop(self.journal_error)

    def _stop(self, reason: str) -> None:
        """End the session after the case running now (pytest's ``shouldstop``; xdist's controller has its own)."""
        if self.session is not None:
            self.session.shouldstop = reason
        dsession = self.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Remember every case collected in this process, the universe for 'not run'."""
        self._collected([i.nodeid for i in session.items if hasattr(i, "spec") and is_case_nodeid(i.nodeid)])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist the controller collects nothing: the workers' node ids are the universe, and their
        counts of each gold set's cases tell a partial run (``records.hand_over_goldset_counts``)."""
        if self.state.run_token is not None:
            directory = worker_journal_dir(self.state.settings.report_dir, self.state.run_token)
            self.state.goldset_cases.update(read_goldset_counts(directory))
        self._collected([base_nodeid(i) for i in ids if is_case_nodeid(i)])

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_logreport")
    def pytest_runtest_logreport_properties(self, report: pytest.TestReport) -> None:
        """Give an xdist worker's call and teardown reports their JUnit XML properties back before any other
        plugin reads them (``records.pack_properties``)."""
        if report.when != "setup":
            restore_properties(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Journal the case record made in this process or carried by the report; count a case an xdist
        worker journaled (its record is read at the end); a crashed worker's case becomes ``crashed``."""
        if report.when == "call":
            local = self.state.local_results.pop(report.nodeid, None)
            record = getattr(report, CASE_ATTRIBUTE, None)
            if local is not None:
                self._case(*local)
            elif record is not None:
                self._case(CaseResult.model_validate_json(record), record)
            elif hasattr(report, "node") and is_case_nodeid(report.nodeid):  # journaled by an xdist worker
                self.answered.add(base_nodeid(report.nodeid))
                index_ms = getattr(report, INDEX_ATTRIBUTE, None)
                self._count(None if index_ms is None else self._agent_of(report.nodeid), index_ms)
        invalid = getattr(report, INVALID_ATTRIBUTE, None)
        if invalid is not None and report.when == "call":
            self.records.invalid.append(InvalidEntry.model_validate_json(invalid))
            if self.journal is not None:
                self.journal.invalid(invalid)
                self._check_journal()
        # pytest-xdist reports a crashed worker's case with when == "???" and nothing of ours on it
        if str(report.when) != "???":
            return
        nodeid = base_nodeid(report.nodeid)
        if nodeid in self.records.collected and nodeid not in self.records.cases and nodeid not in self.answered:
            case = self._crashed_case(nodeid)
            if case is not None:
                self._case(case, case.model_dump_json())

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """End the journal, then end the run (report, outputs, history, gates; also after Ctrl-C)."""
        if self.config.option.collectonly:
            return
        if self._journal_pending:  # nothing was collected (a collection error, no gold set)
            self._open_journal()
        self._take_worker_journals()
        # the status the records give (a resumed run that had nothing left to run is 0, not pytest's 5)
        status = exit_status(int(exitstatus), self.records, sharded=self.state.settings.shard is not None)
        end = JournalEnd(finished_at=_now(), exit_status=status)
        self.records.end = end
        if self.journal is not None:
            self.journal.end(end)
        self.finished = self.end.finish(self.records, int(session.exitstatus))
        if self.journal_error is not None:
            self.finished.lines.insert(0, self.journal_error)
            self.finished.failures.append(self.journal_error)
            self.finished.exit_status = max(self.finished.exit_status, int(pytest.ExitCode.TESTS_FAILED))
        session.exitstatus = self.finished.exit_status

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Close the journal of a session that ended before it finished (a usage error at start)."""
        if self.journal is not None:
            self.journal.close()
        if self.lock is not None:
            self.lock.release()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the agents side by side with the best of each column marked."""
        if self.finished is None:
            return
        report = self.finished.report
        terminalreporter.section("codesearch")
        width = self.config.get_terminal_writer().fullwidth
        for line in render_terminal(report, None, width) + cost_lines(report) + _advice(report):
            terminalreporter.write_line(visible(line))
        results = report.cases
        cases = len({(c.goldset, c.id) for c in results})
        agents = len({c.agent for c in results})
        terminalreporter.write_line(
            f"codesearch: {len(results)} results ({_plural(cases, 'case')} x {_plural(agents, 'agent')}), "
            f"seed {self.state.seed}; report in {self.end.report_dir(self.records)}"
        )
        for line in self.end.lines + self.finished.lines:
            terminalreporter.write_line(visible(line), red=line in self.finished.failures)
        settings = self.state.settings
        note = pruning_note(self.state.snapshots.cache_dir, self.started, settings.cache_size)
        for line in ([note] if note is not None else []) + store_pruning_notes(
            settings.cache_dir, self.started, settings.cache_size
        ):
            terminalreporter.write_line(line)

    def _collection_line(self, nodeids: list[str]) -> None:
        """Print how many cases a long collection made and how fast (once; progress lines only)."""
        if self.progress is None or self.collect_started is None:
            return
        seconds, self.collect_started = time.monotonic() - self.collect_started, None
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        agents = max(1, len(self.state.choices))
        goldsets = len({n.partition("::")[0] for n in nodeids})
        line = collected_line(len(nodeids) // agents, agents, goldsets, seconds)
        if line is not None and terminal is not None:
            terminal.write_line(line)

    def _collected(self, nodeids: list[str]) -> None:
        self._collection_line(nodeids)
        new = [n for n in nodeids if n not in self.records.collected]
        self.records.collected.update(new)
        goldsets = {n.partition("::")[0] for n in new} - set(self.records.goldsets)
        digests = {g: d for g in sorted(goldsets) if (d := file_digest(self.config.rootpath / g)) is not None}
        self.records.goldsets.update(digests)
        if self._journal_pending:
            self._open_journal()
        elif self.journal is not None:
            if new:
                self.journal.collected(new)
            if digests:
                self.journal.goldsets(digests)
            self._check_journal()

    def _case(self, case: CaseResult, record_json: str, *, counted: bool = False) -> None:
        """Keep and journal one record; count it for progress unless its report was ``counted`` already."""
        self.records.cases[case.nodeid] = case
        if self.journal is not None:
            self.journal.case(record_json)
            self._check_journal()
        if not counted:
            self._count(case.agent, case.index_ms if case.indexed else None)

    def _agent_of(self, nodeid: str) -> str | None:
        """Return the agent a case's node id names (None when it names none of the run's)."""
        parts = parse_nodeid(base_nodeid(nodeid), [c.name for c in self.state.choices])
        return None if parts is None else parts.agent

    def _count(self, agent: str | None, index_ms: float | None) -> None:
        """Count one case done for the progress line (``index_ms``: the indexing ``agent`` paid for it, if any)."""
        if self.progress is None:
            return
        self.progress.total = len(self.records.collected) - len(self.state.resumed)
        line = self.progress.count(agent, index_ms)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if line is not None and terminal is not None:
            terminal.write_line(line)

    def _crashed_case(self, nodeid: str) -> CaseResult | None:
        """Rebuild what a crash report allows: the node id names gold set, case and agent."""
        parts = parse_nodeid(nodeid, [c.name for c in self.state.choices])
        if parts is None:
            return None
        return CaseResult(
            id=parts.case_id, goldset=parts.goldset, agent=parts.agent, query="", nodeid=nodeid,
            ground_truth=[], relevance={}, retrieved=[], status=Status.CRASHED, latency_ms=None,
            latencies_ms=[], index_ms=None, metrics={}, error="the worker process running this case crashed",
        )  # fmt: skip


def _lock(report_dir: Path, started_at: str) -> ReportLock | None:
    """Return this run's lock on its report directory; another live run's is a usage error naming it.

    A directory that cannot be written gets no lock: the run goes on, and its end says what it could
    not write (as the journal's and the report's writers do)."""
    try:
        return ReportLock.acquire(report_dir, started_at)
    except ReportDirBusy as exc:
        raise pytest.UsageError(str(exc)) from None
    except OSError:
        return None


def run_info(config: pytest.Config, state: RunState) -> RunInfo:
    """Return what the run records about itself: every option that changes results, the selection, the
    environment (``RunInfo``)."""
    started = _now()
    return RunInfo(
        **{**identity_values(state.settings), "seed": state.seed},  # type: ignore[arg-type]
        keyword=str(config.getoption("keyword", "") or ""),
        markers=str(config.getoption("markexpr", "") or ""),
        started_at=started,
        finished_at=started,
        versions=_versions(),
        goldsets=[],
        agents={
            c.name: AgentInfo(fixture=c.spec.factory.__name__, source=c.spec.source, param=c.param_repr)
            for c in state.choices
        },
        workers=_workers(config),
        exit_status=None,
        timer_resolution_ns=time.get_clock_info("perf_counter").resolution * 1e9,
        timing_overhead_ns=timing_overhead_ns(),
    )


def _advice(report: RunReport) -> list[str]:
    """Return the report's recommendations (best quality, fastest, best balance), one line each."""
    from pytest_codesearch.report.recommend import describe

    return describe(report.recommendations.picks())


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _workers(config: pytest.Config) -> int:
    if config.pluginmanager.hasplugin("xdist") and getattr(config.option, "dist", "no") != "no":
        return max(1, int(getattr(config.option, "numprocesses", 0) or 0))
    return 1


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "platform": sys.platform}
    for package in _PACKAGES:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
