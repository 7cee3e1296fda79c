"""The snapshot cache is bounded: least recently used first, never a directory in use (issue 12 item 2)."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest
from example_project import read_results
from gitrepo import commit, init_repo

from pytest_codesearch.settings.types import ByteSize, Origin, SettingsError
from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.prune import Holds, mark_path, own_bytes, prune
from pytest_codesearch.repo.prunelog import Pruned, pruned_since

BIG = 64 * 1024


def _history(root: Path, commits: int) -> list[str]:
    """Return commits that each replace one large file (``big.txt``) and keep a shared small one."""
    repo = init_repo(root)
    ids = [commit(repo, {"src/pkg/shared.py": "shared\n", "big.txt": b"%d" % 0 + b"x" * BIG}, "c0")]
    for n in range(1, commits):
        ids.append(commit(repo, {"big.txt": b"%d" % n + b"x" * BIG}, f"c{n}"))
    return ids


def _cache_bytes(cache: Path) -> int:
    """Return the bytes of the snapshot directories and blob files, each inode once."""
    seen: set[int] = set()
    total = 0
    for folder, names, files in os.walk(cache):
        names[:] = [n for n in names if not n.startswith(".")]
        for name in [*files, *names, "."]:
            status = os.lstat(os.path.join(folder, name))
            if status.st_ino not in seen and not name.startswith(".") and not name.endswith(".json"):
                seen.add(status.st_ino)
                total += status.st_blocks * 512
    return total


def test_a_small_bound_prunes_least_recently_used_and_keeps_what_is_held(tmp_path: Path) -> None:
    ids = _history(tmp_path / "project", 10)
    cache = tmp_path / "cache"
    store = SnapshotStore(cache, materialize=False, size_limit=400 * 1024)
    snapshots = [store.get(tmp_path / "project", rev) for rev in ids]
    for snapshot in snapshots:
        store.directory(snapshot)
    final = store.prune()
    held = {s.tree_id for s in snapshots[-4:]}  # a store holds the last four directories it handed out
    kept = {p.name for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")} - {"blobs"}
    assert held <= kept and len(kept) < len(snapshots)
    assert store.pruned.directories == len(snapshots) - len(kept) and final.freed <= store.pruned.freed
    assert _cache_bytes(cache) <= 400 * 1024
    blobs = {os.stat(p).st_ino for p in (cache / "blobs").iterdir()}
    assert {os.stat(cache / name / "big.txt").st_ino for name in kept} <= blobs
    for snapshot, rev in zip(snapshots, ids):  # a pruned directory is rebuilt, with the same files
        root = store.directory(snapshot)
        assert (root / "big.txt").read_bytes() == b"%d" % ids.index(rev) + b"x" * BIG


def test_a_directory_another_process_holds_is_never_pruned(tmp_path: Path) -> None:
    ids = _history(tmp_path / "project", 3)
    cache = tmp_path / "cache"
    store = SnapshotStore(cache, materialize=False, size_limit=None)
    first = store.get(tmp_path / "project", ids[0])
    store.directory(first)
    store.close()
    other = Holds()  # its own open file description: the same lock conflict as another process
    other.hold(cache, str(first.tree_id))
    assert prune(cache, 1) == Pruned()
    assert (cache / str(first.tree_id) / "big.txt").exists()
    other.release()
    removed = prune(cache, 1)
    assert (removed.directories, removed.blobs) == (1, 2)
    assert not (cache / str(first.tree_id)).exists() and not os.listdir(cache / "blobs")
    assert pruned_since(cache, 0) == removed


def _locked(mark: Path) -> bool:
    """Return True when a lock is held on ``mark`` (by ``Holds``: another open file description)."""
    fd = os.open(mark, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def test_holding_a_directory_again_touches_its_mark_and_keeps_its_lock(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    holds = Holds(keep=2)
    holds.hold(cache, "worktrees/abc")
    mark = mark_path(cache, "worktrees/abc")
    os.utime(mark, (0, 0))
    holds.hold(cache, "worktrees/abc")  # again, as every case of a snapshot does: its use is recorded
    assert mark.stat().st_mtime > 0 and _locked(mark)
    holds.hold(cache, "t1")
    assert _locked(mark)
    holds.hold(cache, "t2")  # past keep=2: the least recently held, worktrees/abc, is released
    assert not _locked(mark) and _locked(mark_path(cache, "t1"))
    holds.release()
    assert not _locked(mark_path(cache, "t2"))


def test_directories_are_pruned_once_they_take_more_than_the_blobs(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    deep = {f"a/b/c/d/e/f/g/h/{n}.py": "same\n" for n in range(3)}
    ids = [commit(repo, {**deep, "v.py": b"%d\n" % n}, f"c{n}") for n in range(12)]
    cache = tmp_path / "cache"
    store = SnapshotStore(cache, materialize=False, size_limit=None)
    for rev in ids:
        store.directory(store.get(tmp_path / "project", rev))
    store.close()
    prune(cache, None)
    directories = [p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "blobs"]
    blob_bytes = sum(os.lstat(p).st_blocks * 512 for p in (cache / "blobs").iterdir())
    sizes = [int(mark_path(cache, p.name).read_bytes()) for p in directories]
    assert sizes == [own_bytes(p) for p in directories]
    assert 0 < sum(sizes) <= blob_bytes < sum(sizes) + sizes[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2GB", 2 << 30), ("500MB", 500 << 20), ("1.5g", 3 << 29), ("64MiB", 64 << 20), ("unlimited", None),
     ("2097152", 2 << 20), ("2097152b", 2 << 20)],
)  # fmt: skip
def test_cache_size_values(text: str, expected: int | None) -> None:
    assert ByteSize().parse(text, Origin("--codesearch-cache-size", Path("."))) == expected


@pytest.mark.parametrize("text", ["2 parsecs", "1KB", "-5MB", "", "2097152ib", "2mbb"])
def test_bad_cache_sizes_name_the_option(text: str) -> None:
    with pytest.raises(SettingsError, match="^--codesearch-cache-size: "):
        ByteSize().parse(text, Origin("--codesearch-cache-size", Path(".")))


DISK_AGENT = """
import os
import pytest_codesearch as pcs

class Grep:
    needs_directory = True
    def initialize(self, repo_path):
        self.root = repo_path
    def retrieve(self, query):
        hits = []
        for folder, _, files in sorted(os.walk(self.root)):
            for name in sorted(files):
                with open(os.path.join(folder, name), "rb") as handle:
                    if query.encode() in handle.read():
                        hits.append(os.path.relpath(os.path.join(folder, name), self.root))
        return pcs.RetrievalResult(files=hits)
    def reset(self):
        pass

@pcs.agent(name="grep")
def grep():
    return Grep()
"""


@pytest.mark.slow
def test_a_bounded_run_under_xdist_prunes_and_answers_as_an_unbounded_one(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "repo")
    cases = []
    for n in range(16):
        rev = commit(repo, {"big.txt": b"v%d " % n + b"x" * 150_000, f"src/m{n}.py": f"marker{n % 3}\n"}, f"c{n}")
        cases.append({"id": f"c{n}", "query": f"marker{n % 3}", "ground_truth_files": ["big.txt"], "base_commit": rev})
    pytester.makeconftest(DISK_AGENT)
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    answers = {}
    for size in ("unlimited", "1MB"):
        cache = f"cache-{size}"
        result = pytester.runpytest(
            "--codesearch-agent=grep", "--codesearch-runs=1", f"--codesearch-cache-size={size}",
            f"--codesearch-cache-dir={cache}", "-n", "2", "--dist", "loadgroup", "cases.jsonl",
        )  # fmt: skip
        result.assert_outcomes(passed=16)
        answers[size] = {c["id"]: c["retrieved"] for c in read_results(pytester.path)["cases"]}
        pruned = [line for line in result.outlines if "snapshot cache" in line]
        if size == "unlimited":
            assert pruned == []
        else:
            assert len(pruned) == 1 and "(bound 1 MiB): removed " in pruned[0] and " MiB" in pruned[0]
            kept = [p for p in (pytester.path / cache / "snapshots").iterdir() if len(p.name) == 40]
            assert len(kept) < 16
    assert answers["1MB"] == answers["unlimited"]
    assert answers["1MB"]["c4"] == ["src/m1.py", "src/m4.py"]


def test_a_run_releases_the_directories_it_held(pytester: pytest.Pytester) -> None:
    """Once a run in this process ends, nothing it searched is held: a later prune may remove it all."""
    repo = init_repo(pytester.path / "repo")
    cases = [
        {"id": f"c{n}", "query": "marker", "ground_truth_files": ["m.py"], "base_commit": commit(repo, {"m.py": f"marker {n}\n"}, f"c{n}")}
        for n in range(3)
    ]  # fmt: skip
    pytester.makeconftest(DISK_AGENT)
    lines = [json.dumps({"metadata": {"repo": "repo"}})] + [json.dumps(c) for c in cases]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    pytester.runpytest("--codesearch-agent=grep", "--codesearch-runs=1", "cases.jsonl").assert_outcomes(passed=3)
    cache = pytester.path / ".codesearch" / "snapshots"
    assert len([p for p in cache.iterdir() if len(p.name) == 40 and p.is_dir()]) == 3
    assert prune(cache, 1).directories == 3


def test_the_pruning_log_keeps_its_newer_half_past_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_codesearch.repo import prunelog as prune_module

    monkeypatch.setattr(prune_module, "LOG_BYTES", 1000)
    ids = _history(tmp_path / "project", 2)
    cache = tmp_path / "cache"
    store = SnapshotStore(cache, materialize=False, size_limit=None)
    for _ in range(40):  # each pass removes the one directory, each next one builds it again
        store.directory(store.get(tmp_path / "project", ids[0]))
        store.close()
        assert prune(cache, 1).directories == 1
    log = (cache / prune_module.LOG).read_text().splitlines()
    assert 1000 // 2 < sum(len(line) + 1 for line in log) <= 1000 + len(log[-1]) + 1
    assert pruned_since(cache, 0).directories == len(log) < 40
