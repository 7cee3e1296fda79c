"""Reading raw objects for the miner: packs first, the whole object database as the fallback, git's checks."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset
from pytest_codesearch.mining.objects import BlobReader, ObjectReader, _objects_directory, fast_reads


def _packed(tmp_path: Path) -> tuple[pygit2.Repository, str]:
    """Return a repository whose objects were all moved into one pack, and its second commit."""
    repo = init_repo(tmp_path / "r")
    commit(repo, {"src/a.py": "A = 1\n", "src/b.py": "B = 1\n"}, "Start")
    second = commit(repo, {"src/a.py": "A = 2\n"}, "Change the a module")
    assert repo.pack() > 0
    for loose in Path(repo.path, "objects").glob("[0-9a-f][0-9a-f]/*"):
        loose.unlink()
    return pygit2.Repository(str(tmp_path / "r")), second


def test_objects_come_from_the_pack_and_new_loose_ones_from_the_database(tmp_path: Path) -> None:
    repo, second = _packed(tmp_path)
    reader = ObjectReader(repo)
    tree = repo[pygit2.Oid(hex=second)].peel(pygit2.Commit).tree
    assert reader.tree(tree.id.raw) == repo.odb.read(tree.id)[1]
    assert reader._packed is not None and reader._packed.read(tree.id)[1] == reader.tree(tree.id.raw)
    loose = repo.create_blob(b"written after the pack\n")
    assert reader.read(loose.raw) == (int(pygit2.enums.ObjectType.BLOB), b"written after the pack\n")
    assert BlobReader(reader).read(loose.raw) == b"written after the pack\n"
    with pytest.raises(KeyError):
        reader.read(b"\x01" * 20)
    with pytest.raises(KeyError, match="is not a tree"):
        reader.tree(loose.raw)


def test_the_blob_cache_keeps_recent_blobs_within_its_budget(tmp_path: Path) -> None:
    """Memory stays bounded whatever the history: the least recently read blob goes first, and a blob over
    ``largest`` is read but never kept (a held blob costs nothing to read again)."""
    repo = init_repo(tmp_path / "r")
    a, b, c = (repo.create_blob(text).raw for text in (b"a" * 40, b"b" * 40, b"c" * 40))
    big = repo.create_blob(b"x" * 100).raw
    blobs = BlobReader(ObjectReader(repo), budget=100, largest=50)
    assert [blobs.read_cost(oid) for oid in (a, b, c, big)] == [40, 40, 40, 100]
    assert blobs.read(a) == b"a" * 40 and blobs.read(b) == b"b" * 40
    assert blobs.read(a) == b"a" * 40  # a is now the most recent: b goes first
    assert blobs.read(c) == b"c" * 40
    assert [blobs.read_cost(oid) for oid in (a, b, c)] == [0, 40, 0]
    assert blobs.read(big) == b"x" * 100
    assert [blobs.read_cost(oid) for oid in (a, c, big)] == [0, 0, 100]


def test_the_size_of_a_blob_read_or_asked_before_is_known_without_its_header(tmp_path: Path) -> None:
    """The whitespace rule orders files by the bytes left to read: a size learned once is not asked again
    (``KNOWN_SIZES``), even for a blob let go from the cache since."""
    repo = init_repo(tmp_path / "r")
    a, b, c = (repo.create_blob(text).raw for text in (b"a" * 40, b"b" * 60, b"c" * 40))
    objects = ObjectReader(repo)
    asked: list[bytes] = []
    header = objects.size
    objects.size = lambda oid: asked.append(oid) or header(oid)  # type: ignore[method-assign]
    blobs = BlobReader(objects, budget=50, largest=50)
    assert blobs.read(a) == b"a" * 40 and blobs.read(b) == b"b" * 60  # b is over ``largest``: not kept
    assert blobs.read(c) == b"c" * 40  # a goes
    assert [blobs.read_cost(oid) for oid in (a, b, c)] == [40, 60, 0]
    assert asked == []
    other = repo.create_blob(b"d" * 30).raw
    assert [blobs.read_cost(other), blobs.read_cost(other)] == [30, 30]
    assert asked == [other]


def test_a_repository_without_packs_reads_from_its_database(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    commit(repo, {"a.py": "1"})
    reader = ObjectReader(repo)
    assert reader._packed is None
    assert reader.tree(repo.head.peel(pygit2.Commit).tree_id.raw) == repo.head.peel(pygit2.Tree).read_raw()


def test_a_linked_work_tree_finds_the_packs_of_its_main_repository(tmp_path: Path) -> None:
    repo, _ = _packed(tmp_path)
    repo.add_worktree("side", str(tmp_path / "side"))
    side = pygit2.Repository(str(tmp_path / "side"))
    assert _objects_directory(Path(side.path)) == Path(repo.path, "objects").resolve()
    assert ObjectReader(side)._packed is not None


def test_mining_a_packed_history_gives_the_cases_of_the_loose_one(tmp_path: Path) -> None:
    loose = init_repo(tmp_path / "loose")
    commit(loose, {"src/a.py": "A = 1\n", "src/b.py": "B = 1\n"}, "Start")
    commit(loose, {"src/a.py": "A = 2\n", "src/b.py": "B  =  1\n"}, "Change the a module, space out b")
    commit(loose, {"src/b.py": "B  =\t1\n"}, "Space out the b module only")
    before = generate_goldset(tmp_path / "loose", tmp_path / "before.jsonl", FilterConfig(), workers=1)
    assert loose.pack() > 0
    for path in Path(loose.path, "objects").glob("[0-9a-f][0-9a-f]/*"):
        path.unlink()
    after = generate_goldset(tmp_path / "loose", tmp_path / "after.jsonl", FilterConfig(), workers=1)
    lines = [(tmp_path / name).read_text().splitlines()[1:] for name in ("before.jsonl", "after.jsonl")]
    assert lines[0] == lines[1]
    changed = [{"path": "src/a.py", "lines": [[1, 1]]}, {"path": "src/b.py", "lines": [[1, 1]]}]
    assert [json.loads(line)["ground_truth_files"] for line in lines[0]] == [changed]
    assert before.dropped == after.dropped == {"whitespace-only": 1, "root commit": 1}


def test_fast_reads_skip_the_hash_check_as_git_log_does_and_restore_it(tmp_path: Path) -> None:
    """An object stored under another id reads as it is while mining (``git fsck`` is what finds it)."""
    repo = init_repo(tmp_path / "r")
    claimed = repo.create_blob(b"the real content\n")
    other = b"blob 14\0other content\n"
    folder = Path(repo.path, "objects", str(claimed)[:2])
    (folder / str(claimed)[2:]).chmod(0o644)
    (folder / str(claimed)[2:]).write_bytes(zlib.compress(other))
    reader = ObjectReader(pygit2.Repository(str(tmp_path / "r")))
    with fast_reads():
        assert reader.read(claimed.raw)[1] == b"other content\n"
    with pytest.raises(pygit2.GitError, match="hash"):
        ObjectReader(pygit2.Repository(str(tmp_path / "r"))).read(claimed.raw)


def test_the_whitespace_check_reads_a_file_whose_blobs_are_held_first(tmp_path: Path) -> None:
    from pytest_codesearch.mining.files import CommitFiles, FileSorter
    from pytest_codesearch.mining.treediff import TreeDiffer

    repo = init_repo(tmp_path / "r")
    commit(repo, {"src/big.c": "int big;\n" * 500, "src/small.c": "int a;\n"}, "Start")
    second = commit(repo, {"src/big.c": "long big;\n" * 500, "src/small.c": "long a;\n"}, "Widen the types")
    child = repo[pygit2.Oid(hex=second)].peel(pygit2.Commit)
    sorter = FileSorter(repo, FilterConfig(), TreeDiffer(repo))
    files = sorter.sort(child.parents[0].tree_id.raw, child.tree_id.raw)
    assert isinstance(files, CommitFiles) and files.ground_truth == ("src/big.c", "src/small.c")
    big, small = files.scored
    assert sorter.blobs.read_cost(small.old_id) == len("int a;\n")
    sorter.blobs.read(big.old_id), sorter.blobs.read(big.new_id or b"")
    assert sorter.blobs.read_cost(big.old_id) == sorter.blobs.read_cost(big.new_id or b"") == 0
    assert sorter.formatting_only(files) is False
    assert sorter.blobs.read_cost(small.old_id) == len("int a;\n")  # the held file had the real edit: small never read
