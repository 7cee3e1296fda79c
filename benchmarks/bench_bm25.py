"""Time the built-in BM25 agent on a synthetic repository.

Writes 2,000 files of about 200 lines of pseudo-code under a temporary directory, then times
``BM25Agent.initialize`` and 100 queries, and, for comparison, ``rank_bm25.BM25Okapi`` on the same
token lists. Run it from the repository root::

    python benchmarks/bench_bm25.py [--files 2000] [--lines 200] [--queries 100]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.corpus import iter_text_files
from pytest_codesearch.agents.index.tokenize import path_tokens, tokenize

T = TypeVar("T")

_SYLLABLES = "ba ce di fo gu ka le mi no pu ra se ti vo zu xan qel vor tim nup".split()


def _make_words(rng: random.Random, count: int) -> list[str]:
    """Return ``count`` distinct pseudo-words of two or three syllables."""
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3)))))
    return sorted(words)


def _make_line(rng: random.Random, words: list[str]) -> str:
    """Return one line of pseudo-Python built from ``words``."""
    a, b, c = rng.choice(words), rng.choice(words), rng.choice(words)
    shapes = (
        f"def {a}_{b}(self, {c}):",
        f"    {a} = self.{b}{c.capitalize()}({c}, limit={rng.randint(0, 999)})",
        f"    return {a}.{b}_{c}()",
        f"class {a.capitalize()}{b.capitalize()}Error(Exception):",
        f"    # {a} the {b} when {c} is missing",
        f"    if {a} is not None and {b} > {c}:",
    )
    return rng.choice(shapes)


def write_tree(root: Path, files: int, lines: int, seed: int = 0) -> list[str]:
    """Write ``files`` files of ``lines`` lines under ``root``; return the vocabulary used."""
    rng = random.Random(seed)
    words = _make_words(rng, 3000)
    for number in range(files):
        path = root / f"pkg{number // 100}" / f"{rng.choice(words)}_{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(_make_line(rng, words) for _ in range(lines)) + "\n")
    return words


def _time_agent(root: Path, queries: list[str]) -> tuple[float, list[float]]:
    """Return the seconds ``BM25Agent.initialize`` takes and the seconds of each query."""
    agent = BM25Agent()
    gc.collect()
    start = time.perf_counter()
    agent.initialize(str(root))
    index_s = time.perf_counter() - start
    gc.collect()  # leave the garbage of indexing out of the query times
    return index_s, [_timed(agent.retrieve, query) for query in queries]


def _time_rank_bm25(root: Path, queries: list[str]) -> tuple[float, list[float]]:
    """Return the seconds ``BM25Okapi`` takes to index pre-tokenized files, and each query's.

    Two models, as ``BM25Agent`` scores two fields: the files' text and their paths.
    """
    files = list(iter_text_files(root))
    texts = [tokenize(body) for _, body in files]
    names = [path_tokens(path) for path, _ in files]
    gc.collect()
    start = time.perf_counter()
    text, paths = BM25Okapi(texts), BM25Okapi(names)
    index_s = time.perf_counter() - start
    gc.collect()

    def score(tokens: list[str]) -> object:
        return text.get_scores(tokens) + 4.0 * paths.get_scores(tokens)

    return index_s, [_timed(score, tokenize(query)) for query in queries]


def _timed(function: Callable[[T], object], argument: T) -> float:
    """Return the seconds ``function(argument)`` takes."""
    start = time.perf_counter()
    function(argument)
    return time.perf_counter() - start


def _per_query(seconds: list[float]) -> str:
    """Return the mean and median of ``seconds`` in milliseconds per query."""
    return f"{statistics.mean(seconds) * 1e3:.2f} ms/query (median {statistics.median(seconds) * 1e3:.2f})"


def main() -> None:
    """Build the tree, time both implementations and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        words = write_tree(root, args.files, args.lines)
        rng = random.Random(1)
        queries = [" ".join(rng.sample(words, rng.randint(2, 6))) for _ in range(args.queries)]
        size_mb = sum(p.stat().st_size for p in root.rglob("*.py")) / 1e6
        print(f"tree: {args.files} files, {args.lines} lines each, {size_mb:.1f} MB")
        index_s, query_s = _time_agent(root, queries)
        print(f"BM25Agent: initialize {index_s:.2f} s ({args.files / index_s:,.0f} files/s), "
              f"{_per_query(query_s)}")
        index_s, query_s = _time_rank_bm25(root, queries)
        print(f"rank_bm25.BM25Okapi (tokens given): index {index_s:.2f} s, {_per_query(query_s)}")

if __name__ == "__main__":
    main()
