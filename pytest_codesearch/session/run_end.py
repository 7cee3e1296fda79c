"""The session's side of the end of a run: where the report goes, the gates, JUnit properties, then
``runs.finish.finish_run``, the one end every door shares.

``RunEnd`` is made with the controller (controller only, so all of it works under xdist):

- the gates are parsed and checked against the run's metric names when it is made, before any case:
  a typo is a usage error (exit 4), not a verdict after the whole run;
- ``report_dir(records)``: where this run's report files go: the report directory, or its
  ``partial/`` sub-directory when the run selected fewer cases than its gold sets hold (``-k``,
  ``--lf``, a node id) and the report directory holds a report already, so a partial rerun never
  replaces the last full report;
- ``finish(records, session_status)``: ``finish_run`` with what the settings ask (report files, TREC,
  the job summary, the saved run, the gates);
- ``junit_properties()``: seed, agents and plugin version as ``<testsuite>`` properties, added to
  the controller's junitxml writer (``LogXML.add_global_property``), which also works under xdist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from pytest_codesearch.nodeids import base_nodeid
from pytest_codesearch.runs.finish import Finished, ending_for, finish_run
from pytest_codesearch.runs.gates import GateError, Gates
from pytest_codesearch.runs.history import HistoryError, history_dir
from pytest_codesearch.runs.journal import RunRecords
from pytest_codesearch.session.state import RunState
from pytest_codesearch.settings.model import Settings

PARTIAL_DIR = "partial"
"""Sub-directory of the report directory that takes the report files of a partial run."""


def parse_gates(settings: Settings, here: Path) -> Gates:
    """Return the run's gates, their metrics checked against the run's; a bad one is a ``pytest.UsageError``."""
    from pytest_codesearch.scoring import metric_names, optional_metric_names

    try:
        gates = Gates.parse(
            settings.fail_under, settings.fail_on, settings.baseline,
            gate_any=settings.gate_any, history=history_dir(settings.cache_dir), here=here,
        )  # fmt: skip
        required = metric_names(settings.ks, settings.f_beta is not None, settings.profile)
        gates.check_names([*required, *optional_metric_names(settings.ks)])
    except (GateError, HistoryError) as exc:
        raise pytest.UsageError(str(exc)) from None
    return gates


class RunEnd:
    """What the controller does at the end of a run (see the module docstring)."""

    def __init__(self, config: pytest.Config, state: RunState) -> None:
        self.config = config
        self.state = state
        self.gates = parse_gates(state.settings, config.invocation_params.dir)
        self.lines: list[str] = []
        """Lines to show before the end's own: where a partial run's report went."""
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
            records, self.config.rootpath, len(self.state.choices), self.state.goldset_cases,
            limit=self.state.settings.limit,
        )  # fmt: skip
        if not self.partial or not (base / "results.json").is_file():
            return base  # a full run, or no earlier report to keep
        target = base / PARTIAL_DIR
        self.lines.append(
            f"codesearch: partial run ({len(records.collected | set(records.cases))} of the gold sets' cases): "
            f"report in {target}; "
            f"the last full report in {base} is kept"
        )
        return target

    def finish(self, records: RunRecords, session_status: int) -> Finished:
        """Build the report, write every output, save the run and check the gates (``runs.finish``)."""
        ending = ending_for(
            self.state.settings, self.report_dir(records),
            rootdir=self.config.rootpath, gates=self.gates, partial=self.partial,
        )  # fmt: skip
        return finish_run(records, ending, session_status)

    def junit_properties(self) -> None:
        """Add seed, agents and plugin version to the ``<testsuite>`` of ``--junitxml`` (controller only)."""
        from pytest_codesearch import __version__

        for plugin in self.config.pluginmanager.get_plugins():
            add = getattr(plugin, "add_global_property", None)
            if type(plugin).__name__ == "LogXML" and callable(add):
                add("codesearch_seed", self.state.seed)
                add("codesearch_agents", ",".join(c.name for c in self.state.choices))
                add("codesearch_version", __version__)


def is_partial_run(
    records: RunRecords, rootpath: Path, agents: int, known: Mapping[str, int], *, limit: int | None = None
) -> bool:
    """Return True when fewer (case x agent) items were selected than the run's selection holds: its gold
    sets' cases, or ``limit`` of them (``--codesearch-limit`` is part of what the run is, not a partial rerun).

    ``known`` gives the valid cases of gold sets already read (see ``goldset_cases``)."""
    from pytest_codesearch.runs.history import is_partial

    selected = len({base_nodeid(n) for n in records.collected | set(records.cases)})
    cases = goldset_cases(rootpath, records.goldsets, known)
    return is_partial(selected, (cases if limit is None else min(cases, limit)) * agents)


def goldset_cases(rootpath: Path, goldsets: Iterable[str], known: Mapping[str, int]) -> int:
    """Return the valid cases the gold sets (paths relative to ``rootpath``) hold.

    A gold set in ``known`` (its valid cases, counted when this process collected it) is not read again.
    """
    from pytest_codesearch.goldset import formats

    return sum(known[g] if g in known else len(formats.load(rootpath / g).cases) for g in goldsets)
