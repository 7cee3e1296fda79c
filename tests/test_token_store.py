"""Token counts on disk by blob id: shared by runs and xdist workers, atomic, bounded (issue 12 item 4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from gitrepo import commit, init_repo

from example_project import read_results
from pytest_codesearch.agents.builtin.bm25 import BM25Agent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.agents.index.tokenstore import TokenStore, tokenizer_digest
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
    assert sorted(os.listdir(tmp_path / f"t1-{tokenizer_digest()}")) == ["ab", "cd"]  # no scratch left
    assert (store.saved, store.loaded) == (2, 2)


def test_a_truncated_file_is_read_as_absent(tmp_path: Path) -> None:
    store = TokenStore(tmp_path)
    store.save(BLOB, ["login", "token"], [1, 1])
    path = store.directory / BLOB[:2] / BLOB[2:]
    path.write_bytes(path.read_bytes()[:-3])
    assert store.load(BLOB) is None


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


def test_the_store_keeps_the_most_recently_used_files_under_its_bound(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens", limit=64 * 4096)
    for n in range(100):
        store.save(f"{n:02x}" + "0" * 38, ["word"] * 200, np.ones(200, np.int32))
    files = [p for p in (tmp_path / "tokens").rglob("*") if p.is_file()]
    used = sum(os.lstat(p).st_blocks * 512 for p in files)
    assert 0 < used <= 64 * 4096 and len(files) < 100
    assert store.load("63" + "0" * 38) is not None  # the last written is kept


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
    assert runs[0] == runs[1] and len(runs[0][1]) == 6  # the six source files; logo.png is never read
    assert inodes == first  # read, never written again
