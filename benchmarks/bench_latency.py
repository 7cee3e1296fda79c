"""Latency you can trust: an agent that sleeps 5 ms must report 5 ms (+/- 5%) at p50.

Runs ``evaluate_case`` in this process over N cases of a small directory with an agent that sleeps
a fixed time, with the in-process runner and with the process runner, 3 timed runs and 1 warm-up
each, and prints the p50 and p90 of the recorded latencies, their error against the sleep, the
clock's resolution and the harness's own timing overhead (what ``results.json`` reports as
``run.timer_resolution_ns`` and ``run.timing_overhead_ns``).

Usage: ``python benchmarks/bench_latency.py [N] [SLEEP_MS]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_codesearch.runner.pool import AgentPool
from pytest_codesearch.agents.registry import agent, module_specs
from pytest_codesearch.evaluate import CaseSpec, evaluate_case
from pytest_codesearch.settings.model import default_settings
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.snapshot import SnapshotStore
from pytest_codesearch.runner.inprocess import timing_overhead_ns

SLEEP_S = float(os.environ.get("BENCH_SLEEP_MS", "5")) / 1e3
"""From the environment, so that the agent a child process registers again sleeps as long."""


@agent(name="sleepy")
def sleeping_agent() -> Any:
    """An agent that sleeps SLEEP_S seconds per query (registered: a child process registers it again)."""

    def search(query: str) -> list[str]:
        time.sleep(SLEEP_S)
        return ["src/mod0.py"]

    return search


def latencies(root: Path, isolate: str, cases: int) -> list[float]:
    """Return the median latency (ms) of each of ``cases`` cases."""
    (spec,) = module_specs(sys.modules[__name__])
    choice = spec.choices()[0]
    pool = AgentPool(None, _no_fixture, isolate=isolate)
    store = SnapshotStore(root / ".cache", materialize=False)
    settings = default_settings(runs=3, ks=(1,), k=None, seed=1, timeout=10.0, warmup=1)
    found = []
    for i in range(cases):
        spec = CaseSpec("b.jsonl", i + 1, TestCase(id=f"c{i}", query="q", ground_truth_files=["src/mod0.py"]),
                        root / "repo", None)
        result = evaluate_case(spec, choice, pool, store, settings, seed=1, nodeid=spec.case.id).result
        assert result.latency_ms is not None, result.error
        found.append(result.latency_ms)
    pool.close()
    return found


def _no_fixture(name: str) -> Any:
    raise LookupError(name)


def main() -> None:
    """Print p50/p90 and their error for each runner, with the timer's noise floor."""
    global SLEEP_S
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    if len(sys.argv) > 2:
        os.environ["BENCH_SLEEP_MS"] = sys.argv[2]  # before the first child process starts
        SLEEP_S = float(sys.argv[2]) / 1e3
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "repo" / "src").mkdir(parents=True)
        (root / "repo" / "src" / "mod0.py").write_text("x = 1\n")
        print(f"agent sleeps {SLEEP_S * 1e3:.1f} ms; {cases} cases x 3 timed runs (+1 warm-up)")
        print(f"timer resolution {time.get_clock_info('perf_counter').resolution * 1e9:.0f} ns, "
              f"harness timing overhead {timing_overhead_ns()} ns")
        for isolate in ("none", "process"):
            values = sorted(latencies(root, isolate, cases))
            p50 = statistics.median(values)
            p90 = values[int(0.9 * (len(values) - 1))]
            error = (p50 / (SLEEP_S * 1e3) - 1) * 100
            print(f"{isolate:8s} p50 {p50:7.3f} ms ({error:+5.1f}%), p90 {p90:7.3f} ms  (target: p50 within 5%)")


if __name__ == "__main__":
    main()
