"""A store that outgrows its share of ``--codesearch-cache-size`` says so at the end of the run."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.agents.index.embedstore import EmbeddingStore
from pytest_codesearch.agents.index.filestore import STORE_SHARE, store_pruning_notes
from pytest_codesearch.repo.prunelog import LOG

BLOCK = 4096
"""What one small file takes on disk (the stores count blocks, as ``du`` does)."""


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and p.name != LOG]


def test_a_store_pruned_during_the_run_gets_a_line_saying_to_raise_the_cache_size(tmp_path: Path) -> None:
    cache_size = 10 * BLOCK * STORE_SHARE  # the embeddings store's share: 10 blocks
    store = EmbeddingStore(tmp_path / "embeddings", limit=10 * BLOCK)
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / LOG).write_text('{"time": 1e12, "directories": 1, "blobs": 0, "freed": 1}\n')
    started = time.time()
    for n in range(30):
        store.save("model", f"{n:032x}", np.full(4, n, np.float32))
    kept = _files(tmp_path / "embeddings")
    assert len(kept) <= 10  # each prune keeps at most 3/4 of the bound, and passes it by an eighth at most
    assert (tmp_path / "embeddings" / LOG).is_file()  # the log is never pruned itself
    removed = 30 - len(kept)
    notes = store_pruning_notes(tmp_path, started, cache_size)
    assert notes == [
        f"codesearch: the embeddings store {tmp_path / 'embeddings'} (its share: 40.0 KiB of --codesearch-cache-size) "
        f"removed {removed} files, {removed * 4:.1f} KiB, that later runs compute again: "
        "raise --codesearch-cache-size"
    ]  # the snapshot cache's own log is left to its own line
    assert store_pruning_notes(tmp_path, time.time() + 1, cache_size) == []  # nothing pruned since then


def test_a_store_within_its_share_says_nothing(tmp_path: Path) -> None:
    store = EmbeddingStore(tmp_path / "embeddings", limit=100 * BLOCK)
    started = time.time()
    for n in range(30):
        store.save("model", f"{n:032x}", np.full(4, n, np.float32))
    assert len(_files(tmp_path / "embeddings")) == 30
    assert store_pruning_notes(tmp_path, started, 400 * BLOCK) == []


def test_the_run_summary_names_the_stores_that_outgrew_a_small_cache_size(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "repo")
    words = {f"src/mod{n}.py": " ".join(f"w{n}x{m}" for m in range(60)) + "\n" for n in range(300)}
    revs = [commit(repo, {**words, "src/edit.py": f"def handler(request):\n    return {k}\n"}) for k in range(4)]
    cases = [{"id": f"c{n}", "query": "handler request", "ground_truth_files": ["src/edit.py"], "base_commit": rev}
             for n, rev in enumerate(revs)]  # fmt: skip
    lines = [json.dumps({"metadata": {"repo": "repo"}}), *(json.dumps(case) for case in cases)]
    pytester.makefile(".jsonl", cases="\n".join(lines))
    result = pytester.runpytest(
        "cases.jsonl", "-p", "no:cacheprovider", "--codesearch-agent=bm25", "--codesearch-cache-size", "1MB",
        "--codesearch-cache-dir", "cache",
    )  # fmt: skip
    result.assert_outcomes(passed=4)
    result.stdout.re_match_lines([
        r"codesearch: the indexes store .*cache/indexes \(its share: 256.0 KiB of --codesearch-cache-size\) removed "
        r"\d+ files, [\d.]+ MiB, that later runs compute again: raise --codesearch-cache-size",
        r"codesearch: the tokens store .*cache/tokens \(its share: 256.0 KiB of --codesearch-cache-size\) removed 1 file, .*",
    ])  # fmt: skip
