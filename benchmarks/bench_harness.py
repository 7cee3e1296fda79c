"""Harness overhead: pytest-codesearch items vs bare pytest items, same count, same process setup.

Builds a temporary project with N cases over a small plain directory and an agent that answers at
once, then times (median of 3 subprocess runs each):

* ``pytest --codesearch-agent=instant --codesearch-runs=1 cases.jsonl``: our whole pipeline
  (collection of the gold set, snapshot listing, agent call, normalisation, scoring, report files);
* ``pytest test_bare.py``: N parametrized tests that do nothing, with the plugin installed but idle;
* ``pytest -p no:codesearch test_bare.py``: the same without the plugin, to show what merely
  having it installed costs.

Prints wall times, the ratio, and our overhead per item.  Usage: ``python benchmarks/bench_harness.py [N]``.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFTEST = """
import pytest_codesearch as pcs

@pcs.agent(name="instant")
def instant():
    return lambda query: ["src/mod0.py", "src/mod1.py"]
"""


def build_project(root: Path, cases: int) -> None:
    """Write N cases, 50 source files and a bare parametrized test module under ``root``."""
    for i in range(50):
        path = root / "repo" / "src" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def function_{i}():\n    return {i}\n")
    lines = [json.dumps({"metadata": {"repo": "repo"}})]
    lines += [
        json.dumps({"id": f"case{i}", "query": f"function {i}", "ground_truth_files": [f"src/mod{i % 50}.py"]})
        for i in range(cases)
    ]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n")
    (root / "conftest.py").write_text(CONFTEST)
    (root / "test_bare.py").write_text(
        f"import pytest\n\n@pytest.mark.parametrize('i', range({cases}))\ndef test_bare(i):\n    pass\n"
    )


def timed_run(root: Path, *args: str) -> tuple[float, float]:
    """Return the median wall time and the median CPU time (user + system) in seconds of three
    ``pytest -q`` runs with ``args``. CPU time is the figure to trust on a busy machine."""
    walls, cpus = [], []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
            cwd=root, capture_output=True, text=True,
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"pytest {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    """Run the three configurations and print the comparison."""
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_project(root, cases)
        ours = timed_run(root, "--codesearch-agent=instant", "--codesearch-runs=1", "cases.jsonl")
        bare = timed_run(root, "test_bare.py")
        without = timed_run(root, "-p", "no:codesearch", "test_bare.py")
    print(f"items: {cases}                  wall        cpu")
    print(f"pytest-codesearch run      : {ours[0]:6.2f} s  {ours[1]:6.2f} s")
    print(f"bare pytest, plugin idle   : {bare[0]:6.2f} s  {bare[1]:6.2f} s")
    print(f"bare pytest, plugin off    : {without[0]:6.2f} s  {without[1]:6.2f} s")
    print(f"ratio ours / bare          : {ours[0] / bare[0]:6.2f}x  {ours[1] / bare[1]:6.2f}x")
    print(f"overhead per item          : {(ours[0] - bare[0]) / cases * 1000:6.2f} ms {(ours[1] - bare[1]) / cases * 1000:6.2f} ms")
    print(f"idle plugin cost           : {(bare[0] - without[0]) * 1000:6.0f} ms per run (wall)")


if __name__ == "__main__":
    main()
