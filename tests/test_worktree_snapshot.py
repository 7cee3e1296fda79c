"""A case without base_commit searches the working tree, never the harness's own files."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from example_project import read_results
from gitrepo import commit, init_repo, write_files
from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.prune import mark_path
from pytest_codesearch.repo.worktree import list_worktree

LISTING_AGENT = """
import os
import tempfile
import pytest_codesearch as pcs

class Lister:
    def initialize(self, repo_path):
        self.files = sorted(
            os.path.relpath(os.path.join(d, f), repo_path) for d, _, fs in os.walk(repo_path) for f in fs
        )
    def retrieve(self, query):
        return self.files
    def reset(self):
        pass

@pcs.agent(name="lister")
def lister():
    return Lister()
"""

PROJECT = {
    "src/login.py": "def login(user, password):\n    return check_password(user, password)\n",
    "src/password.py": "def check_password(user, password):\n    return hash_password(password)\n",
    "README.md": "A project about login and passwords.\n",
    **{f"src/shop/item{i}.py": f"def price_{i}(item):\n    return item.cost * {i}\n" for i in range(8)},
}
HIDDEN = (".codesearch/", "codesearch-report/", ".pytest_cache/", ".git/", "cases.jsonl", "more/cases2.jsonl")


def _project(root: Path) -> None:
    commit(init_repo(root), dict(PROJECT), "first")
    write_files(root, PROJECT)
    case = {"query": "check password login", "ground_truth_files": ["src/password.py"]}
    (root / "cases.jsonl").write_text(json.dumps({"id": "pw", **case}) + "\n")
    (root / "more").mkdir()
    (root / "more" / "cases2.jsonl").write_text(json.dumps({"id": "pw2", **case}) + "\n")
    write_files(root, {
        ".pytest_cache/notes.md": "check password login check password login\n",
        ".codesearch/snapshots/0123abcd/src/password.py": PROJECT["src/password.py"] + "# check login\n",
    })


def test_no_agent_sees_the_harness_files_and_one_warning_says_why(pytester: pytest.Pytester) -> None:
    _project(pytester.path)
    pytester.makeconftest(LISTING_AGENT)
    for _ in ("first run", "second run: last run's cache and report are there"):
        result = pytester.runpytest("--codesearch-agent=bm25,keyword,lister", "--codesearch-runs=1")
        result.assert_outcomes(passed=6, warnings=1)
        result.stdout.fnmatch_lines(["*WorktreeWarning: cases search a working tree as it is, not a commit*"])
        assert (pytester.path / "codesearch-report" / "results.json").exists()
        records = read_results(pytester.path)["cases"]
        seen = [path for record in records for path in record["retrieved"] + record.get("dropped", [])]
        assert seen and not [path for path in seen if path.startswith(HIDDEN) or path in HIDDEN]
        lister = [r for r in records if r["agent"] == "lister"]
        assert [sorted(r["retrieved"]) for r in lister] == [sorted([*PROJECT, "conftest.py"])] * 2
        assert [r.get("dropped", []) for r in lister] == [[], []]
        assert {r["snapshot"] for r in records} == {str(pytester.path)}


QUERY_ONLY_AGENTS = """
import pytest_codesearch as pcs

@pcs.agent(name="asks")
def asks():
    return lambda query: ["src/password.py"]

@pcs.agent(name="reads")
def reads():
    return lambda query, repo_path: ["src/password.py"]
"""


@pytest.mark.parametrize(("agent", "copied"), [("asks", False), ("reads", True)])
def test_no_copy_of_the_worktree_is_made_for_an_agent_never_told_its_directory(
    pytester: pytest.Pytester, agent: str, copied: bool
) -> None:
    _project(pytester.path)
    pytester.makeconftest(QUERY_ONLY_AGENTS)
    result = pytester.runpytest(f"--codesearch-agent={agent}", "--codesearch-runs=1", "cases.jsonl")
    result.assert_outcomes(passed=1, warnings=1)
    [record] = read_results(pytester.path)["cases"]
    assert (record["retrieved"], record["metrics"]["recall"]) == (["src/password.py"], 1.0)
    assert (pytester.path / ".codesearch" / "snapshots" / "worktrees").is_dir() is copied


def test_a_worktree_listing_hides_excluded_paths_and_git(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": "a", "cache/x.py": "x", ".git/HEAD": "ref", "gold.jsonl": "{}", "sub/b.py": "b"})
    listing = list_worktree(tmp_path, {str(tmp_path / "cache"), str(tmp_path / "gold.jsonl")})
    assert listing.files == {"a.py", "sub/b.py"} and listing.hidden
    assert not list_worktree(tmp_path / "sub", set()).hidden


def test_the_worktree_copy_holds_the_visible_files_read_only_and_is_built_once(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_files(project, {"a.py": "a", "sub/b.py": "b", ".git/HEAD": "ref", "gold.jsonl": "{}"})
    store = SnapshotStore(tmp_path / "cache", exclude=[project / "gold.jsonl"])
    snapshot = store.get(project, None)
    assert snapshot.files == {"a.py", "sub/b.py"} and snapshot.read("gold.jsonl") is None
    root = store.directory(snapshot)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == ["a.py", "sub", "sub/b.py"]
    assert os.stat(root / "a.py").st_ino != os.stat(project / "a.py").st_ino  # a copy: never the user's file
    modes = {p.relative_to(root).as_posix(): p.stat().st_mode & 0o777 for p in [root, *root.rglob("*")]}
    assert modes == {".": 0o555, "a.py": 0o444, "sub": 0o555, "sub/b.py": 0o444}
    assert (project / "a.py").stat().st_mode & 0o777 == 0o644  # the user's files keep their mode
    copied = (root / "a.py").stat().st_ino
    assert store.directory(snapshot) == root and (root / "a.py").stat().st_ino == copied  # checked, not rebuilt
    assert SnapshotStore(tmp_path / "cache").get(project, None).root != root  # gold.jsonl shows: another tree
    assert SnapshotStore(tmp_path / "cache", exclude=[project / "gold.jsonl"]).get(project, None).root == root


def test_the_warning_comes_once_under_xdist(pytester: pytest.Pytester) -> None:
    _project(pytester.path)
    pytester.makeconftest(LISTING_AGENT)
    result = pytester.runpytest("--codesearch-agent=lister", "--codesearch-runs=1", "-n", "2")
    result.assert_outcomes(passed=2, warnings=1)
    assert [r["retrieved"] for r in read_results(pytester.path)["cases"]] == [sorted([*PROJECT, "conftest.py"])] * 2


def test_the_linked_worktree_copies_across_devices(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs /dev/shm on another device than the temporary directory")
    write_files(tmp_path / "project", {"a.py": "a", "sub/b.py": "b", ".git/HEAD": "ref"})
    with tempfile.TemporaryDirectory(dir=shm) as cache:
        store = SnapshotStore(Path(cache))
        root = store.directory(store.get(tmp_path / "project", None))
        assert (root / "sub" / "b.py").read_text() == "b" and not (root / ".git").exists()
        assert os.stat(root / "a.py").st_dev != os.stat(tmp_path / "project" / "a.py").st_dev


def test_a_new_linked_copy_prunes_stale_copies_of_the_same_tree(tmp_path: Path) -> None:
    project, cache = tmp_path / "project", tmp_path / "cache"
    write_files(project, {"a.py": "a", ".git/HEAD": "ref"})
    write_files(tmp_path / "other", {"b.py": "b", ".git/HEAD": "ref"})
    store = SnapshotStore(cache)
    old = store.directory(store.get(project, None))
    elsewhere = store.directory(store.get(tmp_path / "other", None))
    for copy in (old, elsewhere):  # last used long ago (a directory's last use is its mark's time)
        os.utime(mark_path(cache, f"worktrees/{copy.name}"), (0, 0))
    (project / "a.py").write_text("changed")
    later = SnapshotStore(cache)  # the next run, while the first still holds its copies
    held = later.directory(later.get(project, None))
    assert old.exists()  # in use by another store: never removed
    store.close()
    (project / "a.py").write_text("changed again")
    third = SnapshotStore(cache)  # a store lists a directory once: the run after
    new = third.directory(third.get(project, None))
    assert new not in (old, held) and (new / "a.py").read_text() == "changed again"
    assert not old.exists() and not mark_path(cache, f"worktrees/{old.name}").exists()
    assert held.exists() and elsewhere.exists()  # used just now; a copy of another tree is not pruned here
