"""Realistic run reports for the report tests and benchmarks: three agents, scored for real.

``make_cases`` draws, for each case, 1 to 3 relevant paths from a synthetic tree and an answer of
10 paths per agent in which each relevant path appears with the agent's skill; latency is
log-normal around the agent's speed. Scores come from ``scoring.score_case``, so the figures are
consistent. ``HOSTILE_QUERIES`` hold markup, pipes, newlines and spreadsheet formulas.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pytest_codesearch.report.aggregate import build_run_report
from pytest_codesearch.report.model import AgentInfo, CaseResult, RunInfo, RunReport
from pytest_codesearch.scoring import metric_names, score_case
from pytest_codesearch.status import Status

KS = (1, 5, 10)
AGENTS = {"bm25": (0.6, 8.0), "keyword": (0.35, 1.5), "dense": (0.62, 40.0)}
"""Agent -> (chance each relevant path is found, typical latency in ms)."""
HOSTILE_QUERIES = (
    "</script><script>document.documentElement.setAttribute('data-pwned', '1')</script>",
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned', '2')\">",
    "a | b | c\nsecond line",
    "=cmd|' /C calc'!A0",
    "javascript:document.documentElement.setAttribute('data-pwned', '3')",
    "</SCRIPT ><!-- \u2028 & &amp; <b>bold</b>",
)
"""Queries that would run script, break a table or a spreadsheet if rendered carelessly."""
CATEGORIES = ("feature", "bugfix", "refactor")
COMPLEXITIES = ("low", "medium", "high")


def make_cases(n_cases: int, seed: int = 1, agents: Sequence[str] = tuple(AGENTS)) -> list[CaseResult]:
    """Return ``n_cases`` x ``len(agents)`` scored cases; the first cases carry the hostile queries."""
    rng = random.Random(seed)
    files = [f"src/pkg{i // 50}/module_{i}.py" for i in range(5000)]
    cases = []
    for n in range(n_cases):
        truth = rng.sample(files, rng.randint(1, 3))
        query = HOSTILE_QUERIES[n] if n < len(HOSTILE_QUERIES) else f"where is feature {n} handled"
        for agent in agents:
            cases.append(_answer(rng, n, query, truth, files, agent))
    return cases


def _answer(
    rng: random.Random, n: int, query: str, truth: list[str], files: list[str], agent: str
) -> CaseResult:
    """Return one agent's scored answer to case ``n`` (every 97th an error, dense's every 89th a timeout)."""
    skill, speed = AGENTS.get(agent, (0.5, 10.0))
    found = [p for p in truth if rng.random() < skill]
    answer = list(dict.fromkeys(found + rng.sample(files, 12)))[:10]
    rng.shuffle(answer)
    latency = round(speed * rng.lognormvariate(0, 0.4), 3)
    status = Status.ERROR if n % 97 == 5 else Status.TIMEOUT if agent == "dense" and n % 89 == 7 else Status.OK
    error = status is not Status.OK
    relevance = {p: 1 for p in truth}
    metrics = score_case(answer, relevance, ks=KS)
    return CaseResult(
        id=f"case-{n:05d}", goldset="synthetic", agent=agent, query=query,
        nodeid=f"synthetic.jsonl::case-{n:05d}[{agent}]", ground_truth=truth, relevance=relevance,
        retrieved=[] if error else answer, status=status,
        latency_ms=None if error else latency, latencies_ms=[] if error else [latency],
        index_ms=100.0 if n == 0 else None, indexed=n == 0,
        metrics={m: 0.0 for m in metrics} if error else metrics,
        error=None if not error else "RuntimeError: <b>boom</b>\nTraceback line" if status is Status.ERROR else "over 5 s",
        complexity=COMPLEXITIES[n % 3], category=CATEGORIES[(n // 3) % 3],
        repo=f"repo-{n % 2}", failure_category=None if error or metrics["hit@10"] else "other",
    )  # fmt: skip


def make_report(n_cases: int = 60, seed: int = 1, agents: Sequence[str] = tuple(AGENTS)) -> RunReport:
    """Return the run report of ``make_cases`` (200 bootstrap resamples to keep it quick)."""
    run = RunInfo(
        seed=seed, runs=1, k=10, ks=list(KS), started_at="2026-01-01T10:00:00Z",
        finished_at="2026-01-01T10:05:00Z", versions={"python": "3.12", "pytest-codesearch": "0.1.0"},
        goldsets=["synthetic"], workers=2, bootstrap=200,
        agents={a: AgentInfo(fixture=a, source="conftest.py") for a in agents},
    )  # fmt: skip
    return build_run_report(run, make_cases(n_cases, seed, agents), metric_names(KS))


PRICE = {"cost_usd": 0.0012, "tokens_in": 1200, "tokens_out": 80}
"""The metadata ``priced`` gives bm25's answers."""


def priced(report: RunReport) -> RunReport:
    """Return ``report`` with bm25's answers carrying ``PRICE`` in their metadata (but case-00008's, and
    case-00009's cost, a string, which counts as none), its costs summed as a finished run's are."""
    from pytest_codesearch.report.cost import summarize_costs

    def metadata(case: CaseResult) -> dict[str, object]:
        if case.agent != "bm25" or case.id == "case-00008":
            return {}
        return {**PRICE, "cost_usd": "free"} if case.id == "case-00009" else dict(PRICE)

    cases = [c.model_copy(update={"metadata": metadata(c)}) for c in report.cases]
    return report.model_copy(update={"cases": cases, "costs": summarize_costs(cases, report.success_metric)})
