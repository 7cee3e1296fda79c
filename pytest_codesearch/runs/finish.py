"""The end of a run, one library function for every door: case records in, report, outputs, history, gates,
exit status out.

A live run (the controller's ``pytest_sessionfinish``, resumed or not), ``--codesearch-merge`` and
``report_from_journal`` all end here, so the same records always give the same report, the same files,
the same saved run, the same gate verdicts and the same exit status::

    finished = finish_run(records, Ending(targets=Targets(report_dir=Path("out"))), session_status=0)
    finished.exit_status        # 1 when a case failed or a gate did
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.model import CaseResult, RunReport
from pytest_codesearch.report.render.formats import REPORT_FORMATS, Targets
from pytest_codesearch.runs.gates import Gates
from pytest_codesearch.runs.journal import RunRecords, read_journal

if TYPE_CHECKING:
    from pytest_codesearch.runs.compare import RunComparison
    from pytest_codesearch.settings.model import Settings

OK, TESTS_FAILED, INTERRUPTED, INTERNAL_ERROR, NO_TESTS_COLLECTED = 0, 1, 2, 3, 5
"""pytest's exit statuses (``pytest.ExitCode``), as plain ints: the library does not import pytest."""


@dataclass(frozen=True)
class Saving:
    """Where and how a run is saved in the history (``runs/history.py``)."""

    history: Path
    journal: Path | None
    commit: str | None
    partial: bool = False
    keep: int | None = None
    """Saved runs the history keeps (the oldest beyond are removed); None: all."""


@dataclass(frozen=True)
class Ending:
    """What the end of a run does besides building the report: where outputs go, saving, gates."""

    targets: Targets
    saving: Saving | None = None
    """None: the run is not saved (``--codesearch-no-save``)."""
    gates: Gates = field(default_factory=Gates)
    sharded: bool = False
    """The run is one shard of a CI matrix: a shard that holds no case still passes."""


@dataclass
class Finished:
    """What the end of a run produced: the report, the exit status and the lines to show."""

    report: RunReport
    exit_status: int
    lines: list[str] = field(default_factory=list)
    """Where each output went, the saved run, failed gates (one line each)."""
    failures: list[str] = field(default_factory=list)
    """The failed gates and outputs that could not be written (shown in red)."""


def finish_run(records: RunRecords, ending: Ending, session_status: int) -> Finished:
    """Build the report of ``records``, write every output, save the run, check the gates; return the result.

    ``session_status`` is the exit status of the session that ran the cases (``OK`` for a merge): the
    exit status is derived from it and the records (``exit_status``).
    """
    report = build_report(records)
    finished = Finished(report, OK)
    comparisons = _baseline_comparison(report, ending.gates, finished)
    written = _write_outputs(report, ending.targets, finished, comparisons)
    if ending.saving is not None:
        _save(report, records, ending.saving, finished, written.get("json"))
    gate_failures = ending.gates.check(report)
    finished.lines += gate_failures
    finished.failures += gate_failures
    finished.exit_status = exit_status(session_status, records, sharded=ending.sharded, failed=bool(finished.failures))
    return finished


def exit_status(session_status: int, records: RunRecords, *, sharded: bool = False, failed: bool = False) -> int:
    """Return the run's exit status: the session's, made to count every record (resumed and merged ones too).

    An interrupted session, an internal or usage error keeps its status. Otherwise the status is
    ``TESTS_FAILED`` when the session failed, a case failed, a gold-set entry was broken or ``failed`` (a
    gate, an output that could not be written); ``NO_TESTS_COLLECTED`` when nothing at all ran (but a
    shard may hold nothing); else ``OK``.
    """
    if session_status not in (OK, TESTS_FAILED, NO_TESTS_COLLECTED):
        return session_status
    broken = any(c.status.failed for c in records.cases.values()) or bool(records.invalid)
    if session_status == TESTS_FAILED or broken or failed:
        return TESTS_FAILED
    if session_status == NO_TESTS_COLLECTED and not records.cases and not sharded:
        return NO_TESTS_COLLECTED
    return OK


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
    interrupted = records.end is None or records.end.exit_status in (INTERRUPTED, INTERNAL_ERROR)
    report.incomplete = interrupted or bool(report.not_run)
    return report


def report_from_journal(path: Path) -> RunReport:
    """Return the run report of the journal at ``path`` (no pytest session needed)."""
    return build_report(read_journal(path))


def _baseline_comparison(report: RunReport, gates: Gates, finished: Finished) -> list[RunComparison]:
    """Return the run's comparison with its baseline (``--codesearch-baseline``), with a line per agent on
    its first headline metric; none without a baseline, or with one line saying why they cannot be compared."""
    from pytest_codesearch.runs.compare import ComparisonError, compare_headline

    if gates.baseline is None:
        return []
    try:
        comparison = compare_headline(gates.baseline, report, labels=(gates.baseline_name, "this run"))
    except ComparisonError as exc:
        finished.lines.append(f"codesearch: not compared with the {gates.baseline_name}: {exc}")
        return []
    finished.lines += comparison_lines(comparison)
    return [comparison]


def comparison_lines(comparison: RunComparison) -> list[str]:
    """Return one line per agent of a comparison on its first metric: both figures, Δ, and Holm's p."""
    if not comparison.deltas:
        return []
    first = comparison.deltas[0].metric
    lines = []
    for delta in (d for d in comparison.deltas if d.metric == first and d.diff is not None):
        p = "" if delta.p_holm is None else f", p (Holm) {delta.p_holm:.3g}{' significant' if delta.significant else ''}"
        lines.append(
            f"codesearch: {delta.agent} {first} {delta.before:.3f} -> {delta.after:.3f} ({delta.diff:+.3f}{p}) "
            f"against the {comparison.before}"
        )
    return lines


def _write_outputs(
    report: RunReport, targets: Targets, finished: Finished, comparisons: list[RunComparison]
) -> dict[str, Path]:
    """Write every output ``targets`` asks for and return the report files written by format name; one that
    cannot be written is a failure line, not an error."""
    written: dict[str, Path] = {}
    for entry in REPORT_FORMATS.values():
        destination = entry.destination(targets)
        if destination is None:
            continue
        if not entry.applies(comparisons):  # an earlier run's comparison must not pass for this run's
            if entry.target == "report_dir":
                with contextlib.suppress(OSError):
                    destination.unlink(missing_ok=True)
            continue
        try:
            entry.write(report, destination, comparisons)
        except OSError as exc:
            _cannot_write(finished, exc, _WHAT[entry.target])
            continue
        if entry.target == "report_dir":
            written[entry.name] = destination
        if entry.note:
            finished.lines.append(f"codesearch: {entry.note.format(path=destination)}")
    return written


def _save(report: RunReport, records: RunRecords, saving: Saving, finished: Finished, results: Path | None) -> None:
    """Save the run in the history (``results``: its ``results.json`` just written, copied rather than made
    again); a history that cannot be written is a failure line."""
    from pytest_codesearch.runs.history import prune_runs, save_run

    try:
        saved = save_run(
            saving.history, report, saving.journal,
            commit=saving.commit, goldsets=records.goldsets, partial=saving.partial,
            report_dir=None if saving.journal is None else saving.journal.parent, results=results,
        )  # fmt: skip
    except OSError as exc:
        _cannot_write(finished, exc, "the run to the history")
        return
    finished.lines.append(f"codesearch: run saved as {saved.id} in {saving.history}")
    removed = [] if saving.keep is None else prune_runs(saving.history, saving.keep)
    if removed:
        finished.lines.append(
            f"codesearch: removed the {len(removed)} oldest saved run(s) beyond {saving.keep} "
            f"(--codesearch-history-keep), the oldest {removed[0]}"
        )


_WHAT = {"report_dir": "the report", "trec": "TREC files", "step_summary": "the job summary"}


def _cannot_write(finished: Finished, exc: OSError, what: str) -> None:
    """Add one failure line naming what could not be written, where and why (once, however many files)."""
    message = f"codesearch: cannot write {what} to {exc.filename or 'its folder'}: {exc.strerror or exc}"
    if message not in finished.failures:
        finished.lines.append(message)
        finished.failures.append(message)


def _answer_warnings(cases: list[CaseResult]) -> list[str]:
    """Return a line per agent and problem: answers cut to the bound, invalid paths, undefined functions."""
    lines = []
    for agent in sorted({c.agent for c in cases}):
        mine = [c for c in cases if c.agent == agent]
        cut = [c.answer_cut_from for c in mine if c.answer_cut_from is not None]
        invalid = sum(c.invalid_paths for c in mine)
        if cut:
            lines.append(f"agent {agent}: {len(cut)} answer(s) longer than the bound were cut (longest {max(cut):,})")
        if invalid:
            lines.append(f"agent {agent}: {invalid:,} answer entries named no file of the snapshot and were dropped")
        undefined = [c.undefined_functions for c in mine if c.undefined_functions]
        if undefined:
            lines.append(f"agent {agent}: named {sum(undefined):,} function(s) that do not exist at their snapshot "
                         f"({len(undefined):,} case(s))")  # fmt: skip
    return lines


def ending_for(settings: Settings, report_dir: Path, *, rootdir: Path, gates: Gates, partial: bool = False) -> Ending:
    """Return what the end of a run with ``settings`` does, its report files going to ``report_dir``."""
    from pytest_codesearch.runs.history import git_commit, history_dir
    from pytest_codesearch.runs.journal import JOURNAL_NAME

    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    targets = Targets(
        report_dir=report_dir,
        formats=settings.formats,
        trec=settings.trec,
        step_summary=Path(summary) if summary else None,
    )
    saving = None
    if not settings.no_save:
        saving = Saving(
            history_dir(settings.cache_dir), report_dir / JOURNAL_NAME, git_commit(rootdir), partial,
            keep=settings.history_keep,
        )  # fmt: skip
    return Ending(targets, saving, gates, sharded=settings.shard is not None)
