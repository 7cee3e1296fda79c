"""The same answer scores the same whoever gives it: scoring reads a snapshot through its one reader."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from example_project import read_results
from gitrepo import commit, init_repo
from pytest_codesearch.agents.builtin.keyword import KeywordAgent
from pytest_codesearch.agents.index.tokencache import TokenCache
from pytest_codesearch.repo import Snapshot, SnapshotStore, reader
from pytest_codesearch.repo.reader import DirectoryReader
from pytest_codesearch.agents.index.snapshot_files import git_blob_id

TWO_AGENTS = """
import pytest_codesearch as pcs
from pytest_codesearch.agents.contract import Span

def answer(query):
    if query == "alpha beta gamma":
        return pcs.RetrievalResult(files=["src/c.py"])
    return pcs.RetrievalResult(files=["src/a.py"], spans=[Span("src/a.py", 4, 4)])

class OnDisk:
    def initialize(self, repo_path):
        pass
    def retrieve(self, query):
        return answer(query)
    def reset(self):
        pass

class FromBlobs(OnDisk):
    needs_directory = False

@pcs.agent(name="disk")
def disk():
    return OnDisk()

@pcs.agent(name="blobs")
def blobs():
    return FromBlobs()
"""

SOURCES = {
    "src/a.py": "def f():\n    x = 1\n    y = 2\n    return x + y\n",
    "src/b.py": "# alpha\n",
    "src/c.py": "# alpha beta\n",
}


def _project(root: Path) -> None:
    repo = init_repo(root / "repo")
    first = commit(repo, dict(SOURCES), "first")
    second = commit(repo, {"README.md": "two trees: each case meets a snapshot nobody has written yet\n"}, "second")
    cases = [
        {"id": "span", "query": "add two numbers", "base_commit": second,
         "ground_truth_files": [{"path": "src/a.py", "lines": [[2, 2]]}]},
        {"id": "miss", "query": "alpha beta gamma", "base_commit": first, "ground_truth_files": ["src/b.py"]},
    ]
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(case) for case in cases]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n")
    (root / "bench.yaml").write_text("evaluation:\n  randomize: false\n")
    (root / "conftest.py").write_text(TWO_AGENTS)


@pytest.mark.parametrize("order", ["disk,blobs", "blobs,disk"])
def test_the_same_answer_scores_the_same_from_any_agent_in_any_order(pytester: pytest.Pytester, order: str) -> None:
    _project(pytester.path)
    seen: dict[str, set[str]] = {"span": set(), "miss": set()}
    for _ in ("fresh cache", "warm cache"):
        result = pytester.runpytest(f"--codesearch-agent={order}", "--codesearch-config=bench.yaml")
        result.assert_outcomes(passed=4)
        for record in read_results(pytester.path)["cases"]:
            scored = {"metrics": record["metrics"], "failure_category": record.get("failure_category")}
            seen[record["id"]].add(json.dumps(scored, sort_keys=True))
    assert [len(records) for records in seen.values()] == [1, 1]
    span = json.loads(next(iter(seen["span"])))
    assert (span["metrics"]["function_hit_rate"], span["metrics"]["quality_score"]) == (1.0, pytest.approx(0.6))
    assert json.loads(next(iter(seen["miss"])))["failure_category"] == "distractor_overlap"


def test_a_commit_snapshot_reads_blobs_without_its_directory(tmp_path: Path) -> None:
    head = commit(init_repo(tmp_path / "repo"), dict(SOURCES), "first")
    snapshot = SnapshotStore(tmp_path / "cache", materialize=False).get(tmp_path / "repo", head)
    assert not snapshot.root.exists()
    assert snapshot.read("src/a.py") == SOURCES["src/a.py"].encode()
    assert snapshot.read("src") is None
    assert snapshot.read("missing.py") is None
    view = snapshot.view()
    assert view.tree_id == snapshot.tree_id
    assert [(f.path, f.blob, f.size) for f in view.files] == [
        (path, git_blob_id(text.encode()), len(text)) for path, text in sorted(SOURCES.items())
    ]


VIEWING_AGENT = """
import json
import pytest_codesearch as pcs

class Viewer:
    needs_directory = False
    calls = []
    def use_snapshot(self, view):
        assert isinstance(view, pcs.SnapshotView)
        self.view = view
        self.calls.append("use_snapshot")
    def initialize(self, repo_path):
        assert repo_path == str(self.view.root)
        self.calls.append("initialize")
    def retrieve(self, query):
        hits = [f.path for f in self.view.files if query.encode() in self.view.read(f.path)]
        listing = [[f.path, f.blob, f.size] for f in self.view.files]
        seen = {"tree": self.view.tree_id, "files": listing, "calls": self.calls}
        with open("seen.json", "w") as stream:
            json.dump(seen, stream)
        return hits
    def reset(self):
        pass

@pcs.agent(name="viewer")
def viewer():
    return Viewer()
"""


def test_an_agent_with_the_hook_gets_the_view_before_initialize(pytester: pytest.Pytester) -> None:
    head = commit(init_repo(pytester.path / "repo"), dict(SOURCES), "first")
    case = {"id": "c", "query": "alpha beta", "base_commit": head, "ground_truth_files": ["src/c.py"]}
    (pytester.path / "cases.jsonl").write_text(json.dumps({"metadata": {"repo": "repo"}}) + "\n" + json.dumps(case))
    pytester.makeconftest(VIEWING_AGENT)
    result = pytester.runpytest("--codesearch-agent=viewer", "--codesearch-runs=1")
    result.assert_outcomes(passed=1)
    [record] = read_results(pytester.path)["cases"]
    assert record["retrieved"] == ["src/c.py"]
    tree = record["snapshot"]
    assert not (pytester.path / ".codesearch" / "snapshots" / tree).exists()  # never written to disk
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen["tree"] == tree
    assert seen["calls"] == ["use_snapshot", "initialize"]
    assert seen["files"] == [
        [path, git_blob_id(text.encode()), len(text)] for path, text in sorted(SOURCES.items())
    ]


def test_built_in_agents_read_the_snapshot_not_the_disk(tmp_path: Path) -> None:
    head = commit(init_repo(tmp_path / "repo"), dict(SOURCES), "first")
    snapshot = SnapshotStore(tmp_path / "cache").get(tmp_path / "repo", head)
    (snapshot.root / "src" / "b.py").write_text("# tampered zebra\n")  # the directory is no reference
    (snapshot.root / "src" / "extra.py").write_text("# zebra\n")
    agent = KeywordAgent(token_cache=TokenCache())
    agent.initialize(str(snapshot.root))
    assert agent.retrieve("zebra").files == []
    assert sorted(agent.retrieve("alpha").files) == ["src/b.py", "src/c.py"]  # b.py as committed


def _read_in_child(snapshot: Snapshot, results: Any) -> None:
    data = snapshot.read("src/b.py")  # one the parent did not read (it keeps the blobs it read last)
    results.put((data, sorted({pid for pid, _ in reader._REPOSITORIES}) == [os.getpid()]))


def test_a_forked_process_reads_through_its_own_repository(tmp_path: Path) -> None:
    head = commit(init_repo(tmp_path / "repo"), dict(SOURCES), "first")
    snapshot = SnapshotStore(tmp_path / "cache", materialize=False).get(tmp_path / "repo", head)
    assert snapshot.read("src/a.py") == SOURCES["src/a.py"].encode()  # the parent's handle is open
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_read_in_child, args=(snapshot, results))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert results.get(timeout=5) == (SOURCES["src/b.py"].encode(), True)


def test_a_directory_reader_reads_only_listed_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a")
    (tmp_path / "secret.jsonl").write_text("{}")
    files = DirectoryReader(tmp_path, frozenset({"a.py", "gone.py"}))
    assert (files.read("a.py"), files.read("secret.jsonl"), files.read("gone.py")) == (b"a", None, None)
    assert [(f.path, f.blob) for f in files.files()] == [("a.py", git_blob_id(b"a"))]
    assert files.paths() == ("a.py", "gone.py")


def test_the_blobs_read_last_are_kept_within_their_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bm25 reads a case's best files twice (tokens, then outlines): the second read comes from memory."""
    repo = init_repo(tmp_path / "repo")
    files = {"a.py": b"a" * 100, "b.py": b"b" * 100, "big.py": b"c" * 300, "c.py": b"d" * 100}
    tree = repo[commit(repo, files)].tree  # type: ignore[attr-defined]
    ids = {path: str(tree[path].id) for path in files}
    git_dir = str(tmp_path / "repo" / ".git")
    monkeypatch.setattr(reader, "RECENT_LARGEST", 200)
    monkeypatch.setattr(reader, "_RECENT", type(reader._RECENT)())
    monkeypatch.setattr(reader, "_recent_bytes", [0])
    monkeypatch.setattr(reader, "RECENT_BYTES", 250)
    for path in ["a.py", "b.py", "big.py", "a.py", "c.py"]:
        assert reader.read_blob(git_dir, ids[path]) == files[path]
    assert [blob for _, blob in reader._RECENT] == [ids["a.py"], ids["c.py"]]  # b.py dropped first, big.py never kept
    assert reader._recent_bytes == [200]
    assert reader.read_blob(git_dir, "0" * 40) is None and reader.read_blob(git_dir, ids["a.py"]) == files["a.py"]


def test_a_blob_is_read_from_the_object_database_and_anything_else_reads_as_none(tmp_path: Path) -> None:
    """A blob gives its bytes, loose or packed; a tree, a missing object or a malformed id give None."""
    repo = init_repo(tmp_path / "repo")
    tree = repo[commit(repo, {"pkg/a.py": b"alpha\n"})].tree  # type: ignore[attr-defined]
    git_dir = str(tmp_path / "repo" / ".git")
    assert reader.read_blob(git_dir, str(tree["pkg/a.py"].id)) == b"alpha\n"
    assert reader.read_blob(git_dir, str(tree["pkg"].id)) is None  # a tree
    assert reader.read_blob(git_dir, "1" * 40) is None and reader.read_blob(git_dir, "not an id") is None
    later = str(repo.create_blob(b"written after the database was opened\n"))
    assert reader.read_blob(git_dir, later) == b"written after the database was opened\n"
