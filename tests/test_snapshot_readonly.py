"""An agent cannot change what later agents see (issue 18 item 2).

Snapshot directories are read-only (files 0444, folders 0555) and sealed; these tests run as root too,
where permissions stop nothing, so the seal is what they exercise: an agent that writes, removes or adds
a file in its snapshot gets ``error`` naming the file, the directory (and a blob written through its
hard link) is rebuilt, and an innocent agent in the same run and the next sees the commit as it is.
A working-tree case hands agents a copy, so a write never reaches the user's files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pygit2
import pytest
from shared_blob import two_snapshots_sharing_a_blob
from gitrepo import commit, init_repo, write_files

from example_project import read_results
from pytest_codesearch.repo import SnapshotStore

AGENTS = """
import os
import pytest_codesearch as pcs

class Lister:
    def initialize(self, repo_path):
        self.files = sorted(
            os.path.relpath(os.path.join(d, f), repo_path).replace(os.sep, "/")
            for d, _, fs in os.walk(repo_path) for f in fs
        )
        self.texts = {}
        for f in self.files:
            with open(os.path.join(repo_path, f)) as stream:
                self.texts[f] = stream.read()
    def retrieve(self, query):
        return [f for f in self.files if query in self.texts[f]]
    def reset(self):
        pass

class Vandal(Lister):
    def initialize(self, repo_path):
        with open(os.path.join(repo_path, "src", "login.py"), "a") as stream:  # root ignores 0444
            stream.write("# vandalised\\n")
        os.remove(os.path.join(repo_path, "src", "password.py"))
        with open(os.path.join(repo_path, "planted.py"), "w") as stream:
            stream.write("password\\n")
        super().initialize(repo_path)

@pcs.agent(name="lister")
def lister():
    return Lister()

@pcs.agent(name="vandal")
def vandal():
    return Vandal()
"""
PROJECT = {
    "src/login.py": "def login(user, password):\n    return check(password)\n",
    "src/password.py": "def check(password):\n    return hash(password)\n",
    "README.md": "login docs\n",
}


def _project(root: Path, *, base_commit: bool) -> None:
    head = commit(init_repo(root / "project"), dict(PROJECT), "first")
    case = {"id": "pw", "query": "password", "ground_truth_files": ["src/password.py"], "repo": "project"}
    if base_commit:
        case["base_commit"] = head
    else:
        write_files(root / "project", PROJECT)
    (root / "cases.jsonl").write_text(json.dumps(case) + "\n")


def _by_agent(root: Path) -> dict[str, dict[str, object]]:
    return {record["agent"]: record for record in read_results(root)["cases"]}


VANDAL_ERROR = (
    "the agent changed its snapshot directory, which is read-only:"
    " added 'planted.py', wrote 'src/login.py', removed 'src/password.py'"
    " (it is rebuilt for later agents)"
)


@pytest.mark.parametrize(
    "dist", [[], ["-n", "2", "--dist", "loadgroup"], ["--codesearch-isolate=process"]], ids=["serial", "xdist", "process"]
)
def test_an_agent_that_writes_its_snapshot_is_an_error_and_later_agents_see_the_commit(
    pytester: pytest.Pytester, dist: list[str]
) -> None:
    _project(pytester.path, base_commit=True)
    pytester.makeconftest(AGENTS)
    result = pytester.runpytest("--codesearch-agent=vandal,lister", "--codesearch-runs=1", *dist)
    result.assert_outcomes(passed=1, failed=1)
    records = _by_agent(pytester.path)
    assert (records["vandal"]["status"], records["vandal"]["error"]) == ("error", VANDAL_ERROR)
    assert records["lister"]["status"] == "ok"
    assert records["lister"]["retrieved"] == ["src/login.py", "src/password.py"]
    result = pytester.runpytest("--codesearch-agent=lister", "--codesearch-runs=1", *dist)  # the next run
    result.assert_outcomes(passed=1)
    assert _by_agent(pytester.path)["lister"]["retrieved"] == ["src/login.py", "src/password.py"]
    assert _by_agent(pytester.path)["lister"]["metrics"]["recall"] == 1.0


def test_a_working_tree_case_never_exposes_the_users_files(pytester: pytest.Pytester) -> None:
    _project(pytester.path, base_commit=False)
    pytester.makeconftest(AGENTS)
    result = pytester.runpytest("--codesearch-agent=vandal", "--codesearch-runs=1")
    result.assert_outcomes(failed=1)
    assert _by_agent(pytester.path)["vandal"]["error"] == VANDAL_ERROR
    project = pytester.path / "project"
    assert {p: (project / p).read_text() for p in PROJECT} == PROJECT and not (project / "planted.py").exists()


def test_a_blob_written_through_its_link_is_rewritten_for_every_snapshot(tmp_path: Path) -> None:
    store, one, two, roots = two_snapshots_sharing_a_blob(tmp_path)
    assert os.stat(roots[0] / "a.py").st_ino == os.stat(roots[1] / "a.py").st_ino
    assert oct(os.stat(roots[0]).st_mode & 0o777) == oct(0o555)
    with open(roots[0] / "a.py", "w") as stream:  # as root: the write goes through to the shared blob
        stream.write("corrupt\n")
    assert [change.describe() for change in store.check(one)] == ["wrote 'a.py'"]
    assert store.check(one) == []  # removed: nothing handed out is left to check
    for snapshot in (one, two):
        root = store.directory(snapshot)
        assert (root / "a.py").read_text() == "shared\n"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to become another user")
def test_an_agent_that_owns_the_cache_but_is_not_root_cannot_write_its_snapshot() -> None:
    import shutil
    import tempfile

    from pytest_codesearch.repo.seal import remove_tree

    place = Path(tempfile.mkdtemp(prefix="codesearch-readonly-"))  # not under tmp_path: 0700 for root only
    try:
        head = commit(init_repo(place / "project"), {"src/a.py": "a\n"}, "first")
        for folder, names, files in os.walk(place):  # the user who runs the benchmark owns it all
            for name in [".", *names, *files]:
                os.chown(os.path.join(folder, name), 65534, 65534)
        pid = os.fork()
        if pid == 0:  # the child becomes that user, builds the snapshot, then tries what an agent might
            code = 3
            try:
                os.setgid(65534)
                os.setuid(65534)
                for level in (pygit2.enums.ConfigLevel.GLOBAL, pygit2.enums.ConfigLevel.XDG):
                    pygit2.settings.search_path[level] = str(place)  # root's ~/.gitconfig is unreadable now
                store = SnapshotStore(place / "cache", materialize=False)
                snapshot = store.get(place / "project", head)
                root = store.directory(snapshot)
                code = 0
                for attempt in (lambda: open(root / "src" / "a.py", "a"), lambda: open(root / "new.py", "w"),
                                lambda: os.remove(root / "src" / "a.py"), lambda: os.mkdir(root / "dir")):
                    try:
                        attempt()
                    except PermissionError:
                        continue
                    code = 1
                code = code or (2 if store.check(snapshot) else 0)
            except BaseException as exc:
                os.write(2, repr(exc).encode())
            finally:
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # built, and every attempt was refused
    finally:
        remove_tree(place)
        shutil.rmtree(place, ignore_errors=True)
