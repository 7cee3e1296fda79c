"""Replay the Python file versions a bm25 run outlined, in its order, and time the ways to outline them.

bm25's function documents outline the best files of every case (``agents/index/pyoutlines.py``); a
cold run derives most versions from a kept one. This replays a trace of one run's outlines, worker by
worker in their order, in one process, and prints CPU seconds (alternating rounds, medians) of:

* **whole**: each version parsed whole (``mining.outline.parse_outline``), the reference;
* **last**: ``file_definitions`` deriving from the last version of the path only (``KEPT_VERSIONS`` 1);
* **nearest**: ``file_definitions`` as it is (the nearest of the last ``KEPT_VERSIONS`` versions);

with the bytes ``ast`` parsed for each, and whether every outline equals the whole parse's.

The trace has one line per outline, ``<worker> <blob id> <path>``; a run writes it with this plugin
(``-p tracepyoutlines`` with its folder on ``PYTHONPATH``; xdist workers load it too)::

    import os
    from pytest_codesearch.agents.index import pyoutlines
    from pytest_codesearch.repo.reader import git_blob_id
    _log, _outline = open("outlines.trace", "a"), pyoutlines.file_definitions
    def _traced(path, data):
        _log.write(f"{os.getpid()} {git_blob_id(data)} {path}\\n")
        return _outline(path, data)
    pyoutlines.file_definitions = _traced

then::

    python benchmarks/bench_pyoutlines.py outlines.trace --ini pytest.ini [--rounds 3]

(the blobs are read from the mirrors of the ini's ``codesearch_repo_map``).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pygit2
from bench_tokenise import git_dirs

from pytest_codesearch.agents.index import pyoutlines
from pytest_codesearch.mining import outline as mined
from pytest_codesearch.outline import outline
from pytest_codesearch.outline.model import Definition

Stream = list[tuple[str, bytes]]
Outlined = tuple[Definition, ...] | None


def read_trace(trace: Path, ini: Path) -> list[Stream]:
    """Return the Python versions of the trace, worker by worker, in order (blobs read from the mirrors)."""
    repos = [pygit2.Repository(folder) for folder in git_dirs(ini)]
    streams: dict[str, Stream] = {}
    for line in trace.read_text().splitlines():
        worker, blob, path = line.split(" ", 2)
        if path.endswith(".py"):
            data = next((repo[blob].read_raw() for repo in repos if blob in repo), None)
            if data is not None:
                streams.setdefault(worker, []).append((path, data))
    return list(streams.values())


def _whole(path: str, data: bytes) -> Outlined:
    found = mined.parse_outline(data) if mined.sliceable(data) else None
    return outline(path, data).definitions if found is None else found.definitions


def _bm25(versions: int) -> Callable[[str, bytes], Outlined]:
    def outlined(path: str, data: bytes) -> Outlined:
        pyoutlines.KEPT_VERSIONS = versions
        return pyoutlines.file_definitions(path, data)

    return outlined


def replay(streams: list[Stream], outlined: Callable[[str, bytes], Outlined]) -> tuple[float, int, list[Outlined]]:
    """Return the CPU seconds, the bytes parsed and the outlines of every version, each worker afresh."""
    parsed = [0]
    parse = getattr(mined, "parse_module")

    def counted(text: bytes) -> object:  # the bytes ``ast`` is given
        parsed[0] += len(text)
        return parse(text)

    setattr(mined, "parse_module", counted)
    seconds, found = 0.0, []
    try:
        for stream in streams:
            pyoutlines.forget_outlines()
            gc.collect()
            start = time.process_time()
            found += [outlined(path, data) for path, data in stream]
            seconds += time.process_time() - start
    finally:
        setattr(mined, "parse_module", parse)
        pyoutlines.forget_outlines()
    return seconds, parsed[0], found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace", type=Path)
    parser.add_argument("--ini", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    streams = read_trace(args.trace, args.ini)
    total = sum(len(data) for stream in streams for _, data in stream)
    print(f"{sum(map(len, streams))} versions in {len(streams)} workers, {total / 1e6:.1f} MB")
    kept = pyoutlines.KEPT_VERSIONS
    ways = {"whole": _whole, "last": _bm25(1), "nearest": _bm25(kept)}
    times: dict[str, list[float]] = {name: [] for name in ways}
    reference: list[Outlined] = []
    for round_ in range(args.rounds):
        names = list(ways) if round_ % 2 == 0 else list(reversed(ways))
        for name in names:
            seconds, parsed, found = replay(streams, ways[name])
            times[name].append(seconds)
            reference = found if name == "whole" else reference
            if round_ == 0:
                print(f"{name}: {parsed / 1e6:.1f} MB parsed", end="")
                print("" if name == "whole" else f", every outline the whole parse's: {found == reference}")
    pyoutlines.KEPT_VERSIONS = kept
    base = statistics.median(times["whole"])
    for name, rounds in times.items():
        median = statistics.median(rounds)
        each = " ".join(f"{s:.2f}" for s in rounds)
        print(f"{name:8} CPU s {each}  median {median:.2f} ({median / base:.3f} of whole)")


if __name__ == "__main__":
    main()
