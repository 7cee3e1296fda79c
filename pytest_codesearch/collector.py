"""The controller's side of a run: rebuild every case from test reports and write the report."""

from __future__ import annotations

import platform
import sys
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pytest

from pytest_codesearch.report import HEADLINE_METRICS
from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.csv_report import write_csv
from pytest_codesearch.report.json_report import write_json
from pytest_codesearch.report.markdown import render_markdown
from pytest_codesearch.report.atomic import write_atomic
from pytest_codesearch.report.model import AgentInfo, CaseResult, InvalidEntry, RunInfo, RunReport
from pytest_codesearch.report.terminal import render_terminal
from pytest_codesearch.scoring import metric_names, optional_metric_names
from pytest_codesearch.plugin import CASE_ATTRIBUTE, INVALID_ATTRIBUTE
from pytest_codesearch.state import RunState

_PACKAGES = ("pytest", "pytest-codesearch", "pytest-xdist", "pytest-timeout", "pygit2", "numpy", "rank-bm25")


class RunCollector:
    """Registered on the controller (or the only process): gathers records and writes the report."""

    def __init__(self, config: pytest.Config, state: RunState) -> None:
        self.config = config
        self.state = state
        self.started_at = _now()
        self.cases: dict[str, CaseResult] = {}
        self.invalid: list[InvalidEntry] = []
        self.collected: set[str] = set()
        self.report: RunReport | None = None
        self.write_error: str | None = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Remember every case collected in this process, the universe for 'not run'."""
        self.collected.update(i.nodeid for i in session.items if _is_case_item(i))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist the controller collects nothing: the workers' node ids are the universe."""
        self.collected.update(i for i in ids if _looks_like_case(i))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the case record a call report carries; a crashed worker's case becomes an error."""
        record = getattr(report, CASE_ATTRIBUTE, None)
        if record is not None:
            case = CaseResult.model_validate_json(record)
            self.cases[case.nodeid] = case
        invalid = getattr(report, INVALID_ATTRIBUTE, None)
        if invalid is not None and report.when == "call":
            self.invalid.append(InvalidEntry.model_validate_json(invalid))
        # pytest-xdist reports a crashed worker's case with when == "???" and nothing of ours on it
        if str(report.when) == "???" and report.nodeid in self.collected and report.nodeid not in self.cases:
            self.cases[report.nodeid] = _crashed_case(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Aggregate and write results.json, results.csv and summary.md (also after Ctrl-C)."""
        if self.config.option.collectonly:
            return
        settings = self.state.settings
        names = metric_names(settings.ks, settings.f_beta is not None)
        self.report = build_run_report(
            self._run_info(int(exitstatus)),
            list(self.cases.values()),
            names,
            invalid=self.invalid,
            not_run=sorted(self.collected - set(self.cases)),
            optional=optional_metric_names(settings.ks),
        )
        try:
            self._write_files(self.report, names)
        except OSError as exc:  # an unwritable report directory must not end in an internal error
            where = exc.filename or settings.report_dir
            self.write_error = f"codesearch: cannot write the report to {where}: {exc.strerror or exc}"
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _write_files(self, report: RunReport, names: list[str]) -> None:
        directory, formats = self.state.settings.report_dir, self.state.settings.formats
        if "json" in formats:
            write_json(report, directory / "results.json")
        if "csv" in formats:
            write_csv(report, directory / "results.csv")
        if "markdown" in formats:
            write_atomic(directory / "summary.md", render_markdown(report, _headline(names)))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the agents side by side with the best of each column marked."""
        if self.report is None:
            return
        names = metric_names(self.state.settings.ks)
        terminalreporter.section("codesearch")
        if self.write_error is not None:
            terminalreporter.write_line(self.write_error, red=True)
        for line in render_terminal(self.report, _headline(names), self.config.get_terminal_writer().fullwidth):
            terminalreporter.write_line(line)
        results = self.report.cases
        cases = len({(c.goldset, c.id) for c in results})
        agents = len({c.agent for c in results})
        terminalreporter.write_line(
            f"codesearch: {len(results)} results ({_plural(cases, 'case')} x {_plural(agents, 'agent')}), "
            f"seed {self.state.seed}; report in {self.state.settings.report_dir}"
        )

    def _run_info(self, exitstatus: int) -> RunInfo:
        settings = self.state.settings
        return RunInfo(
            seed=self.state.seed,
            runs=settings.runs,
            k=settings.k,
            ks=list(settings.ks),
            started_at=self.started_at,
            finished_at=_now(),
            versions=_versions(),
            goldsets=sorted({c.goldset for c in self.cases.values()} | {i.goldset for i in self.invalid}),
            agents={
                c.name: AgentInfo(fixture=c.spec.factory.__name__, source=c.spec.source, param=c.param_repr)
                for c in self.state.choices
            },
            workers=_workers(self.config),
            exit_status=exitstatus,
            bootstrap=settings.bootstrap,
            alpha=settings.alpha,
            f_beta=settings.f_beta,
        )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _headline(names: list[str]) -> list[str]:
    return [m for m in HEADLINE_METRICS if m in names]


def _looks_like_case(nodeid: str) -> bool:
    """Return True for ``goldset::case[agent]`` ids (with the ``@group`` suffix --dist loadgroup adds)."""
    _, sep, rest = nodeid.partition("::")
    return bool(sep) and rest.split("@", 1)[0].endswith("]")


def _is_case_item(item: pytest.Item) -> bool:
    return item.nodeid.endswith("]") and hasattr(item, "spec")


def _crashed_case(report: pytest.TestReport) -> CaseResult:
    """Rebuild what a crash report allows: the node id names gold set, case and agent."""
    goldset, _, rest = report.nodeid.partition("::")
    rest = rest.split("]@", 1)[0].removesuffix("]")  # drop the "@group" suffix of --dist loadgroup
    case_id, _, agent = rest.partition("[")
    return CaseResult(
        id=case_id,
        goldset=goldset,
        agent=agent,
        query="",
        nodeid=report.nodeid,
        ground_truth=[],
        relevance={},
        retrieved=[],
        status="error",
        latency_ms=None,
        latencies_ms=[],
        index_ms=None,
        metrics={},
        error="the worker process running this case crashed",
    )


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
