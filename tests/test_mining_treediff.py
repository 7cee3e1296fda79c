"""The tree diff's shortcut (split only where two trees differ) gives exactly what comparing the entry sets gives."""

from __future__ import annotations

import random
from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo, raw_tree

from pytest_codesearch.mining import treediff
from pytest_codesearch.mining.treediff import TREE, Change, TreeDiffer

BLOB = 0o100644


class _Spy(TreeDiffer):
    """Counts how often the shortcut decided a level."""

    def __init__(self, repo: pygit2.Repository) -> None:
        super().__init__(repo)
        self.shortcuts = 0

    def _changed_entries(self, *args: object) -> tuple[set[bytes], set[bytes]] | None:
        found = super()._changed_entries(*args)  # type: ignore[arg-type]
        self.shortcuts += found is not None
        return found


class _SetsOnly(TreeDiffer):
    """The diff without the shortcut: every level compares entry sets (the reference)."""

    def _changed_entries(self, *args: object) -> tuple[set[bytes], set[bytes]] | None:
        return None


def _both(repo: pygit2.Repository, old: pygit2.Oid, new: pygit2.Oid) -> tuple[list[Change], int]:
    spy = _Spy(repo)
    found = spy.diff(old.raw, new.raw)
    assert found == _SetsOnly(repo).diff(old.raw, new.raw)
    return found, spy.shortcuts


def _tree_of(repo: pygit2.Repository, commit_id: str) -> pygit2.Oid:
    return repo[pygit2.Oid(hex=commit_id)].peel(pygit2.Commit).tree_id


def test_one_changed_file_is_found_level_by_level_without_splitting_trees(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    files = {f"src/pkg/m{n}.py": f"M = {n}\n" for n in range(20)}
    first = commit(repo, {**files, "README.md": "hi\n", "src/top.py": "T = 1\n"})
    second = commit(repo, {"src/pkg/m7.py": "M = 'seven'\n"})
    found, shortcuts = _both(repo, _tree_of(repo, first), _tree_of(repo, second))
    assert [(change.path, change.old_mode, change.new_mode) for change in found] == [(b"src/pkg/m7.py", BLOB, BLOB)]
    assert shortcuts == 3  # the root, src and src/pkg each differ in one id


@pytest.mark.parametrize(
    ("old", "new", "shortcuts"),
    [
        ([(BLOB, b"a", 1), (BLOB, b"b", 2)], [(BLOB, b"a", 3), (BLOB, b"b", 4)], 1),  # two ids in one tree
        ([(BLOB, b"a", 1), (BLOB, b"b", 2)], [(0o100755, b"a", 1), (BLOB, b"b", 2)], 1),  # a mode
        ([(BLOB, b"a", 1), (BLOB, b"a", 2)], [(BLOB, b"a", 1), (BLOB, b"a", 1)], 0),  # a crafted duplicate entry
        ([(BLOB, b"x a", 1), (BLOB, b"a", 2)], [(BLOB, b"x a", 1), (BLOB, b"a", 3)], 1),  # " a\0" twice
        ([(BLOB, b"a", 1), (BLOB, b"b", 2)], [(BLOB, b"a", 1), (BLOB, b"b", 5)], 1),
        ([(BLOB, b"a", 1)], [(BLOB, b"a", 1), (BLOB, b"b", 2)], 1),  # an entry added at the end
        ([(BLOB, b"a", 1), (BLOB, b"b", 2), (BLOB, b"c", 3)], [(BLOB, b"a", 1), (BLOB, b"c", 3)], 1),  # removed
        ([(BLOB, b"a", 1), (BLOB, b"c", 2)], [(BLOB, b"b", 1), (BLOB, b"c", 2)], 1),  # renamed, same id
    ],
)
def test_trees_are_split_only_where_they_differ_unless_an_entry_repeats(
    tmp_path: Path, old: list[tuple[int, bytes, int]], new: list[tuple[int, bytes, int]], shortcuts: int
) -> None:
    repo = init_repo(tmp_path / "r")
    blobs = {n: repo.create_blob(f"content {n}\n".encode()) for n in range(1, 6)}
    trees = [raw_tree(repo, [(mode, name, blobs[n]) for mode, name, n in side]) for side in (old, new)]
    assert _both(repo, trees[0], trees[1])[1] == shortcuts


def test_a_tree_with_bytes_after_its_entries_is_compared_as_sets(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    one, two = repo.create_blob(b"1"), repo.create_blob(b"2")
    good, kind = b"100644 a\0" + one.raw, pygit2.enums.ObjectType.TREE
    trees = [repo.odb.write(kind, good + b"junk" + blob.raw) for blob in (one, two)]
    found, shortcuts = _both(repo, trees[0], trees[1])
    assert (found, shortcuts) == ([], 0)  # the junk is no entry: nothing changed, as the sets say


def test_bytes_before_the_changed_entry_make_the_diff_compare_sets(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    one, two, three = repo.create_blob(b"1"), repo.create_blob(b"2"), repo.create_blob(b"3")
    head, kind = b"100644 a\0" + one.raw + b"junk", pygit2.enums.ObjectType.TREE
    trees = [repo.odb.write(kind, head + b"100644 b\0" + blob.raw) for blob in (two, three)]
    found, shortcuts = _both(repo, trees[0], trees[1])  # both trees new: parsed from the start, up to the junk
    assert [(change.path, change.old_id, change.new_id) for change in found] == [(b"b", two.raw, three.raw)]
    assert shortcuts == 0


def test_random_tree_pairs_give_the_same_changes_both_ways(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    rng = random.Random(4)
    blobs = [repo.create_blob(f"blob {n}\n".encode()) for n in range(6)]
    names = [b"a", b"b", b"c d", b"d", b"e.py", b"x a"]

    def tree(depth: int) -> list[tuple[int, bytes, pygit2.Oid]]:
        entries = []
        for name in rng.sample(names, rng.randint(1, len(names))):
            if depth and rng.random() < 0.3:
                entries.append((TREE, name, raw_tree(repo, tree(depth - 1))))
            else:
                entries.append((rng.choice((BLOB, BLOB, 0o100755)), name, rng.choice(blobs)))
        return sorted(entries, key=lambda entry: entry[1] + (b"/" if entry[0] == TREE else b""))

    def mutate(entries: list[tuple[int, bytes, pygit2.Oid]], depth: int) -> list[tuple[int, bytes, pygit2.Oid]]:
        changed = list(entries)
        index = rng.randrange(len(changed))
        mode, name, oid = changed[index]
        if mode == TREE and depth:
            sub = [(int(e.filemode), e.raw_name, e.id) for e in repo[oid].peel(pygit2.Tree)]
            changed[index] = (mode, name, raw_tree(repo, mutate(sub, depth - 1)))
        elif rng.random() < 0.8:
            changed[index] = (mode, name, rng.choice(blobs))
        else:
            changed = tree(depth)
        if rng.random() < 0.1:  # a crafted duplicate entry
            changed.insert(0, changed[0])
        return changed

    shortcuts = 0
    shared = _Spy(repo)  # one differ for every pair: trees met before keep where their entries end
    for _ in range(300):
        old = tree(2)
        new = mutate(old, 2)
        old_id, new_id = raw_tree(repo, old), raw_tree(repo, new)
        shortcuts += _both(repo, old_id, new_id)[1]
        assert shared.diff(old_id.raw, new_id.raw) == _SetsOnly(repo).diff(old_id.raw, new_id.raw)
    assert shortcuts > 100  # the shortcut was taken often, and agreed every time
    assert shared.shortcuts > 100


def test_a_new_pair_is_parsed_up_to_its_difference_then_the_parent_is_split_for_the_next_diffs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init_repo(tmp_path / "r")
    first = commit(repo, {f"m{n}.py": f"M = {n}\n" for n in range(30)})
    second = commit(repo, {"m3.py": "M = 'three'\n"})
    third = commit(repo, {"m20.py": "M = 'twenty'\n"})
    fourth = commit(repo, {"m7.py": "M = 'seven'\n"})
    trees = [_tree_of(repo, commit_id).raw for commit_id in (first, second, third, fourth)]
    split: list[bytes] = []
    whole = treediff._split_whole
    monkeypatch.setattr(treediff, "_split_whole", lambda tree: split.append(tree.raw) or whole(tree))
    differ = TreeDiffer(repo)
    assert [change.path for change in differ.diff(trees[2], trees[3])] == [b"m7.py"]  # newest first, both new
    assert split == []  # one id differs: parsed up to it, nothing split
    assert [change.path for change in differ.diff(trees[1], trees[2])] == [b"m20.py"]
    assert [change.path for change in differ.diff(trees[0], trees[1])] == [b"m3.py"]
    assert split == [repo[pygit2.Oid(raw=trees[1])].read_raw()]  # the parent of the second diff, once
