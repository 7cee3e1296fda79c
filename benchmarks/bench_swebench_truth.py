"""Time deriving SWE-bench ground truth (patch -> files, lines, functions, modules) from a real history.

Turns the last N commits of a git repository (default: this one) into SWE-bench-style instances, each
with its own base commit (the parent) and its diff as the patch, writes them as JSONL and times loading
them through the format registry. Issue 10's target: 300 instances in under 10 s. Run it from the
repository root::

    python benchmarks/bench_swebench_truth.py [--repo .] [--instances 300]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import pygit2

from pytest_codesearch.goldset.formats import ReadOptions, load


def _instances(repo_path: Path, count: int) -> list[dict[str, str]]:
    repo = pygit2.Repository(str(repo_path))
    records: list[dict[str, str]] = []
    for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL):
        if len(commit.parents) != 1:
            continue
        patch = repo.diff(commit.parents[0], commit).patch
        if not patch:
            continue
        records.append(
            {
                "instance_id": f"bench-{str(commit.id)[:12]}",
                "repo": "bench/repo",
                "base_commit": str(commit.parents[0].id),
                "problem_statement": commit.message.strip() or "no message",
                "patch": patch,
            }
        )
        if len(records) == count:
            break
    return records


def main() -> None:
    """Print how long deriving the ground truth of the instances took, and what it found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--instances", type=int, default=300)
    args = parser.parse_args()
    records = _instances(args.repo, args.instances)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "instances.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        start, cpu = time.perf_counter(), time.process_time()
        loaded = load(path, ReadOptions(repos={"bench/repo": args.repo.resolve()}))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    functions = sum(len(c.extensions.get("x-ground_truth_functions") or []) for c in loaded.cases)  # type: ignore[arg-type]
    broken = [e.error for e in loaded.entries if e.case is None]
    files = sum(len(c.ground_truth_files) for c in loaded.cases)
    print(f"{len(records)} instances in {elapsed:.2f} s ({cpu:.2f} s CPU; {len(records) / elapsed:.0f}/s): "
          f"{len(loaded.cases)} cases, {files} files, {functions} functions, {len(broken)} broken")
    for error in broken[:5]:
        print("  broken:", error)


if __name__ == "__main__":
    main()
