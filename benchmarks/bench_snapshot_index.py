"""Time bm25 over the snapshots of a gold set, cold and warm, beside references, in one process.

Each case of a JSONL gold set (``repo``, ``base_commit``, ``problem_statement`` or ``query``), in the
file's order, is searched by ``BM25Agent`` (files, functions and modules) as the harness asks it:
``use_snapshot``, ``initialize``, ``retrieve``. Printed in CPU seconds of this process, beside:

* **read**: listing each snapshot's tree and reading every source blob of it (``git ls-tree -r`` plus
  ``git cat-file`` of each), what any indexer that starts from nothing does per snapshot;
* **scratch**: a fresh agent and token cache per snapshot, no store (an index built from scratch), on
  the first ``--scratch`` cases, per snapshot.

**cold** runs over an empty cache folder (token counts, indexes and function documents are written
there), **warm** with fresh in-memory caches over the folder cold filled: what a second run's worker
does. Answers of cold, warm and scratch are compared (files, scores, functions, modules)::

    python benchmarks/bench_snapshot_index.py lite274.jsonl --ini pytest.ini [--limit 60] [--scratch 10]
"""

from __future__ import annotations

import argparse
import configparser
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index import functions
from pytest_codesearch.agents.index.indexstore import use_index_store
from pytest_codesearch.agents.index.tokencache import TokenCache, shared_token_cache
from pytest_codesearch.agents.index.tokenstore import use_token_store
from pytest_codesearch.filekinds import is_source_path
from pytest_codesearch.outline import _outline
from pytest_codesearch.outline.python import python_definitions
from pytest_codesearch.repo import Snapshot, SnapshotStore

Case = tuple[Path, str, str]
Answer = tuple[list[str], list[float], list[str], list[str]]


def load_cases(goldset: Path, repos: dict[str, Path], limit: int | None) -> list[Case]:
    """Return (repository, base commit, query) of each case, mapping ``repo`` names through ``repos``."""
    cases = []
    for line in goldset.read_text().splitlines()[:limit]:
        case = json.loads(line)
        if "base_commit" in case:
            query = case.get("problem_statement") or case["query"]
            cases.append((repos.get(case["repo"], Path(case["repo"])), case["base_commit"], query))
    return cases


def repo_map(ini: Path | None) -> dict[str, Path]:
    """Return ``codesearch_repo_map`` of a pytest.ini (``name=path`` lines), or nothing."""
    if ini is None:
        return {}
    parser = configparser.ConfigParser()
    parser.read(ini)
    lines = parser.get("pytest", "codesearch_repo_map", fallback="").split("\n")
    return {name.strip(): Path(path.strip()) for name, _, path in (line.partition("=") for line in lines) if path}


def cpu(work: Callable[[], object]) -> tuple[float, float]:
    """Return the CPU and wall seconds ``work()`` took."""
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu_start, time.perf_counter() - wall_start


def read_all(snapshots: list[Snapshot]) -> None:
    """Read every source blob of every snapshot (the reference)."""
    for snapshot in snapshots:
        for file in snapshot.view().files:
            if is_source_path(file.path, tests=True):
                snapshot.read(file.path)


def answer(agent: BM25Agent, snapshot: Snapshot, query: str) -> Answer:
    """Return bm25's answer to ``query`` in ``snapshot``, as the harness asks for it."""
    agent.use_snapshot(snapshot.view())
    agent.initialize(str(snapshot.root))
    result = agent.retrieve(query)
    return result.files, result.scores, result.functions, result.modules


def forget() -> None:
    """Drop what this process keeps in memory of blobs' outlines and function documents (a new process)."""
    try:  # not in releases before issue 23: run this file against them for a "before" figure
        from pytest_codesearch.agents.index import entitystore

        entitystore._MEMORY.clear()
    except ImportError:
        pass
    functions._CACHE.clear()
    getattr(functions, "forget_counts", lambda: None)()  # not before issue 23's per-definition counts
    _outline.cache_clear()
    python_definitions.cache_clear()


def main() -> None:
    """Parse the arguments, run the references, cold and warm, and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("goldset", type=Path)
    parser.add_argument("--ini", type=Path, help="a pytest.ini whose codesearch_repo_map names the repositories")
    parser.add_argument("--limit", type=int, help="the first N cases only")
    parser.add_argument("--scratch", type=int, default=10, help="cases indexed from scratch (reference)")
    args = parser.parse_args()
    cases = load_cases(args.goldset, repo_map(args.ini), args.limit)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        store = SnapshotStore(folder / "snapshots", materialize=False)
        snapshots = [store.get(repo, commit) for repo, commit, _ in cases]
        read = cpu(lambda: read_all(snapshots))
        scratch: list[Answer] = []
        scratch_time = cpu(lambda: scratch.extend(answer(BM25Agent(token_cache=TokenCache()), s, q)
                                                  for s, (_, _, q) in list(zip(snapshots, cases))[: args.scratch]))  # fmt: skip
        forget()
        restore = [use_token_store(folder, None), use_index_store(folder, None)]
        runs: dict[str, list[Answer]] = {}
        times = {}
        for name in ("cold", "warm"):
            forget()
            cache = TokenCache()
            cache.store = shared_token_cache().store
            agent = BM25Agent(token_cache=cache)
            runs[name] = []
            times[name] = cpu(lambda: runs[name].extend(answer(agent, s, c[2]) for s, c in zip(snapshots, cases)))
        for undo in restore:
            undo()
    count, trees = len(cases), len({s.tree_id for s in snapshots})
    print(f"{count} cases, {trees} snapshots; CPU seconds of this process (wall in brackets)")
    print(f"  read every source blob : {read[0]:7.2f} ({read[1]:.2f})")
    per = scratch_time[0] / max(1, min(args.scratch, count))
    print(f"  scratch, per snapshot  : {per:7.3f} (first {min(args.scratch, count)} cases)")
    for name in ("cold", "warm"):
        spent, wall = times[name]
        print(f"  {name:<22} : {spent:7.2f} ({wall:.2f})  {spent / read[0]:.2f}x read, {spent / count / per:.2f}x scratch")
    same = runs["cold"] == runs["warm"] and runs["cold"][: len(scratch)] == scratch
    print(f"  answers of cold, warm and scratch identical: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
