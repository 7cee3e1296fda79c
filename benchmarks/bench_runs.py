"""Wall and CPU time of whole benchmark runs: cold against warm cache, serial against ``-n 2``.

Runs ``pytest GOLDSET --codesearch-agent=AGENTS`` as a user would, in a subprocess, with a fresh cache
directory: first cold (nothing cached), then warm (the same cache: token counts on disk, snapshot
manifests), then warm with ``-n 2 --dist loadgroup``. Prints for each the wall time and the CPU time of
pytest and all its workers (``resource.getrusage(RUSAGE_CHILDREN)``), the summed ``index_ms`` of the
cases that indexed their snapshot (results.json), and the machine's load average, since wall time on a
shared machine says little alone. Python's bytecode cache is on for the runs, as
for users, even where the environment sets ``PYTHONDONTWRITEBYTECODE`` (``--no-bytecode`` keeps it
off: then each xdist worker compiles every module again, over a second of CPU each)::

    python benchmarks/bench_runs.py goldsets/history.jsonl [--agents bm25,keyword] [--workers 2]

A gold set mined from a public history (``pytest --codesearch-generate``, see docs/mining.md) gives the
figures quoted in docs/cache.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def index_seconds(report_dir: Path) -> float:
    """Return the summed ``index_ms`` of the cases that indexed their snapshot, in seconds (0 if none)."""
    try:
        cases = json.loads((report_dir / "results.json").read_text())["cases"]
    except (OSError, ValueError, KeyError):
        return 0.0
    return sum(case.get("index_ms") or 0.0 for case in cases if case.get("indexed")) / 1000


def run(goldset: Path, agents: str, cache: Path, extra: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run the gold set once; return (wall seconds, CPU seconds of pytest and its workers, last line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(goldset),
        f"--codesearch-agent={agents}", f"--codesearch-cache-dir={cache}", "--codesearch-no-save",
        f"--codesearch-report-dir={cache.parent / 'report'}", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in done.stdout.splitlines() if " passed" in line or " failed" in line]
    return wall, cpu, lines[-1].strip("= ") if lines else f"exit {done.returncode}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("goldset", type=Path)
    parser.add_argument("--agents", default="bm25,keyword")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parallel-cold", action="store_true", help="also run cold with -n WORKERS")
    parser.add_argument(
        "--no-bytecode", action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE if set: every process (each xdist worker too) then compiles every module",
    )  # fmt: skip
    args = parser.parse_args()
    env = dict(os.environ)
    if not args.no_bytecode:  # as users run: compiled modules cached, so a worker starts as fast as pytest does
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    scratch = Path(tempfile.mkdtemp(prefix="bench-runs-"))
    xdist = ["-n", str(args.workers), "--dist", "loadgroup"]
    plan = [("cold, serial", "a", []), ("warm, serial", "a", []), (f"warm, -n {args.workers}", "a", xdist)]
    if args.parallel_cold:
        plan.append((f"cold, -n {args.workers}", "b", xdist))
    try:
        bytecode = "off" if env.get("PYTHONDONTWRITEBYTECODE") else "on"
        print(f"{args.goldset} with {args.agents}; bytecode cache {bytecode}; load average at start {os.getloadavg()[0]:.1f}")
        for label, cache, extra in plan:
            wall, cpu, outcome = run(args.goldset.resolve(), args.agents, scratch / cache / "cache", extra, env)
            indexing = index_seconds(scratch / cache / "report")
            print(
                f"{label + ':':18} wall {wall:7.1f} s  CPU {cpu:7.1f} s  index {indexing:6.1f} s"
                f"  ({outcome}; load {os.getloadavg()[0]:.1f})"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
