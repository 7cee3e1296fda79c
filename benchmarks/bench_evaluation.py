"""Time evaluating mined cases, each searching its own commit, against the same cases at one commit.

Builds (once, cached under the temp directory) a synthetic history of ``--commits`` commits over about
``--files`` files (``synthetic_repo.py``), then makes ``--cases`` cases, each pinned to the parent of a
commit that edits a file: the query is a few words of that file, the ground truth the file. Each case
is evaluated with the built-in ``bm25`` agent through the library, as the plugin's call phase does
(``evaluate_case`` with a real ``SnapshotStore`` and ``AgentPool``, cases in the plugin's seeded
snapshot-shuffled order, ``--runs`` timed retrievals each), in a fresh process per measurement:

* ``one snapshot``: the same cases, all pinned to HEAD (the reference);
* ``per commit``: each case at its own commit, with a store that lists trees and writes only manifests
  (``SnapshotStore(materialize=False)``): bm25 reads new blobs from the object database;
* ``per commit, directories written``: the first ``--eager`` cases with a store that writes every
  snapshot directory (``SnapshotStore()``), to show what a checkout per case costs.

Each measurement runs in a fresh process, so the in-memory caches (token counts, indexes) start empty
every time. The snapshot cache on disk is kept between runs (``--fresh`` empties it): the first round
of a fresh run is cold, later rounds find the manifests already written. The pair of measurements is
repeated ``--rounds`` times and the ratio of the fastest of each is printed too, since other work on
the machine inflates single timings. Usage::

    python benchmarks/bench_evaluation.py [--commits 400] [--files 2000] [--cases 300] [--rounds 3] [--fresh]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pygit2

sys.path.insert(0, str(Path(__file__).parent))
from synthetic_repo import build_synthetic_repo  # noqa: E402

WORK = Path(tempfile.gettempdir()) / "pytest-codesearch-bench"


def make_cases(repo_path: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """Return ``count`` cases, newest first, each at the parent of a commit that edits a file kept at HEAD."""
    repo = pygit2.Repository(str(repo_path))
    head = repo[repo.head.target].peel(pygit2.Commit)
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for commit in repo.walk(head.id):
        if len(cases) == count or not commit.parents:
            break
        parent = commit.parents[0]
        diff = repo.diff(parent.tree, commit.tree)
        edited = [d.delta.old_file.path for d in diff if d.delta.status_char() == "M"]
        edited = [p for p in edited if p.endswith(".py") and _exists(head.tree, p)]
        if not edited:
            continue
        path = edited[0]
        words = sorted(set(repo[parent.tree[path].id].data.decode().replace("(", " ").split()))
        query = " ".join(rng.sample([w for w in words if w.isidentifier()], 4))
        cases.append({"id": f"c{str(commit.id)[:10]}", "query": query, "ground_truth_files": [path],
                      "base_commit": str(parent.id)})
    return cases


def _exists(tree: pygit2.Tree, path: str) -> bool:
    try:
        tree[path]
    except KeyError:
        return False
    return True


def evaluate(repo: Path, cases: list[dict[str, Any]], cache: Path, materialize: bool, runs: int) -> dict[str, Any]:
    """Evaluate ``cases`` with bm25 in this process; return the wall time and what the records say."""
    from pytest_codesearch.agents.builtin import fixtures as builtin
    from pytest_codesearch.runner.pool import AgentPool
    from pytest_codesearch.agents.registry import AgentRegistry, specs_in
    from pytest_codesearch.evaluate import CaseSpec, evaluate_case
    from pytest_codesearch.settings.model import default_settings
    from pytest_codesearch.goldset.model import TestCase
    from pytest_codesearch.session.ordering import shuffled_order
    from pytest_codesearch.repo.snapshot import SnapshotStore

    registry = AgentRegistry()
    for spec in specs_in(vars(builtin)):
        registry.add(spec)
    [choice] = registry.select(["bm25"])
    specs = [CaseSpec("bench.jsonl", i + 1, TestCase.model_validate(c), repo, c["base_commit"])
             for i, c in enumerate(cases)]
    order = shuffled_order([(s.snapshot_key, s.case.id) for s in specs], seed=1)
    settings = default_settings(runs=runs, ks=(1, 5, 10), k=None, seed=1)
    store = SnapshotStore(cache, materialize=materialize)
    pool = AgentPool(None, _no_fixture)
    start = time.perf_counter()
    results = [evaluate_case(specs[i], choice, pool, store, settings, seed=1, nodeid=specs[i].case.id).result for i in order]
    seconds = time.perf_counter() - start
    pool.close()
    ok = [r for r in results if r.status == "ok"]
    return {
        "seconds": seconds,
        "ok": len(ok),
        "errors": sorted({r.error or "" for r in results if r.status != "ok"})[:3],
        "index_s": sum(r.index_ms or 0 for r in results if r.indexed) / 1e3,
        "snapshots": len({r.snapshot for r in results}),
        "recall_at_10": sum(r.metrics.get("recall@10", 0.0) for r in ok) / max(len(ok), 1),
    }


def _no_fixture(name: str) -> Any:
    raise LookupError(f"no fixture {name!r} outside pytest")


def run_worker(repo: Path, cases: list[dict[str, Any]], cache: Path, materialize: bool, runs: int) -> dict[str, Any]:
    """Run :func:`evaluate` in a fresh process (empty in-memory caches) and return its figures."""
    job = {"repo": str(repo), "cases": cases, "cache": str(cache), "materialize": materialize, "runs": runs}
    done = subprocess.run([sys.executable, __file__, "--worker"], input=json.dumps(job), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"worker failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _line(name: str, figures: dict[str, Any], cases: int) -> str:
    return (f"{name:36s} {figures['seconds']:7.2f} s  ({figures['seconds'] / cases * 1e3:6.1f} ms/case, "
            f"index {figures['index_s']:.2f} s over {figures['snapshots']} snapshots, {figures['ok']} ok, "
            f"recall@10 {figures['recall_at_10']:.2f})")


def main() -> None:
    """Build the history and cases, run the three measurements, print times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="times to repeat the pair of measurements")
    parser.add_argument("--eager", type=int, default=10, help="cases to run with directories written")
    parser.add_argument("--fresh", action="store_true", help="empty the snapshot cache first (a cold run)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        job = json.loads(sys.stdin.read())
        figures = evaluate(Path(job["repo"]), job["cases"], Path(job["cache"]), job["materialize"], job["runs"])
        print(json.dumps(figures))
        return
    start = time.perf_counter()
    repo = build_synthetic_repo(WORK / f"synthetic-{args.commits}-{args.files}", args.commits, args.files, seed=0)
    print(f"history: {args.commits} commits, about {args.files} files ({time.perf_counter() - start:.1f} s to build "
          f"or find, {repo})")
    cases = make_cases(repo, args.cases, seed=0)
    head = str(pygit2.Repository(str(repo)).head.target)
    cache = WORK / "snapshots"
    if args.fresh:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"{len(cases)} cases, {len({c['base_commit'] for c in cases})} distinct commits, runs={args.runs}")
    ones, pers = [], []
    for number in range(1, args.rounds + 1):
        state = "warm: manifests kept from before" if cache.exists() else "cold: empty snapshot cache"
        print(f"round {number} ({state})")
        ones.append(run_worker(repo, [{**c, "base_commit": head} for c in cases], cache, False, args.runs))
        pers.append(run_worker(repo, cases, cache, False, args.runs))
        print(_line("  one snapshot (HEAD)", ones[-1], len(cases)))
        print(_line("  per commit (manifests only)", pers[-1], len(cases)))
        print(f"  ratio per commit / one snapshot: {pers[-1]['seconds'] / ones[-1]['seconds']:.2f}x")
    best_one = min(f["seconds"] for f in ones)
    best_per = min(f["seconds"] for f in pers)
    print(f"fastest of {args.rounds}: one snapshot {best_one:.2f} s, per commit {best_per:.2f} s, "
          f"ratio {best_per / best_one:.2f}x (target: within 3x)")
    one, per = ones[-1], pers[-1]
    if args.eager:
        eager_cache = Path(tempfile.mkdtemp(prefix="eager-", dir=WORK))
        try:
            eager = run_worker(repo, cases[: args.eager], eager_cache, True, args.runs)
        finally:
            shutil.rmtree(eager_cache, ignore_errors=True)
        print(_line("per commit (directories written)", eager, args.eager))
        print(f"  a checkout per case: {eager['seconds'] / args.eager:.2f} s/case, so "
              f"{eager['seconds'] / args.eager * len(cases):.0f} s for {len(cases)} cases")
    for figures in (one, per):
        if figures["errors"]:
            print("errors:", figures["errors"])


if __name__ == "__main__":
    main()
