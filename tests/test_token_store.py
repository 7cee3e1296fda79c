"""Token counts on disk by blob id: shared by runs and xdist workers, atomic, bounded (issue 12 item 4)."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from gitrepo import commit, init_repo

from example_project import read_results
from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.agents.index.tokenstore import TokenStore, tokenizer_digest
from pytest_codesearch.repo.prunelog import LOG
from pytest_codesearch.repo import SnapshotStore

BLOB = "ab" * 20


def test_counts_and_the_binary_mark_round_trip(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    store.save(BLOB, ["login", "token", "naïve"], [3, 1, 2])
    store.save("cd" * 20, None)
    found = store.load(BLOB)
    assert found is not None and (found.tokens, found.counts.tolist(), found.binary) == (
        ["login", "token", "naïve"], [3, 1, 2], False
    )
    binary = store.load("cd" * 20)
    assert binary is not None and binary.binary
    assert store.load("ef" * 20) is None
    assert store.saved == 0 and not (tmp_path / f"t2-{tokenizer_digest()}").exists()  # nothing written before a flush
    store.flush()
    (pack,) = os.listdir(tmp_path / f"t2-{tokenizer_digest()}")  # both blobs in one file, no scratch left
    assert pack.endswith(".pack") and store.saved == 2
    other = TokenStore(tmp_path)  # another process
    found = other.load(BLOB)
    assert found is not None and (found.tokens, found.counts.tolist(), found.binary) == (
        ["login", "token", "naïve"], [3, 1, 2], False
    )
    binary = other.load("cd" * 20)
    assert binary is not None and binary.binary and other.load("ef" * 20) is None
    assert (store.loaded, other.loaded) == (2, 2)


def test_a_pack_cut_short_or_left_half_written_is_ignored_whole(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    store.save(BLOB, ["login", "token"], [1, 1])
    store.flush()
    store.save("cd" * 20, ["session"], [4])
    store.flush()
    first, second = sorted(store.directory.iterdir(), key=lambda p: p.stat().st_mtime_ns)
    first.write_bytes(first.read_bytes()[:-3])  # a crash of the machine mid-write
    (store.directory / f".{second.name}.123.tmp").write_bytes(second.read_bytes()[:20])  # a writer killed
    other = TokenStore(tmp_path)
    assert other.load(BLOB) is None
    found = other.load("cd" * 20)
    assert found is not None and found.tokens == ["session"] and found.counts.tolist() == [4]


def _write_packs(root: Path, worker: int) -> None:
    """Save and flush 20 packs of 10 blobs each, half of them also saved by the other worker."""
    store = TokenStore(root)
    for pack in range(20):
        for n in range(10):
            shared = n % 2 == 0
            blob = f"{0 if shared else worker + 1:02x}{pack:04x}{n:02x}" + "0" * 32
            store.save(blob, [f"w{pack}", f"n{n}"], [n + 1, pack + 1])
        store.flush()


def test_packs_written_by_concurrent_processes_are_all_read(tmp_path: Path) -> None:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_write_packs, [tmp_path, tmp_path], [0, 1]))
    assert len(list((tmp_path / f"t2-{tokenizer_digest()}").iterdir())) == 40  # no scratch left
    reader = TokenStore(tmp_path)
    for worker, pack, n in itertools.product(range(2), range(20), range(10)):
        blob = f"{0 if n % 2 == 0 else worker + 1:02x}{pack:04x}{n:02x}" + "0" * 32
        found = reader.load(blob)
        assert found is not None and (found.tokens, found.counts.tolist()) == ([f"w{pack}", f"n{n}"], [n + 1, pack + 1])


def _history(root: Path) -> list[str]:
    repo = init_repo(root)
    fillers = {f"src/other{n}.py": f"def other{n}(): parse(lexer)\n" for n in range(4)}
    first = commit(repo, {**fillers, "src/login.py": "def login(token): check(token)\n", "logo.png": b"\x89PNG\x00"}, "1")
    second = commit(repo, {"src/session.py": "class Session: token = None\n"}, "2")
    return [first, second]


def test_a_second_process_tokenises_nothing_and_answers_the_same(tmp_path: Path) -> None:
    revs = _history(tmp_path / "project")
    snapshots = SnapshotStore(tmp_path / "cache", materialize=False)
    answers = []
    caches = []
    for _ in range(2):  # two fresh token caches over one store: two runs, or two xdist workers
        cache = TokenCache()
        cache.store = TokenStore(tmp_path / "tokens")
        agent = BM25Agent(token_cache=cache, files="all")  # every file read, the logo too
        for rev in revs:
            snapshot = snapshots.get(tmp_path / "project", rev)
            agent.use_snapshot(snapshot.view())
            agent.initialize(str(snapshot.root))
            answers.append([(r.files, r.scores) for r in map(agent.retrieve, ["login token", "session"])])
        caches.append(cache)
    assert [c.tokenized for c in caches] == [6, 0]  # the five text files, then session.py; the logo is stored as binary
    assert [(c.store.saved, c.store.loaded) for c in caches if c.store] == [(7, 0), (0, 7)]
    assert answers[:2] == answers[2:]
    assert answers[0][0][0] == ["src/login.py"]


def test_the_store_keeps_the_most_recently_used_packs_under_its_bound(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens", limit=64 * 4096)
    for n in range(100):
        store.save(f"{n:02x}" + "0" * 38, ["word"] * 200, np.ones(200, np.int32))
        store.flush()
    files = [p for p in (tmp_path / "tokens").rglob("*") if p.is_file() and p.name != LOG]
    used = sum(os.lstat(p).st_blocks * 512 for p in files)
    assert 0 < used <= 64 * 4096 and len(files) < 100
    assert (tmp_path / "tokens" / LOG).is_file()  # the passes, for the run summary's line
    assert store.load("63" + "0" * 38) is not None  # the last written is kept
    assert store.load("00" + "0" * 38) is None  # pruned: forgotten, counted again by the cache


@pytest.mark.slow
def test_a_second_run_reads_the_token_counts_the_first_wrote(pytester: pytest.Pytester) -> None:
    revs = _history(pytester.path / "repo")
    cases = [{"id": f"c{n}", "query": "login token", "ground_truth_files": ["src/login.py"], "base_commit": rev}
             for n, rev in enumerate(revs)]  # fmt: skip
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    runs = []
    for _ in range(2):
        result = pytester.runpytest_subprocess("--codesearch-agent=bm25", "--codesearch-runs=1", "cases.jsonl")
        result.assert_outcomes(passed=2)
        stored = sorted(p for p in (pytester.path / ".codesearch" / "tokens").rglob("*") if p.is_file())
        runs.append(([c["retrieved"] for c in read_results(pytester.path)["cases"]], stored))
        inodes = [p.stat().st_ino for p in stored]
        if len(runs) == 1:
            first = inodes
    assert runs[0] == runs[1]
    blobs = sum(int.from_bytes(path.read_bytes()[4:8], "little") for path in runs[0][1])  # a pack's entries
    assert blobs == 6  # the six source files, in a pack for each snapshot with new ones; logo.png is never read
    assert inodes == first  # read, never written again
