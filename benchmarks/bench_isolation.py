"""Cost of the process runner: per-case overhead against in-process, and time from a deadline to the next case.

Runs ``evaluate_case`` in this process (no pytest) over N cases of a small directory with a no-op
agent, once with the in-process runner and once with the process runner, and prints the per-case
difference (target: under 1 ms). Then times a hanging agent under a 0.2 s budget: from the deadline
to the next case's first answer (kill, restart the child, rebuild the agent, index again).

Usage: ``python benchmarks/bench_isolation.py [N]``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_codesearch.runner.pool import AgentPool
from pytest_codesearch.agents.registry import AgentChoice, agent, module_specs
from pytest_codesearch.evaluate import CaseSpec, evaluate_case
from pytest_codesearch.settings.model import default_settings
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.snapshot import SnapshotStore


@agent(name="noop")
def noop_agent() -> Any:
    """An agent that answers at once (registered, so a child process can register it again)."""
    return lambda query: ["src/mod0.py"]


@agent(name="hang")
def hanging_agent() -> Any:
    """An agent that hangs on the query 'hang' and answers at once otherwise."""

    def search(query: str) -> list[str]:
        if query == "hang":
            time.sleep(60)
        return ["src/mod0.py"]

    return search


def _choice(name: str) -> AgentChoice:
    """Return the agent ``name`` this script registers, as the registry of a pytest run finds it."""
    return next(spec for spec in module_specs(sys.modules[__name__]) if spec.name == name).choices()[0]


def _specs(root: Path, queries: list[str]) -> list[CaseSpec]:
    return [
        CaseSpec("bench.jsonl", i + 1, TestCase(id=f"c{i}", query=q, ground_truth_files=["src/mod0.py"]), root, None)
        for i, q in enumerate(queries)
    ]


def per_case_ms(root: Path, isolate: str, cases: int) -> float:
    """Return the median per-case wall time (ms) of ``cases`` no-op cases with ``isolate``."""
    choice = _choice("noop")
    pool = AgentPool(None, _no_fixture, isolate=isolate)
    store = SnapshotStore(root / ".cache", materialize=False)
    settings = default_settings(runs=1, ks=(1, 5, 10), k=None, seed=1, timeout=5.0)
    specs = _specs(root / "repo", [f"query {i}" for i in range(cases)])
    evaluate_case(specs[0], choice, pool, store, settings, seed=1, nodeid="warm-up")  # start the child, index
    times = []
    for spec in specs:
        start = time.perf_counter()
        evaluate_case(spec, choice, pool, store, settings, seed=1, nodeid=spec.case.id)
        times.append((time.perf_counter() - start) * 1e3)
    pool.close()
    return statistics.median(times)


def deadline_to_next_case_s(root: Path) -> tuple[float, str]:
    """Return seconds from a missed 0.2 s deadline to the next case's end, and the hung case's status."""
    choice = _choice("hang")
    pool = AgentPool(None, _no_fixture, isolate="process")
    store = SnapshotStore(root / ".cache", materialize=False)
    settings = default_settings(runs=1, ks=(1,), k=None, seed=1, timeout=0.2)
    hung, after = _specs(root / "repo", ["hang", "fine"])
    evaluate_case(after, choice, pool, store, settings, seed=1, nodeid="warm-up")
    start = time.perf_counter()
    outcome = evaluate_case(hung, choice, pool, store, settings, seed=1, nodeid="hung")
    deadline_at = start + 0.2
    evaluate_case(after, choice, pool, store, settings, seed=1, nodeid="after")
    pool.close()
    return time.perf_counter() - deadline_at, outcome.result.status.value


def _no_fixture(name: str) -> Any:
    raise LookupError(name)


def main() -> None:
    """Print the per-case figures and the deadline recovery time."""
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(50):
            path = root / "repo" / "src" / f"mod{i}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"def function_{i}():\n    return {i}\n")
        inproc = per_case_ms(root, "none", cases)
        child = per_case_ms(root, "process", cases)
        recovery, status = deadline_to_next_case_s(root)
    print(f"cases: {cases}, no-op agent, 1 timed run each (median per case)")
    print(f"in-process runner          : {inproc:7.3f} ms/case")
    print(f"process runner             : {child:7.3f} ms/case")
    print(f"extra per case             : {child - inproc:7.3f} ms (target < 1 ms)")
    print(f"deadline -> next case done : {recovery:7.3f} s (hung case status: {status})")


if __name__ == "__main__":
    main()
