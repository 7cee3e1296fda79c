"""Reading history with pygit2: the tree diff, renames, shallow clones, and the errors users see."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest
from gitrepo import EPOCH, GITLINK, SYMLINK, Entry, commit, init_repo, raw_tree, signature

from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset
from pytest_codesearch.mining.walk import (
    REGULAR,
    TREE,
    Change,
    MiningError,
    TreeDiffer,
    decode_path,
    find_renames,
    newest_first,
    open_repository,
    resolve_commit,
    shallow_boundary,
    walk,
)


def _tree(repo: pygit2.Repository, commit_id: str) -> bytes:
    return repo[pygit2.Oid(hex=commit_id)].peel(pygit2.Commit).tree_id.raw


def _summary(changes: list[Change]) -> list[tuple[str, int, int]]:
    return [(change.path.decode(), change.old_mode, change.new_mode) for change in changes]


def test_tree_diff_lists_changed_files_at_any_depth(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a/b/c.py": "1", "a/b/d.py": "1", "a/e.py": "1", "f.py": "1", "g/h.py": "1", "k": "1"})
    second = commit(repo, {"a/b/c.py": "2", "a/new/x.py": "1", "g/h.py": None, "f.py": None, "f.py/inner.py": "1",
                           "k": Entry(b"f.py", SYMLINK), "m": Entry(commit="3" * 40, mode=GITLINK)})  # fmt: skip
    changes = TreeDiffer(repo).diff(_tree(repo, first), _tree(repo, second))
    blob, link = int(REGULAR | 0o644), int(SYMLINK)
    assert _summary(changes) == [
        ("a/b/c.py", blob, blob),
        ("a/new/x.py", 0, blob),
        ("f.py", blob, 0),
        ("f.py/inner.py", 0, blob),
        ("g/h.py", blob, 0),
        ("k", blob, link),
        ("m", 0, int(GITLINK)),
    ]
    assert changes[0].old_id == repo[pygit2.Oid(hex=first)].peel(pygit2.Commit).tree["a/b/c.py"].id.raw


def test_tree_diff_of_equal_trees_and_against_nothing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a/b.py": "1", "c.py": "1"})
    differ = TreeDiffer(repo)
    assert differ.diff(_tree(repo, first), _tree(repo, first)) == []
    assert _summary(differ.diff(None, _tree(repo, first))) == [("a/b.py", 0, 0o100644), ("c.py", 0, 0o100644)]
    assert TREE == 0o040000


def test_missing_tree_raises_key_error(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a/b.py": "1"})
    bogus = raw_tree(repo, [(0o040000, b"a", "4" * 40)])
    with pytest.raises(KeyError):
        TreeDiffer(repo).diff(_tree(repo, first), bogus.raw)


@pytest.mark.parametrize(
    ("raw", "path"),
    [(b"src/app.py", "src/app.py"), (b"caf\xc3\xa9.py", "café.py"), (b"caf\xe9.py", None), (b"../x.py", None),
     (b"a/../b", None), (b"a/./b", None), (b"a//b", None), (b"/abs", None), (b".git/config", None),
     (b"x/.GIT/hooks", None), (b".git. /x", None), (b"a\\b.py", None), (b"C:x.py", None), (b".gitignore", ".gitignore"),
     (b"..hidden", "..hidden")],
)  # fmt: skip
def test_decode_path_refuses_what_a_snapshot_cannot_hold(raw: bytes, path: str | None) -> None:
    assert decode_path(raw) == path


def test_renames_and_the_rename_limit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    body = "".join(f"line {n}\n" for n in range(30))
    first = commit(repo, {f"old{n}.py": body + str(n) for n in range(4)})
    moves = {**{f"old{n}.py": None for n in range(4)}, **{f"new{n}.py": body + f"{n}!" for n in range(4)}}
    second = commit(repo, moves)
    paths = [f"old{n}.py".encode() for n in range(4)] + [f"new{n}.py".encode() for n in range(4)]
    renames, limited = find_renames(repo, _tree(repo, first), _tree(repo, second), 10, paths)
    assert renames == {f"new{n}.py".encode(): f"old{n}.py".encode() for n in range(4)} and not limited
    renames, limited = find_renames(repo, _tree(repo, first), _tree(repo, second), 2, paths)
    assert len(renames) < 4 and limited


def test_renames_are_looked_for_in_the_deepest_common_directory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    body = "".join(f"line {n}\n" for n in range(30))
    first = commit(repo, {"src/pkg/a.py": body, "src/other/b.py": body + "b"})
    second = commit(repo, {"src/pkg/a.py": None, "src/pkg/sub/c.py": body + "!", "src/other/b.py": None})
    old, new = _tree(repo, first), _tree(repo, second)
    renames, _ = find_renames(repo, old, new, 10, [b"src/pkg/a.py", b"src/pkg/sub/c.py"])
    assert renames == {b"src/pkg/sub/c.py": b"src/pkg/a.py"}
    renames, _ = find_renames(repo, old, new, 10, [b"src/pkg/a.py", b"src/other/b.py", b"src/pkg/sub/c.py"])
    assert set(renames.values()) <= {b"src/pkg/a.py", b"src/other/b.py"} and len(renames) == 1
    renames, _ = find_renames(repo, old, new, 10, [b"src/gone/x.py", b"src/gone/y.py"])  # no such folder
    assert len(renames) == 1


def test_renamed_files_are_not_listed_as_added(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    body = "".join(f"def f{n}():\n    return {n}\n" for n in range(20))
    commit(repo, {"src/a.py": body, "src/b.py": body + "# b\n", "src/c.py": "C = 1\n"}, "Start")
    moves = {"src/a.py": None, "src/moved/a.py": body, "src/b.py": None, "src/moved/b.py": body + "# b2\n"}
    commit(repo, {**moves, "src/c.py": "C = 2\n", "src/d.py": "D = 1\n"}, "Move the functions into the moved package")
    stats = generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(rename_limit=1), workers=1)
    case = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[1])
    # a.py moved as it was: no line changed; b.py is diffed against moved/b.py, as git diff -M pairs them
    assert case["ground_truth_files"] == [
        "src/a.py", {"path": "src/b.py", "lines": [[41, 41]]}, {"path": "src/c.py", "lines": [[1, 1]]}
    ]  # fmt: skip
    assert case["added_files"] == ["src/d.py"]  # moved/a.py: same blob; moved/b.py: libgit2's similarity
    assert stats.rename_limit_hits == 1  # three additions, limit 1: recorded (PITFALLS 25)


def test_paths_that_are_not_utf8_are_left_out_and_counted(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    one, two = repo.create_blob(b"1"), repo.create_blob(b"2")
    sig = pygit2.Signature("Ada", "ada@example.com", 1_700_000_000, 0)
    before = raw_tree(repo, [(0o100644, b"caf\xe9.py", one), (0o100644, b"ok.py", one)])
    after = raw_tree(repo, [(0o100644, b"caf\xe9.py", two), (0o100644, b"ok.py", two)])
    first = repo.create_commit("HEAD", sig, sig, "Start", before, [])
    repo.create_commit("HEAD", sig, sig, "Change both modules at once", after, [first])
    stats = generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(), workers=1)
    case = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[1])
    assert case["ground_truth_files"] == [{"path": "ok.py", "lines": [[1, 1]]}]
    assert stats.excluded_files == {"unsafe or non-UTF-8 path": 1}


def test_shallow_boundary_ids_are_read_from_the_shallow_file(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a.py": "1"})
    second = commit(repo, {"a.py": "2"})
    assert shallow_boundary(repo) == frozenset()
    (tmp_path / "r" / ".git" / "shallow").write_text(f"{second}\n")
    reopened = pygit2.Repository(str(tmp_path / "r"))
    assert shallow_boundary(reopened) == {second}
    assert reopened[pygit2.Oid(hex=second)].peel(pygit2.Commit).parent_ids == []  # looks like a root (PITFALLS 19)
    assert first


def test_open_repository_errors(tmp_path: Path) -> None:
    with pytest.raises(MiningError, match=r"missing: no such directory \(give the repository"):
        open_repository(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(MiningError, match=r"plain: not a git repository \(name the directory that holds .git\)"):
        open_repository(tmp_path / "plain")
    init_repo(tmp_path / "empty")
    with pytest.raises(MiningError, match="empty: the repository has no commits yet"):
        open_repository(tmp_path / "empty")
    (tmp_path / "empty" / "sub").mkdir()
    inside = rf"sub: not a git repository \(.*; it lies inside the repository {tmp_path}/empty\)"
    with pytest.raises(MiningError, match=inside):
        open_repository(tmp_path / "empty" / "sub")


def test_resolve_commit_errors(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a.py": "1"})
    assert str(resolve_commit(repo, first[:8]).id) == first
    with pytest.raises(MiningError, match=r"unknown revision 'nope': no commit, branch or tag has that name"):
        resolve_commit(repo, "nope")
    with pytest.raises(MiningError, match=r"unknown revision 'HEAD\^\{tree\}': it names a tree, not a commit"):
        resolve_commit(repo, "HEAD^{tree}")


def test_generate_errors_are_mining_errors(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    commit(repo, {"a.py": "1"})
    with pytest.raises(MiningError, match=r"out.txt: a gold set must end with .jsonl or .json"):
        generate_goldset(tmp_path / "r", tmp_path / "out.txt", FilterConfig())
    (tmp_path / "file").write_text("")
    with pytest.raises(MiningError, match=r"file/out.jsonl: cannot write the gold set here"):
        generate_goldset(tmp_path / "r", tmp_path / "file" / "out.jsonl", FilterConfig())
    with pytest.raises(MiningError, match=r"unknown revision 'v9'"):
        generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(), rev="v9")
    with pytest.raises(MiningError, match="workers must be at least 1, got 0"):
        generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(), workers=0)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file", "r"]


def test_missing_objects_are_a_counted_skip(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    commit(repo, {"src/a.py": "A = 1\n"}, "Start")
    lost = commit(repo, {"src/lost/b.py": "B = 1\n", "src/a.py": "A = 2\n"}, "Add the lost module")
    commit(repo, {"src/lost/b.py": "B = 2\n"}, "Change the lost module in every way")
    subtree = repo[pygit2.Oid(hex=lost)].peel(pygit2.Commit).tree["src/lost"].id
    Path(repo.path, "objects", str(subtree)[:2], str(subtree)[2:]).unlink()
    stats = generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(), workers=1)
    assert stats.dropped == {"missing objects": 2, "root commit": 1}  # both commits that read the lost tree


def test_unreadable_history_is_a_mining_error(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {"a.py": "1"})
    commit(repo, {"a.py": "2"})
    Path(repo.path, "objects", first[:2], first[2:]).unlink()
    with pytest.raises(MiningError, match=r"cannot read the history: .* \(is the repository complete\? try git fsck\)"):
        generate_goldset(tmp_path / "r", tmp_path / "out.jsonl", FilterConfig(), workers=1)


def _branchy_history(path: Path) -> pygit2.Repository:
    """Write a history with two merged branches whose commits interleave in time (each time distinct)."""
    repo = init_repo(path)
    root = commit(repo, {"a.py": "A = 0\n"}, "Start", author=signature(time=EPOCH))
    tips = {"main": root, "side": root}
    for n in range(1, 9):
        name = "side" if n % 3 == 0 else "main"
        tips[name] = commit(
            repo, {f"{name}.py": f"N = {n}\n"}, f"Change {n}", author=signature(time=EPOCH + 60 * n),
            branch=name, parents=[tips[name]],
        )  # fmt: skip
    merge = [tips["main"], tips["side"]]
    commit(repo, {}, "Merge side", author=signature(time=EPOCH + 600), branch="main", parents=merge)
    return repo


def test_newest_first_yields_what_the_time_sorted_walk_yields(tmp_path: Path) -> None:
    repo = _branchy_history(tmp_path / "r")
    head = repo.head.peel(pygit2.Commit)
    walked = [str(found.id) for found, _ in walk(repo, head, None, None)]
    lazily = [str(found.id) for found in newest_first(repo, head)]
    assert lazily == walked and len(walked) == 10
    first_three = newest_first(repo, head)
    assert [next(first_three).message for _ in range(3)] == ["Merge side", "Change 8", "Change 7"]


def test_commits_walked_uncached_are_not_kept_in_libgit2s_cache_and_later_ones_are(tmp_path: Path) -> None:
    from pytest_codesearch.mining.walk import uncached

    repo = init_repo(tmp_path / "r")
    for n in range(5):
        commit(repo, {"a.py": f"A = {n}\n"}, f"Change {n}")
    fresh = pygit2.Repository(str(tmp_path / "r"))  # a cache of its own, empty
    held = pygit2.settings.cached_memory[0]  # by every repository of the process
    with uncached():
        walked = [c.id for c in fresh.walk(fresh.head.target)]
        assert pygit2.settings.cached_memory[0] == held
    assert len(walked) == 5 and all(fresh[oid] is not None for oid in walked)
    assert pygit2.settings.cached_memory[0] > held  # caching is on again
