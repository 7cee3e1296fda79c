"""Replay the token counting of a recorded run: this build against an earlier one, in one process.

A cold run of the plugin spends a large share of its CPU counting the tokens of every blob its snapshots
hold (``agents/index/tokencache.py``, ``wordtable.py``). This script replays the blobs one run counted,
each worker's in its order and with its paths (a file's next version is counted from its last one), through
this checkout's :class:`TokenCache` and through the same modules of an earlier revision (``--baseline``,
``main`` by default: read with ``git show``, loaded under other names), blob after blob in turn (the load
of a shared machine falls on both alike), ``--repeat`` times; it prints the CPU seconds of each (medians)
and checks that both give the same vocabulary, in the same order, and the same term ids and counts for
every blob.

Record the blobs once, with this module as a plugin of the run (every xdist worker appends to the log)::

    TOKEN_LOG=/tmp/tokens.log PYTHONPATH=benchmarks python -m pytest lite274.jsonl -p bench_tokenise \\
        --codesearch-agent=bm25 -n 2 --codesearch-cache-dir fresh-folder ...
    python benchmarks/bench_tokenise.py /tmp/tokens.log pytest.ini --repeat 3

The blobs are read from the mirrors named in the ``codesearch_repo_map`` of ``pytest.ini`` (or from git
directories given instead); a worker's token store is flushed where the run flushed it, after each
snapshot's blobs.
"""

from __future__ import annotations

import argparse
import configparser
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pygit2

from pytest_codesearch.settings.types import Origin, RepoMap

MODULES = ("tokenize", "wordtable", "tokencache")
"""The modules replayed (``pytest_codesearch/agents/index/``), each importing the ones before it."""

Step = tuple[str, str, str, bytes]
"""A log entry: ``T`` (a blob counted) or ``O`` (outlined: a snapshot's query), blob id, path, content."""


def pytest_configure(config: Any) -> None:
    """As a plugin: append each blob a worker counts, and each it outlines, to the file ``$TOKEN_LOG``."""
    from pytest_codesearch.agents.index import pyoutlines, tokencache
    from pytest_codesearch.repo.reader import git_blob_id

    log = open(os.environ["TOKEN_LOG"], "a")  # noqa: SIM115 - open while the process lives
    outline, count = pyoutlines.file_definitions, tokencache.TokenCache._count

    def logged_outline(path: str, data: bytes) -> Any:
        log.write(f"O {os.getpid()} {git_blob_id(data)} {path}\n")
        log.flush()
        return outline(path, data)

    def logged_count(self: Any, text: str, blob_id: str | None, path: str | None = None) -> Any:
        log.write(f"T {os.getpid()} {blob_id} {path}\n")
        log.flush()
        return count(self, text, blob_id, path)

    pyoutlines.file_definitions = logged_outline
    tokencache.TokenCache._count = logged_count  # type: ignore[method-assign]


def read_log(log: Path, repositories: Sequence[pygit2.Repository]) -> list[list[Step]]:
    """Return each worker's steps, in its order, with each blob's content read from ``repositories``."""
    workers: dict[str, list[Step]] = {}
    for line in log.read_text().splitlines():
        kind, pid, blob, path = line.split(" ", 3)
        if kind == "T" and path == "None":
            continue  # counted under no blob id: a binary file read as text, never stored
        for repository in repositories:
            if blob in repository:
                workers.setdefault(pid, []).append((kind, blob, path, repository[blob].read_raw()))
                break
        else:
            raise SystemExit(f"{log}: blob {blob} ({path}) is in none of the repositories")
    return list(workers.values())


def baseline_modules(revision: str) -> dict[str, types.ModuleType]:
    """Return :data:`MODULES` as of ``revision`` (``git show``), loaded as ``_baseline_<name>``."""
    root = Path(__file__).resolve().parent.parent
    loaded: dict[str, types.ModuleType] = {}
    for name in MODULES:
        path = f"pytest_codesearch/agents/index/{name}.py"
        shown = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=root, check=True, capture_output=True, text=True)
        source = shown.stdout
        for other in MODULES:
            source = source.replace(f"pytest_codesearch.agents.index.{other}", f"_baseline_{other}")
        module = types.ModuleType(f"_baseline_{name}")
        sys.modules[module.__name__] = module  # dataclasses look their module up there
        exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
        loaded[name] = module
    return loaded


def replay(variants: list[dict[str, Any]], workers: list[list[Step]]) -> tuple[list[float], list[list[Any]]]:
    """Return the CPU seconds each of ``variants`` (modules) spent counting every worker's blobs, and each
    one's cache per worker. The variants count each blob in turn, so a shared machine's load falls on all alike."""
    from pytest_codesearch.agents.index.tokenstore import TokenStore

    seconds = [0.0] * len(variants)
    caches: list[list[Any]] = [[] for _ in variants]
    with tempfile.TemporaryDirectory() as folder:
        for number, steps in enumerate(workers):
            own = []
            for at, modules in enumerate(variants):
                modules["tokenize"].word_tokens.cache_clear()
                cache = modules["tokencache"].TokenCache()
                cache.store = TokenStore(Path(folder) / f"{at}-{number}", None)
                own.append(cache)
                caches[at].append(cache)
            last = "O"
            for kind, blob, path, data in steps:
                for at, cache in enumerate(own):
                    started = time.process_time()
                    if kind == "T":
                        cache.tokens(blob, lambda data=data: data, False, path)
                    elif last == "T":
                        cache.flush()
                    seconds[at] += time.process_time() - started
                last = kind
            for at, cache in enumerate(own):
                started = time.process_time()
                cache.flush()
                seconds[at] += time.process_time() - started
    return seconds, caches


def differences(old: list[Any], new: list[Any]) -> list[str]:
    """Return what differs between two replays' caches (vocabularies in order, each blob's ids and counts)."""
    found = []
    for worker, (a, b) in enumerate(zip(old, new)):
        if list(a.vocabulary.items()) != list(b.vocabulary.items()):
            found.append(f"worker {worker}: the vocabularies differ")
        for blob, tokens in a._blobs.items():
            other = b._blobs.get(blob)
            if (tokens is None) != (other is None) or tokens is not None and (
                tokens.term_ids.tolist() != other.term_ids.tolist() or tokens.counts.tolist() != other.counts.tolist()
            ):
                found.append(f"worker {worker}: blob {blob} differs")
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """Replay a log with the baseline's modules and this checkout's, in turn, and print the CPU of each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("repos", nargs="+", help="a pytest.ini with codesearch_repo_map, or git directories")
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    folders = [found for name in args.repos for found in git_dirs(Path(name))]
    workers = read_log(args.log, [pygit2.Repository(folder) for folder in folders])
    counted = [data for steps in workers for kind, _, _, data in steps if kind == "T"]
    print(f"{len(workers)} workers, {len(counted)} blobs counted, {sum(map(len, counted)) / 1e6:.1f} MB")
    import pytest_codesearch.agents.index as index

    current = {name: __import__(f"{index.__name__}.{name}", fromlist=["_"]) for name in MODULES}
    names = [args.baseline, "this checkout"]
    variants = [baseline_modules(args.baseline), current]
    spent: list[list[float]] = [[], []]
    for turn in range(args.repeat):
        order = [0, 1] if turn % 2 == 0 else [1, 0]  # who counts a blob first alternates too
        seconds, caches = replay([variants[at] for at in order], workers)
        results = {order[n]: caches[n] for n in range(2)}
        for n, at in enumerate(order):
            spent[at].append(seconds[n])
        derived = [sum(cache.derived for cache in results[at]) for at in range(2)]
        print(f"{names[0]} {spent[0][-1]:.2f} CPU-s, this checkout {spent[1][-1]:.2f} CPU-s;"
              f" blobs derived {derived[0]} and {derived[1]}", flush=True)
    old, new = (statistics.median(times) for times in spent)
    print(f"median: {names[0]} {old:.2f} CPU-s, this checkout {new:.2f} CPU-s (ratio {new / old:.3f})")
    found = differences(results[0], results[1])
    print("\n".join(found[:10]) if found else "identical: vocabularies, term ids and counts of every blob")


def git_dirs(path: Path) -> list[str]:
    """Return the git directories ``path`` names: itself, or the mirrors of a ``pytest.ini``'s
    ``codesearch_repo_map``, read as the plugin reads it (``settings.types.RepoMap``)."""
    if not path.is_file():
        return [str(path)]
    ini = configparser.ConfigParser()
    ini.read(path)
    raw = ini.get("pytest", "codesearch_repo_map", fallback="")
    return [str(folder) for _, folder in RepoMap().parse(raw, Origin(str(path), path.parent))]


if __name__ == "__main__":
    main()
