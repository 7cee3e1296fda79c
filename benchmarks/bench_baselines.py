"""Score the built-in agents, and bm25s when installed, on SWE-bench-style instances.

Each instance (one JSON object a line, or a JSON list) gives ``instance_id``, ``repo`` (``owner/name``),
``base_commit``, ``problem_statement`` (the query) and ``patch``. The file truth is the files the patch
modifies or deletes: the ``diff --git a/X b/X`` headers minus the files it adds (``--- /dev/null``).
Each agent searches the tree of ``base_commit`` read straight from a local mirror with pygit2 (no
checkout: the agents get a snapshot manifest and read blobs from the object database), and the
script prints LocAgent's Acc@k (a case counts at k when the truth among the first k answers numbers
``min(|truth|, k)``): files at 1, 3, 5 and 10, modules and functions at 5 and 10. Module and function
truth is the library's, derived from the patch at ``base_commit`` under LocAgent's convention
(``--codesearch-profile locagent``: a change inside ``__init__`` or a class body names the class), so
these columns equal the plugin's ``module_acc@k`` and ``function_acc@k``. Beside them: the number of
instances, the seconds spent indexing (all snapshots) and the median (p50) time of one query.

    python benchmarks/bench_baselines.py swe_lite.jsonl mirrors.json --repos flask,requests
    python benchmarks/bench_baselines.py swe_lite.jsonl mirrors.json --every 3 --agents bm25,bm25s:stem=true

``mirrors.json`` maps a repository name (``flask``, or ``pallets/flask``) to a git directory; blobs a
mirror lacks (some keep their largest files out) are left out of the tree. ``--agents`` names
``bm25``, ``keyword``, ``path``, ``hybrid``, ``embedding`` and ``bm25s``, each with constructor arguments
after ``:``, separated by ``;`` (``bm25:k1=0.9;b=0.4``, ``hybrid:agents=bm25+embedding``,
``embedding:model=/path/to/model;threads=2``; ``embedding`` needs the ``embeddings`` extra). ``--cache DIR``
gives the agents the stores a run's cache directory gives them (token counts, indexes, function
documents, embeddings; ``--codesearch-cache-dir``): run twice over one folder to time a warm cache, or
point it at a plugin run's cache directory to reuse what that run stored. ``bm25s`` is
bm25s (``pip install bm25s``) with its defaults and English stop words over whole text files,
test files (``is_test_path``) left out; ``bm25s:stem=true`` adds its English Snowball stemmer
(``pip install PyStemmer``) and ``bm25s:files=source`` keeps the files ``bm25`` ranks by default
(``is_source_path``). Index seconds are given as wall clock and as this process's CPU time (the machine
is shared: CPU time is the steadier figure); the last column is the process's peak resident memory so
far (MB, every agent run before included).

The file truth is parsed here, independently of the library, on purpose: it checks the library's.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import pygit2

from pytest_codesearch.repo.reader import SnapshotView, TreeReader, remember_view

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.builtin.embedding import EmbeddingAgent
from pytest_codesearch.agents.contract import RetrievalResult
from pytest_codesearch.agents.builtin.hybrid import HybridAgent
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.builtin.path import PathAgent
from pytest_codesearch.agents.index.stores import StoreRoots, use_stores
from pytest_codesearch.agents.index.tokencache import decode_text
from pytest_codesearch.filekinds import is_source_path, is_test_path
from pytest_codesearch.goldset.formats.base import ReadOptions
from pytest_codesearch.goldset.formats.swebench import load_swebench
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.manifest import TreeListing
from pytest_codesearch.repo.materialize import SubtreeMemo, list_tree
from pytest_codesearch.scoring.levels import score_levels

KS = (1, 3, 5, 10)
"""Cut-offs of file-level Acc@k."""
LEVEL_KS = (5, 10)
"""Cut-offs of module- and function-level Acc@k (the published tables' columns)."""
LEVELS = ("module", "function")
_DIFF_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$")


@dataclass(frozen=True)
class Instance:
    """One SWE-bench-style case: the issue text, the repository state and the files the fix touches."""

    instance_id: str
    repo: str
    base_commit: str
    query: str
    truth: frozenset[str]
    case: TestCase | None = None
    """The library's case of the instance (module and function truth), None when it has none."""


def patch_truth(patch: str) -> frozenset[str]:
    """Return the files ``patch`` modifies or deletes: its ``diff --git`` headers minus added files."""
    found: set[str] = set()
    current: str | None = None
    for line in patch.splitlines():
        header = _DIFF_HEADER.match(line)
        if header:
            current = header.group(1)
            found.add(current)
        elif current is not None and (line.startswith("new file mode") or line == "--- /dev/null"):
            found.discard(current)
    return frozenset(found)


def load_instances(path: Path, repos: set[str] | None) -> list[Instance]:
    """Return the instances of ``path`` (JSONL or a JSON list) whose repository is in ``repos`` (all if None)."""
    text = path.read_text(encoding="utf-8")
    records: list[dict[str, Any]] = (
        json.loads(text) if text.lstrip().startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    )
    chosen = []
    for record in records:
        name = record["repo"]
        if repos is not None and name not in repos and name.split("/")[-1] not in repos:
            continue
        truth = patch_truth(record["patch"])
        if truth:
            chosen.append(Instance(record["instance_id"], name, record["base_commit"], record["problem_statement"], truth))
    return chosen


def acc_at_k(ranked: Sequence[str], truth: frozenset[str], k: int) -> bool:
    """Return whether the first ``k`` of ``ranked`` hold ``min(|truth|, k)`` truth files (LocAgent's Acc@k)."""
    return len(truth.intersection(ranked[:k])) == min(len(truth), k)


class Searcher(Protocol):
    """What the benchmark drives: the agent contract, minus ``reset``."""

    def initialize(self, repo_path: str) -> None: ...

    def retrieve(self, query: str) -> RetrievalResult: ...


@dataclass
class Tally:
    """One agent's hits at each k, seconds spent indexing, and query times."""

    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    cases: int = 0
    levels: dict[str, list[float]] = field(default_factory=dict)
    """``module_acc@5`` etc.: one value per instance with truth at that level."""
    index_s: float = 0.0
    index_cpu_s: float = 0.0
    query_s: list[float] = field(default_factory=list)

    def add(self, answer: RetrievalResult, instance: Instance) -> None:
        """Count one answer."""
        self.cases += 1
        for k in KS:
            self.hits[k] += acc_at_k(answer.files, instance.truth, k)
        if instance.case is not None:
            for name, value in score_levels(instance.case, answer.modules, answer.functions, LEVEL_KS).items():
                self.levels.setdefault(name, []).append(value)

    def row(self, name: str) -> str:
        """Return the table row: Acc@k in percent, instances, index seconds (wall, CPU), p50 query milliseconds."""
        accs = " ".join(f"{100 * self.hits[k] / max(self.cases, 1):6.2f}" for k in KS)
        levels = " ".join(self._level(f"{level}_acc@{k}") for level in LEVELS for k in LEVEL_KS)
        p50 = 1000 * statistics.median(self.query_s) if self.query_s else 0.0
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return (f"{name:<28} {accs} {levels} {self.cases:6d} {self.index_s:9.1f} {self.index_cpu_s:9.1f} "
                f"{p50:9.1f} {peak_mb:7.0f}")  # fmt: skip

    def _level(self, metric: str) -> str:
        """Return the mean of ``metric`` in percent over the instances with truth at its level, ``-`` for none."""
        values = self.levels.get(metric)
        return f"{100 * statistics.fmean(values):6.2f}" if values else f"{'-':>6}"


class Bm25sSearcher:
    """bm25s (default Lucene BM25, English stop words) over whole text files of a snapshot, tests left out."""

    def __init__(self, exclude_tests: bool = True, top_n: int = 100, stem: bool = False, files: str = "all") -> None:
        import bm25s  # type: ignore[import-not-found,import-untyped,unused-ignore]

        self._bm25s = bm25s
        self._stemmer: Any = None
        if stem:
            import Stemmer  # type: ignore[import-not-found,import-untyped,unused-ignore]

            self._stemmer = Stemmer.Stemmer("english")
        self.files = files
        self.exclude_tests = exclude_tests
        self.top_n = top_n
        self._paths: list[str] = []
        self._retriever: Any = None

    def initialize(self, repo_path: str) -> None:
        """Index the text files of the snapshot ``repo_path`` (a manifest beside it names the blobs)."""
        repo_dir, commit = repo_path.split("@", 1)
        paths, texts = read_tree_texts(_open_repo(repo_dir), commit, self.exclude_tests)
        if self.files == "source":
            kept = [n for n, path in enumerate(paths) if is_source_path(path, tests=not self.exclude_tests)]
            paths, texts = [paths[n] for n in kept], [texts[n] for n in kept]
        self._paths = paths
        self._retriever = self._bm25s.BM25()
        tokens = self._bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._retriever.index(tokens, show_progress=False)

    def retrieve(self, query: str) -> RetrievalResult:
        """Return the ``top_n`` best files for ``query``."""
        tokens = self._bm25s.tokenize([query], stopwords="en", stemmer=self._stemmer, show_progress=False)
        k = min(self.top_n, len(self._paths))
        docs, scores = self._retriever.retrieve(tokens, k=k, show_progress=False)
        return RetrievalResult(files=[self._paths[int(i)] for i, s in zip(docs[0], scores[0]) if s > 0])


_REPOS: dict[str, pygit2.Repository] = {}


def _open_repo(git_dir: str) -> pygit2.Repository:
    if git_dir not in _REPOS:
        _REPOS[git_dir] = pygit2.Repository(git_dir)
    return _REPOS[git_dir]


_MEMOS: dict[str, SubtreeMemo] = {}


def list_present_tree(repo: pygit2.Repository, tree: pygit2.Tree) -> TreeListing:
    """Return the harness's listing of ``tree`` (``list_tree``): blobs the mirror lacks are left out (a
    mirror may keep its largest files out), subtrees listed before for this mirror are not walked again."""
    return list_tree(repo, tree, _MEMOS.setdefault(repo.path, {}))


def read_tree_texts(repo: pygit2.Repository, commit: str, exclude_tests: bool) -> tuple[list[str], list[str]]:
    """Return the paths and texts of the text files of ``commit``'s tree, by path, tests left out if asked."""
    tree = repo.revparse_single(commit).peel(pygit2.Commit).tree
    paths: list[str] = []
    texts: list[str] = []
    for file in list_present_tree(repo, tree).files:
        if file.size > 1_000_000 or (exclude_tests and is_test_path(file.path)):
            continue
        text = decode_text(repo.odb.read(file.blob)[1], file.path)
        if text is not None:
            paths.append(file.path)
            texts.append(text)
    return paths, texts


def _timed(call: Callable[[], Any]) -> tuple[Any, float, float]:
    """Return what ``call`` returned, and the wall-clock and CPU seconds it took."""
    start, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - start, time.process_time() - cpu


def run_agent(searcher: Searcher, instances: Iterable[Instance], where: Callable[[Instance], str]) -> Tally:
    """Return the tally of ``searcher`` answering every instance on its snapshot ``where(instance)``."""
    tally = Tally()
    for instance in instances:
        location = where(instance)  # listing the snapshot is the harness's work, not the agent's indexing
        _, seconds, cpu = _timed(lambda: searcher.initialize(location))
        tally.index_s += seconds
        tally.index_cpu_s += cpu
        answer, seconds, _ = _timed(lambda: searcher.retrieve(instance.query))
        tally.query_s.append(seconds)
        tally.add(answer, instance)
    return tally


def _parse_kwargs(text: str) -> dict[str, Any]:
    """Return ``k1=1.2,b=0.75,exclude_tests=false`` as keyword arguments (numbers, booleans, else strings)."""
    kwargs: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        lowered = value.lower()
        if lowered in ("true", "false"):
            kwargs[key] = lowered == "true"
        else:
            try:
                kwargs[key] = int(value)
            except ValueError:
                try:
                    kwargs[key] = float(value)
                except ValueError:
                    kwargs[key] = value
    return kwargs


def make_searcher(spec: str) -> Searcher:
    """Return the searcher named by ``spec``: ``bm25``, ``keyword``, ``path``, ``hybrid``, ``embedding``, ``bm25s``,
    with ``:k=v,...``."""
    name, _, options = spec.partition(":")
    kwargs = _parse_kwargs(options)
    factories: dict[str, Callable[..., Searcher]] = {
        "bm25": BM25Agent,
        "keyword": KeywordAgent,
        "path": PathAgent,
        "hybrid": HybridAgent.of_names,
        "embedding": EmbeddingAgent,
        "bm25s": Bm25sSearcher,
    }
    if name not in factories:
        raise SystemExit(f"unknown agent {name!r}: choose from {', '.join(factories)}")
    return factories[name](**kwargs)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one row per agent."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("instances", type=Path, help="SWE-bench-style instances (JSONL or a JSON list)")
    parser.add_argument("mirrors", type=Path, help="JSON mapping repository name to a local git directory")
    parser.add_argument("--repos", help="comma-separated repository names to keep (default: all mapped)")
    parser.add_argument("--every", type=int, default=1,
                        help="keep every N-th instance, in file order (a spread-out subset to iterate on)")
    parser.add_argument("--agents", default="bm25,keyword,path,hybrid,bm25s",
                        help="comma-separated; options after ':' with ';' between, e.g. 'bm25:k1=1.2;b=0.5'")
    parser.add_argument("--cache", type=Path,
                        help="the agents' stores (tokens, indexes, embeddings) under this folder, as a run's "
                        "cache dir holds them (default: none: every run is cold)")
    args = parser.parse_args(argv)
    restore = use_stores(StoreRoots(str(args.cache), None)) if args.cache is not None else None
    try:
        return _run(args)
    finally:  # the stores are the process's: a caller (a test) gets its own back
        if restore is not None:
            restore()


def _run(args: argparse.Namespace) -> int:
    """Run the benchmark ``args`` describe and print one row per agent."""
    mirrors: dict[str, str] = json.loads(args.mirrors.read_text(encoding="utf-8"))
    wanted = set(args.repos.split(",")) if args.repos else None
    instances = [i for i in load_instances(args.instances, wanted) if _mirror(mirrors, i.repo)][:: args.every]
    instances = with_entity_truth(instances, args.instances, mirrors)
    repos = sorted({i.repo for i in instances})
    print(f"{len(instances)} instances from {len(repos)} repositories: {', '.join(repos)}; "
          f"{sum(i.case is not None for i in instances)} with module and function truth")
    files = " ".join(f"{f'Acc@{k}':>6}" for k in KS)
    levels = " ".join(f"{f'{short}@{k}':>6}" for short in ("mod", "fn") for k in LEVEL_KS)
    print(f"{'agent':<28} {files} {levels} {'cases':>6} {'index_s':>9} {'index_cpu':>9} {'p50_ms':>9} {'peak_mb':>7}")
    with tempfile.TemporaryDirectory(prefix="bench-baselines-") as scratch:
        cache = Path(scratch)
        for spec in args.agents.split(","):
            searcher = make_searcher(spec.replace(";", ","))
            where = _locator(searcher, mirrors, cache)
            print(run_agent(searcher, instances, where).row(spec), flush=True)
    return 0


def with_entity_truth(instances: list[Instance], path: Path, mirrors: dict[str, str]) -> list[Instance]:
    """Return ``instances`` with the library's case of each (module and function truth from its patch at its
    base commit, LocAgent's convention); an instance the library cannot read keeps ``case`` None."""
    repos = {i.repo: Path(_mirror(mirrors, i.repo) or "") for i in instances}
    loaded = load_swebench(path, ReadOptions(repos=repos, convention="locagent"))
    cases = {case.id: case for case in loaded.cases}
    return [replace(i, case=cases.get(i.instance_id)) for i in instances]


def _mirror(mirrors: dict[str, str], repo: str) -> str | None:
    return mirrors.get(repo) or mirrors.get(repo.split("/")[-1])


def _locator(searcher: Searcher, mirrors: dict[str, str], cache: Path) -> Callable[[Instance], str]:
    """Return how ``searcher`` is told an instance's snapshot: ``git_dir@commit`` for bm25s; for our
    agents the harness's way: the snapshot's view through ``use_snapshot``, then its root.

    The view lists the blobs the mirror holds (:func:`list_present_tree`): some mirrors keep their
    largest files out. Listing is done before the timed ``initialize``, as the harness does it apart."""

    def where(instance: Instance) -> str:
        git_dir = _mirror(mirrors, instance.repo) or ""
        if isinstance(searcher, Bm25sSearcher):
            return f"{git_dir}@{instance.base_commit}"
        repo = _open_repo(git_dir)
        listing = list_present_tree(repo, repo.revparse_single(instance.base_commit).peel(pygit2.Commit).tree)
        view = SnapshotView(cache / listing.tree_id, listing.tree_id, TreeReader(listing.repository or "", listing))
        remember_view(view)
        hook = getattr(searcher, "use_snapshot", None)
        if callable(hook):
            hook(view)
        return str(view.root)

    return where


if __name__ == "__main__":
    sys.exit(main())
