"""Run one case against one agent: snapshot, index, timed runs, normalisation, scoring."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_codesearch.agents.adapter import AgentHandle, coerce_result
from pytest_codesearch.agents.contract import ContractError, RetrievalResult
from pytest_codesearch.agents.normalize import normalize_paths
from pytest_codesearch.agents.pool import AgentPool
from pytest_codesearch.agents.registry import AgentChoice
from pytest_codesearch.agents.sanity import CaseInfo
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.snapshot import Snapshot, SnapshotError, SnapshotStore, suggest_path
from pytest_codesearch.report.model import CaseResult
from pytest_codesearch.scoring import (
    SourceFiles,
    applicable_metrics,
    classify_miss,
    is_miss,
    locate_spans,
    miss_cutoff,
    score_case,
    score_lines,
    score_symbols,
    truth_lines,
    truth_symbols,
)


@dataclass(frozen=True)
class CaseSpec:
    """A case as collected: the gold-set entry and the repository state it searches."""

    goldset: str
    line: int
    case: TestCase
    repo: Path | None
    base_commit: str | None
    repo_error: str | None = None

    @property
    def snapshot_key(self) -> tuple[str, str]:
        """Return what identifies the repository state before it is resolved."""
        return (str(self.repo), self.base_commit or "")


@dataclass(frozen=True)
class EvalSettings:
    """How each case is run and scored."""

    runs: int
    ks: tuple[int, ...]
    k: int | None
    seed: int
    f_beta: float | None = None


class CaseError(Exception):
    """A case that cannot be run through no fault of the agent code (gold set, snapshot, contract)."""


class AgentError(Exception):
    """The agent's own code raised; ``__cause__`` holds its exception and traceback."""


@dataclass
class Outcome:
    """The record of one (case, agent) and, when it failed, why."""

    result: CaseResult
    failure: CaseError | AgentError | None = None


def call_agent(handle: AgentHandle, query: str) -> tuple[Any, int]:
    """Return the agent's raw answer and the nanoseconds the call took (the call alone is timed)."""
    start = time.perf_counter_ns()
    answer = handle.retrieve(query)
    return answer, time.perf_counter_ns() - start


def evaluate_case(
    spec: CaseSpec,
    choice: AgentChoice,
    pool: AgentPool,
    snapshots: SnapshotStore,
    settings: EvalSettings,
    *,
    nodeid: str,
    worker: str | None = None,
) -> Outcome:
    """Run ``spec`` against the agent ``choice`` and return its scored record."""
    record = _base_record(spec, choice, nodeid, worker)
    try:
        snapshot = _snapshot_for(spec, snapshots)
        record["snapshot"] = snapshot.tree_id or str(snapshot.root)
        handle = _agent_call("creating the agent", lambda: pool.get(choice))
        _ensure_directory(handle, snapshot, snapshots)
        record["index_ms"], record["indexed"] = _ensure_index(pool, choice.name, handle, snapshot)
        _observe(handle, spec, settings.seed, snapshot)
        answers, latencies = _timed_runs(handle, spec.case.query, settings.runs)
        record["latencies_ms"] = latencies
        record["latency_ms"] = statistics.median(latencies)
        first = coerce_result(choice.name, answers[0])
        record["nondeterministic"] = any(
            coerce_result(choice.name, a).files != first.files for a in answers[1:]
        )
        _score(record, first, spec, snapshot, settings)
    except (CaseError, AgentError) as failure:
        return Outcome(_error_record(record, failure, spec.case, settings), failure)
    except ContractError as exc:
        refused = CaseError(str(exc))
        return Outcome(_error_record(record, refused, spec.case, settings), refused)
    return Outcome(CaseResult(status="ok", **record))


def _base_record(spec: CaseSpec, choice: AgentChoice, nodeid: str, worker: str | None) -> dict[str, Any]:
    case = spec.case
    relevance = case.relevance_map()
    return {
        "id": case.id,
        "goldset": spec.goldset,
        "agent": choice.name,
        "query": case.query,
        "nodeid": nodeid,
        "ground_truth": sorted(relevance, key=lambda p: (-relevance[p], p)),
        "relevance": relevance,
        "retrieved": [],
        "latency_ms": None,
        "latencies_ms": [],
        "index_ms": None,
        "metrics": {},
        "complexity": case.complexity,
        "category": case.category,
        "tags": list(case.tags),
        "repo": None if spec.repo is None else str(spec.repo),
        "base_commit": spec.base_commit,
        "worker": worker,
    }


def _error_record(record: dict[str, Any], failure: Exception, case: TestCase, settings: EvalSettings) -> CaseResult:
    """Return the record of a case in error: every metric that applies to the case scores 0.0."""
    cause = failure.__cause__
    message = f"{type(cause).__name__}: {cause}" if isinstance(failure, AgentError) and cause else str(failure)
    zeros = dict.fromkeys(applicable_metrics(case, settings.ks, settings.f_beta is not None), 0.0)
    return CaseResult(status="error", error=message, **{**record, "metrics": zeros})


def _snapshot_for(spec: CaseSpec, snapshots: SnapshotStore) -> Snapshot:
    if spec.repo is None:
        raise CaseError(spec.repo_error or "no repository to search")
    try:
        snapshot = snapshots.get(spec.repo, spec.base_commit)
    except SnapshotError as exc:
        raise CaseError(str(exc)) from None
    missing = [p for p in spec.case.relevance_map() if p not in snapshot.files]
    if missing:
        hint = suggest_path(missing[0], snapshot.files)
        where = f"tree {snapshot.label}" if snapshot.tree_id else f"directory {snapshot.label}"
        did_you_mean = f" (did you mean {hint!r}?)" if hint else ""
        raise CaseError(f"ground_truth_files: {missing[0]!r} is not in {where}{did_you_mean}")
    return snapshot


def _agent_call(what: str, function: Any) -> Any:
    """Run agent code; its exception becomes an AgentError chained to the original."""
    try:
        return function()
    except KeyboardInterrupt:
        raise
    except ContractError:
        raise
    except BaseException as exc:  # agent code may raise SystemExit or pytest outcomes: record them
        raise AgentError(f"while {what}") from exc


def _ensure_directory(handle: AgentHandle, snapshot: Snapshot, snapshots: SnapshotStore) -> None:
    """Write the snapshot's files to disk unless the agent says it reads them another way."""
    if getattr(handle.obj, "needs_directory", True):
        try:
            snapshots.directory(snapshot)
        except SnapshotError as exc:
            raise CaseError(str(exc)) from None


def _ensure_index(pool: AgentPool, name: str, handle: AgentHandle, snapshot: Snapshot) -> tuple[float, bool]:
    root = str(snapshot.root)
    current = pool.indexed(name)
    if current is not None and current[0] == root:
        return current[1], False
    pool.forget_index(name)
    start = time.perf_counter_ns()
    _agent_call("initializing", lambda: handle.initialize(root))
    index_ms = (time.perf_counter_ns() - start) / 1e6
    pool.mark_indexed(name, root, index_ms)
    return index_ms, True


def _observe(handle: AgentHandle, spec: CaseSpec, seed: int, snapshot: Snapshot) -> None:
    """Hand the built-in sanity agents (never an agent under test) the case they bound."""
    observe = getattr(handle.obj, "observe_case", None)
    if callable(observe) and type(handle.obj).__module__.startswith("pytest_codesearch."):
        observe(CaseInfo(spec.case.id, spec.case.relevance_map(), seed, tuple(sorted(snapshot.files))))


def _timed_runs(handle: AgentHandle, query: str, runs: int) -> tuple[list[Any], list[float]]:
    answers: list[Any] = []
    latencies: list[float] = []
    for _ in range(runs):
        _agent_call("resetting", handle.reset)
        answer, elapsed_ns = _agent_call("retrieving", lambda: call_agent(handle, query))
        answers.append(answer)
        latencies.append(elapsed_ns / 1e6)
    return answers, latencies


def _score(
    record: dict[str, Any], answer: RetrievalResult, spec: CaseSpec, snapshot: Snapshot, settings: EvalSettings
) -> None:
    normalized = normalize_paths(answer.files, snapshot.root, snapshot.files, snapshot.directories)
    record["retrieved"] = normalized.paths
    record["dropped"] = normalized.dropped
    relevance = spec.case.relevance_map()
    metrics = score_case(
        normalized.paths,
        relevance,
        ks=settings.ks,
        k=settings.k,
        directories=normalized.directories,
        f_beta=settings.f_beta,
    )
    sources = SourceFiles(snapshot.root)
    metrics.update(_finer_metrics(spec.case, answer, snapshot, metrics["recall"], settings.ks, sources))
    record["metrics"] = metrics
    cutoff = miss_cutoff(settings.ks)
    if is_miss(normalized.paths, relevance, cutoff):
        record["failure_category"] = classify_miss(
            spec.case.query, relevance, normalized.paths, normalized.directories, sources, cutoff
        )


def _finer_metrics(
    case: TestCase,
    answer: RetrievalResult,
    snapshot: Snapshot,
    file_recall: float,
    ks: tuple[int, ...],
    sources: SourceFiles,
) -> dict[str, float]:
    """Return the line metrics if the case gives lines and the symbol metrics if it names symbols."""
    metrics: dict[str, float] = {}
    truth = truth_lines(case)
    if truth:
        returned = locate_spans(answer.spans, snapshot.root, snapshot.files)
        metrics.update(score_lines(truth, returned, file_recall, sources))
    positives = truth_symbols(case)
    if positives:
        metrics.update(score_symbols(answer.symbols, positives, frozenset(case.hard_negatives), ks))
    return metrics

