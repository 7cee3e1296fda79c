"""The controller's end of a run beyond the report files: partial runs, history, gates, TREC, CI outputs.

``RunEnd`` is made with the collector (controller only, so all of it works under xdist) and called
from its hooks:

- ``report_dir(records)``: where this run's report files go: the report directory, or its
  ``partial/`` sub-directory when the run selected fewer cases than its gold sets hold (``-k``,
  ``--lf``, a node id) and the report directory holds a report already, so a partial rerun never
  replaces the last full report;
- ``finish(records, report, session)``: save the run under ``<cache_dir>/history/`` (unless
  ``--codesearch-no-save``), write TREC files (``--codesearch-trec``), append ``summary.md`` to
  ``$GITHUB_STEP_SUMMARY``, and evaluate the gates: a failed gate makes the exit status 1
  (``TESTS_FAILED``) when nothing else failed;
- ``junit_properties()``: seed, agents and plugin version as ``<testsuite>`` properties, added to
  the controller's junitxml writer (``LogXML.add_global_property``), which also works under xdist.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_codesearch.keys import JOURNAL_NAME
from pytest_codesearch.runs.gates import Floor, GateError, Tolerance, parse_floors, parse_tolerances
from pytest_codesearch.runs.history import HistoryError, history_dir, load_report, resolve_run
from pytest_codesearch.runs.journal import RunRecords
from pytest_codesearch.report.model import RunReport
from pytest_codesearch.settings.model import Settings
from pytest_codesearch.session.state import RunState

PARTIAL_DIR = "partial"
"""Sub-directory of the report directory that takes the report files of a partial run."""
GATE_EXIT_STATUS = pytest.ExitCode.TESTS_FAILED
"""Exit status of a session whose cases all passed but whose gates failed."""


@dataclass
class Gates:
    """The gates a run was asked for: floors, and tolerances against a loaded baseline."""

    floors: list[Floor] = field(default_factory=list)
    tolerances: list[Tolerance] = field(default_factory=list)
    baseline: RunReport | None = None
    baseline_name: str = "baseline"
    require_significance: bool = True

    @classmethod
    def from_settings(cls, settings: Settings, here: Path) -> Gates:
        """Parse the gate settings; a bad spec or a missing baseline is a ``pytest.UsageError``."""
        name = settings.baseline
        try:
            gates = cls(
                floors=parse_floors(settings.fail_under) if settings.fail_under else [],
                tolerances=parse_tolerances(settings.fail_on) if settings.fail_on else [],
                require_significance=not settings.gate_any,
            )
            if gates.tolerances and not name:
                raise GateError("--codesearch-fail-on: needs --codesearch-baseline RUN (a path, an id or 'latest')")
            if name:
                path = resolve_run(name, history_dir(settings.cache_dir), here)
                gates.baseline, gates.baseline_name = load_report(path), f"baseline {name}"
        except (GateError, HistoryError) as exc:
            raise pytest.UsageError(str(exc)) from None
        return gates

    def check(self, report: RunReport) -> list[str]:
        """Return one message per failed gate (empty when every gate passed)."""
        from pytest_codesearch.runs.gates import check_floors, check_regressions

        failures = check_floors(report, self.floors)
        if self.baseline is not None and self.tolerances:
            failures += check_regressions(
                report, self.baseline, self.tolerances,
                require_significance=self.require_significance, label=self.baseline_name,
            )  # fmt: skip
        return failures


class RunEnd:
    """What the controller does at the end of a run besides the report files (see the module docstring)."""

    def __init__(self, config: pytest.Config, state: RunState) -> None:
        self.config = config
        self.state = state
        self.gates = Gates.from_settings(state.settings, config.invocation_params.dir)
        self.lines: list[str] = []
        """Terminal lines: where each file went, saved run, gate results."""
        self.failures: list[str] = []
        self.partial = False
        self._target: Path | None = None

    def report_dir(self, records: RunRecords) -> Path:
        """Return where this run's report files go: ``partial/`` under the report directory for a partial run.

        Decided once, when collection is known (the journal opens there), and the same ever after.
        """
        if self._target is None:
            self._target = self._decide(records)
        return self._target

    def _decide(self, records: RunRecords) -> Path:
        base = self.state.settings.report_dir
        # a shard holds its share of the cases by design: its report is merged, never partial
        sharded = self.state.settings.shard is not None
        self.partial = not sharded and is_partial_run(
            records, self.config.rootpath, len(self.state.choices), self.state.goldset_cases
        )
        if not self.partial or not (base / "results.json").is_file():
            return base  # a full run, or no earlier report to keep
        target = base / PARTIAL_DIR
        self.lines.append(
            f"codesearch: partial run ({len(records.collected | set(records.cases))} of the gold sets' cases): "
            f"report in {target}; "
            f"the last full report in {base} is kept"
        )
        return target

    def finish(self, records: RunRecords, report: RunReport, session: pytest.Session) -> None:
        """Save the run, write TREC files and the step summary, evaluate the gates (sets the exit status)."""
        settings = self.state.settings
        if not settings.no_save:
            self._save(records, report)
        if settings.trec is not None:
            trec = settings.trec
            self._write(lambda: _trec(report, trec))
        summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary_path:
            self._write(lambda: _append_summary(Path(summary_path), report))
        self.failures = self.gates.check(report)
        if self.failures and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = GATE_EXIT_STATUS
        self.lines += self.failures

    def junit_properties(self) -> None:
        """Add seed, agents and plugin version to the ``<testsuite>`` of ``--junitxml`` (controller only)."""
        from pytest_codesearch import __version__

        for plugin in self.config.pluginmanager.get_plugins():
            add = getattr(plugin, "add_global_property", None)
            if type(plugin).__name__ == "LogXML" and callable(add):
                add("codesearch_seed", self.state.seed)
                add("codesearch_agents", ",".join(c.name for c in self.state.choices))
                add("codesearch_version", __version__)

    def _save(self, records: RunRecords, report: RunReport) -> None:
        from pytest_codesearch.runs.history import git_commit, save_run

        history = history_dir(self.state.settings.cache_dir)

        def save() -> str:
            saved = save_run(
                history, report, self.state.settings.report_dir / JOURNAL_NAME,
                commit=git_commit(self.config.rootpath), goldsets=records.goldsets, partial=self.partial,
            )  # fmt: skip
            return f"codesearch: run saved as {saved.id} in {history}"

        self._write(save)

    def _write(self, action: Callable[[], str]) -> None:
        try:
            self.lines.append(action())
        except OSError as exc:  # an unwritable history or TREC directory must not end in an internal error
            self.lines.append(f"codesearch: cannot write {exc.filename or ''}: {exc.strerror or exc}")


def is_partial_run(
    records: RunRecords, rootpath: Path, agents: int, known: Mapping[str, int]
) -> bool:
    """Return True when fewer (case x agent) items were selected than the gold sets hold.

    ``known`` gives the valid cases of gold sets already read (see ``goldset_items``)."""
    from pytest_codesearch.runs.history import is_partial
    from pytest_codesearch.runs.resume import base_nodeid

    selected = len({base_nodeid(n) for n in records.collected | set(records.cases)})
    return is_partial(selected, goldset_items(rootpath, records.goldsets, agents, known))


def goldset_items(
    rootpath: Path, goldsets: Iterable[str], agents: int, known: Mapping[str, int]
) -> int:
    """Return the items the gold sets (paths relative to ``rootpath``) hold: their valid cases times ``agents``.

    A gold set in ``known`` (its valid cases, counted when this process collected it) is not read again.
    """
    from pytest_codesearch.goldset import formats

    return sum(known[g] if g in known else len(formats.load(rootpath / g).cases) for g in goldsets) * agents


def _trec(report: RunReport, directory: Path) -> str:
    from pytest_codesearch.report.render.trec import write_trec

    write_trec(report, directory)
    return f"codesearch: TREC qrels and run files in {directory}"


def _append_summary(path: Path, report: RunReport) -> str:
    from pytest_codesearch.report.render.markdown import render_summary

    with path.open("a", encoding="utf-8") as stream:
        stream.write(render_summary(report) + "\n")
    return f"codesearch: summary appended to $GITHUB_STEP_SUMMARY ({path})"
