"""Run one case against one agent's runner: snapshot, index, timed runs, normalisation, scoring."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_codesearch.agents.builtin.sanity import CaseInfo
from pytest_codesearch.agents.contract import ContractError
from pytest_codesearch.agents.registry import AgentChoice
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.recordtext import safe_record
from pytest_codesearch.repo import Snapshot, SnapshotError, SnapshotStore
from pytest_codesearch.repo.remote import is_remote
from pytest_codesearch.repo.snapshot import empty_snapshot
from pytest_codesearch.repo.suggest import missing_path_message
from pytest_codesearch.report.model import CaseResult
from pytest_codesearch.runner.base import (
    AgentCrashed,
    AgentError,
    AgentRunner,
    AgentTimeout,
    Answers,
)
from pytest_codesearch.runner.inprocess import run_agent_code
from pytest_codesearch.score_answer import score_answer
from pytest_codesearch.scoring import applicable_metrics
from pytest_codesearch.scoring.matching import MatchMode, unmatched_truth
from pytest_codesearch.settings.model import Settings
from pytest_codesearch.status import Status

if TYPE_CHECKING:
    from pytest_codesearch.runner.pool import AgentPool

BLIND_ROOT = "blind-empty-repository"
"""The empty directory, under the cache, that blind twins search (``--codesearch-blind``); their answers
are scored against the case's own snapshot, so what they name from memory counts."""
RETRY_BACKOFF_S = 0.5
"""Wait before the first retry; it doubles with each further attempt."""
RETRY_BACKOFF_MAX_S = 30.0
"""The longest wait between two attempts."""
T = TypeVar("T")


@dataclass(frozen=True)
class CaseSpec:
    """A case as collected: the gold-set entry and the repository state it searches."""

    goldset: str
    line: int
    case: TestCase
    repo: Path | None
    base_commit: str | None
    repo_error: str | None = None
    match: MatchMode = "exact"
    """How answers match the ground truth (the gold set's ``match``)."""
    repo_name: str | None = None
    """The repository as the gold set names it (the case's ``repo``, else its metadata's), None if it names none."""

    @cached_property
    def relevance(self) -> dict[str, int]:
        """Return the case's graded relevance (``TestCase.relevance_map``), made once: do not modify it."""
        return self.case.relevance_map()

    @cached_property
    def case_fields(self) -> dict[str, Any]:
        """Return the fields of a record that the case alone gives, made safe for records once
        (``recordtext.safe_record``): every agent and run of the case shares them; do not modify them."""
        case, relevance = self.case, self.relevance
        return safe_record({
            "id": case.id,
            "goldset": self.goldset,
            "query": case.query,
            "ground_truth": sorted(relevance, key=lambda p: (-relevance[p], p)),
            "relevance": dict(relevance),
            "match": self.match,
            "ground_truth_modules": list(case.ground_truth_modules),
            "ground_truth_functions": list(case.ground_truth_functions),
            "complexity": case.complexity,
            "category": case.category,
            "tags": list(case.tags),
            "repo": repo_label(self),
            "base_commit": self.base_commit,
        })  # fmt: skip

    @property
    def snapshot_key(self) -> tuple[str, str]:
        """Return what identifies the repository state before it is resolved."""
        return (str(self.repo), self.base_commit or "")


class CaseError(Exception):
    """A case that cannot be run through no fault of the agent code (gold set, snapshot, contract)."""


Failure = CaseError | AgentError | AgentTimeout | AgentCrashed
_STATUS_OF: dict[type[Exception], Status] = {
    CaseError: Status.ERROR,
    AgentError: Status.ERROR,
    AgentTimeout: Status.TIMEOUT,
    AgentCrashed: Status.CRASHED,
}


@dataclass
class Outcome:
    """The record of one (case, agent) and, when it failed, why."""

    result: CaseResult
    failure: Failure | None = None


def evaluate_case(
    spec: CaseSpec,
    choice: AgentChoice,
    pool: AgentPool,
    snapshots: SnapshotStore,
    settings: Settings,
    *,
    seed: int,
    nodeid: str,
    worker: str | None = None,
) -> Outcome:
    """Run ``spec`` against the agent ``choice`` and return its scored record.

    ``settings`` are the run's (``runs``, ``ks``, ``k``, ``f_beta``, budgets, ``retries``, ``warmup``,
    ``max_answer``); ``seed`` is the run's seed (the sanity agents draw from it).
    """
    record = _base_record(spec, choice, nodeid, worker)
    try:
        snapshot = _snapshot_for(spec, snapshots)
        record["snapshot"] = snapshot.tree_id or str(snapshot.repo)
        ask = lambda: _ask(record, spec, choice, pool, snapshots, snapshot, settings, seed)  # noqa: E731
        answers = _with_retries(record, settings, ask)
        record["latencies_ms"] = answers.latencies_ms
        latencies = answers.latencies_ms
        record["latency_ms"] = latencies[0] if len(latencies) == 1 else statistics.median(latencies)
        first = answers.results[0]
        record["nondeterministic"] = any(a.files != first.files for a in answers.results[1:])
        score_answer(record, first, spec.case, spec.relevance, spec.match, snapshot, settings)
    except (CaseError, AgentError, AgentTimeout, AgentCrashed) as failure:
        return Outcome(_failed_record(record, failure, spec, settings), failure)
    except ContractError as exc:
        refused = CaseError(str(exc))
        return Outcome(_failed_record(record, refused, spec, settings), refused)
    return Outcome(CaseResult(status=Status.OK, **spec.case_fields, **safe_record(record)))


def _with_retries(record: dict[str, Any], settings: Settings, ask: Callable[[], Answers]) -> Answers:
    """Return ``ask()``, asking again (with backoff) up to ``settings.retries`` times when the agent's
    code raised something retryable; every failed attempt's error goes in the record."""
    while True:
        record["attempts"] += 1
        try:
            return ask()
        except AgentError as exc:
            if record["attempts"] > settings.retries or not is_retryable(exc):
                raise
            record["retry_errors"].append(failure_message(exc))
            time.sleep(min(RETRY_BACKOFF_S * 2 ** (record["attempts"] - 1), RETRY_BACKOFF_MAX_S))


def _ask(
    record: dict[str, Any],
    spec: CaseSpec,
    choice: AgentChoice,
    pool: AgentPool,
    snapshots: SnapshotStore,
    snapshot: Snapshot,
    settings: Settings,
    seed: int,
) -> Answers:
    record["elapsed_ms"] = None  # an attempt that fails says what it cost
    runner = run_agent_code("creating the agent", lambda: pool.runner(choice))
    seen = empty_snapshot(settings.cache_dir / BLIND_ROOT) if choice.blind else snapshot
    if not runner.needs_directory:
        return _prepare_and_answer(record, spec, runner, seen, settings, seed)
    _ensure_directory(seen, snapshots)
    try:
        return _prepare_and_answer(record, spec, runner, seen, settings, seed)
    finally:  # whatever the agent did, later agents must see the snapshot as it was
        _check_untouched(seen, snapshots)


def _prepare_and_answer(
    record: dict[str, Any], spec: CaseSpec, runner: AgentRunner, seen: Snapshot, settings: Settings, seed: int
) -> Answers:
    index_budget = settings.index_timeout
    prepared = _costed(record, index_budget, lambda: runner.prepare(seen, index_budget))
    record["index_ms"], record["indexed"] = prepared.index_ms, prepared.indexed
    runner.observe(CaseInfo(spec.case.id, dict(spec.relevance), seed))  # a copy: an agent may change it
    query, runs, budget, warmup = spec.case.query, settings.runs, settings.timeout, settings.warmup
    return _costed(record, budget, lambda: runner.answer(query, runs, budget, warmup))


def _check_untouched(snapshot: Snapshot, snapshots: SnapshotStore) -> None:
    """Raise a ``CaseError`` naming what the agent changed in its snapshot directory (now rebuilt)."""
    changed = snapshots.check(snapshot)
    if changed:
        shown = ", ".join(change.describe() for change in changed[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        raise CaseError(
            f"the agent changed its snapshot directory, which is read-only: {shown}{more}"
            " (it is rebuilt for later agents)"
        )


def _costed(record: dict[str, Any], budget_s: float | None, call: Callable[[], T]) -> T:
    """Return ``call()``; when the agent fails in it, put what the call cost in ``record["elapsed_ms"]``.

    That is the wall time from the call's start until it failed; for a timeout at least the budget
    (a runner may refuse at once a snapshot whose indexing timed out before), so that latency
    summaries count a timed-out case as at least its budget.
    """
    started = time.perf_counter_ns()
    try:
        return call()
    except (AgentError, AgentTimeout, AgentCrashed, ContractError) as failure:
        elapsed_ms = (time.perf_counter_ns() - started) / 1e6
        if isinstance(failure, AgentTimeout) and budget_s is not None:
            elapsed_ms = max(elapsed_ms, budget_s * 1000)
        record["elapsed_ms"] = elapsed_ms
        raise


def is_retryable(failure: AgentError) -> bool:
    """Return False when the agent marked its exception ``codesearch_retryable = False``."""
    return getattr(failure.__cause__, "codesearch_retryable", True) is not False


def _base_record(spec: CaseSpec, choice: AgentChoice, nodeid: str, worker: str | None) -> dict[str, Any]:
    """Return a new record of ``spec`` answered by ``choice``, before the agent is asked: the fields each answer
    sets, empty. The case's own fields (``CaseSpec.case_fields``, made safe once for all its agents and runs)
    are not in it: they join it in the ``CaseResult``, which checks that none is given twice."""
    return {
        "agent": choice.name,
        "nodeid": nodeid,
        "retrieved": [],
        "latency_ms": None,
        "latencies_ms": [],
        "index_ms": None,
        "metrics": {},
        "worker": worker,
        "attempts": 0,
        "retry_errors": [],
    }


def repo_label(spec: CaseSpec) -> str | None:
    """Return how records name the case's repository: a remote name as the gold set gives it (``psf/requests``,
    a URL: the same on every machine, whatever clone or mirror was searched), else the directory searched."""
    if spec.repo_name is not None and is_remote(spec.repo_name):
        return spec.repo_name
    return None if spec.repo is None else str(spec.repo)


def failure_message(failure: Exception) -> str:
    """Return the one-line error a record keeps: the agent's exception for an ``AgentError``."""
    cause = failure.__cause__
    if isinstance(failure, AgentError) and cause is not None:
        return f"{getattr(cause, 'type_name', type(cause).__name__)}: {cause}"
    return str(failure)


def _failed_record(record: dict[str, Any], failure: Exception, spec: CaseSpec, settings: Settings) -> CaseResult:
    """Return the record of a failed case: every metric that applies to the case scores 0.0."""
    names = applicable_metrics(spec.case, settings.ks, settings.f_beta is not None, settings.profile)
    zeros = dict.fromkeys(names, 0.0)
    status = _STATUS_OF.get(type(failure), Status.ERROR)
    failed = {**record, "error": failure_message(failure), "metrics": zeros}
    return CaseResult(status=status, **spec.case_fields, **safe_record(failed))


def error_record(
    spec: CaseSpec, choice: AgentChoice, settings: Settings, message: str, *, nodeid: str, worker: str | None
) -> CaseResult:
    """Return the ``error`` record of a case that failed outside the agent call (the case, its snapshot, its
    record), with ``message`` as its error."""
    record = _base_record(spec, choice, nodeid, worker)
    return _failed_record(record, CaseError(message), spec, settings)


def _snapshot_for(spec: CaseSpec, snapshots: SnapshotStore) -> Snapshot:
    if spec.repo is None:
        raise CaseError(spec.repo_error or "no repository to search")
    try:
        snapshot = snapshots.get(spec.repo, spec.base_commit)
    except SnapshotError as exc:  # named by the field at fault, as --codesearch-validate names it
        field = "repo" if spec.base_commit is None else "base_commit"
        message = str(exc)
        raise CaseError(message if message.startswith(("repo:", "base_commit:")) else f"{field}: {message}") from None
    missing = unmatched_truth(spec.relevance, snapshot.files, spec.match)
    if missing:
        message = missing_path_message(missing[0], snapshot.files, snapshot.label, is_tree=bool(snapshot.tree_id))
        raise CaseError(f"ground_truth_files: {message}")
    return snapshot


def _ensure_directory(snapshot: Snapshot, snapshots: SnapshotStore) -> None:
    """Write the snapshot's files to disk for an agent that reads a directory."""
    try:
        snapshots.directory(snapshot)
    except SnapshotError as exc:
        raise CaseError(str(exc)) from None
