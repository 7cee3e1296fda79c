"""Atomic files and the one gold-set writer: the case serialiser, permissions from the umask, streaming."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_codesearch.atomic import (
    _copy_range,
    atomic_file,
    creation_mode,
    current_umask,
    splice_atomic,
    write_atomic,
    write_cache_file,
)
from pytest_codesearch.goldset.model import GoldSetMetadata, TestCase
from pytest_codesearch.goldset.writer import (
    case_fields_line,
    case_fields_to_json,
    case_line,
    metadata_line,
    write_goldset_jsonl,
    write_json_lines,
    write_jsonl_lines,
)
from pytest_codesearch.mining.output import GoldsetWriter

CASE = TestCase.model_validate({"id": "c1", "query": "where is login", "ground_truth_files": ["a.py"]})


@pytest.fixture
def umask() -> Iterator[int]:
    """Run the test under umask 0o027, restoring the previous one after."""
    previous = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_without_changing_it(umask: int) -> None:
    assert (current_umask(), creation_mode()) == (0o027, 0o640)
    assert current_umask() == 0o027


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o000, 0o666)])
def test_write_atomic_creates_files_with_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    previous = os.umask(mask)
    try:
        write_atomic(tmp_path / "results.json", "{}\n")
        (tmp_path / "plain.txt").write_text("x")  # what open() gives, for comparison
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "results.json") == mode == _mode(tmp_path / "plain.txt")


def test_mined_gold_sets_get_the_umask_in_both_forms(tmp_path: Path, umask: int) -> None:
    for name in ("mined.jsonl", "mined.json"):
        with GoldsetWriter(tmp_path / name) as writer:
            writer.add(case_line(CASE))
            writer.publish(GoldSetMetadata(name="m"))
        assert _mode(tmp_path / name) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mined.json", "mined.jsonl"]
    assert json.loads((tmp_path / "mined.json").read_text())["test_cases"] == [json.loads(case_line(CASE))]


def test_mined_cases_taken_from_other_files_follow_those_added_in_both_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_codesearch.mining import output

    monkeypatch.setattr(output, "_CHUNK", 10)  # a line a chunk: the lines left out are counted across chunks
    for name in ("mined.jsonl", "mined.json"):
        with GoldsetWriter(tmp_path / name) as writer:
            folder = writer.workspace()
            lines = [case_line(CASE.model_copy(update={"id": f"c{n}"})) + "\n" for n in range(5)]
            (folder / "1").write_text("".join(lines[1:4]))  # the line of c2 is left out
            (folder / "2").write_text(lines[4])
            writer.add(lines[0].rstrip("\n"))
            writer.take(folder / "1", {1}, 2)
            writer.take(folder / "2", set(), 1)
            assert writer.count == 4
            writer.publish(GoldSetMetadata(name="m"))
            assert not folder.exists()  # removed with the scratch file
    expected = ["c0", "c1", "c3", "c4"]
    assert [json.loads(line)["id"] for line in (tmp_path / "mined.jsonl").read_text().splitlines()[1:]] == expected
    assert [case["id"] for case in json.loads((tmp_path / "mined.json").read_text())["test_cases"]] == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mined.json", "mined.jsonl"]


def test_write_goldset_jsonl_streams_cases_and_counts_them(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "out.jsonl"

    def cases() -> Iterator[TestCase]:
        for n in range(3):
            yield CASE.model_copy(update={"id": f"c{n}"})

    assert write_goldset_jsonl(target, GoldSetMetadata(name="s"), cases()) == 3
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[0] == '{"metadata": {"name": "s"}}' == metadata_line(GoldSetMetadata(name="s"))
    assert [json.loads(line)["id"] for line in lines[1:]] == ["c0", "c1", "c2"]
    assert _mode(target) == 0o640


def test_write_jsonl_lines_takes_lines_with_or_without_newlines(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    assert write_jsonl_lines(target, GoldSetMetadata(), ['{"a": 1}\n', '{"b": 2}']) == 2
    assert target.read_text(encoding="utf-8") == '{"a": 1}\n{"b": 2}\n'
    assert metadata_line(GoldSetMetadata()) is None


def test_a_failing_case_stream_keeps_the_previous_gold_set(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("previous\n", encoding="utf-8")

    def broken() -> Iterator[TestCase]:
        yield CASE
        raise RuntimeError("source went away")

    with pytest.raises(RuntimeError, match="source went away"):
        write_goldset_jsonl(target, GoldSetMetadata(), broken())
    assert target.read_text(encoding="utf-8") == "previous\n"
    assert list(tmp_path.iterdir()) == [target]


def test_atomic_file_writes_newlines_as_given(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    with atomic_file(target) as stream:
        stream.write("one\r\ntwo\n")
    assert target.read_bytes() == b"one\r\ntwo\n"


def test_one_serialiser_orders_fields_and_leaves_out_what_is_empty() -> None:
    fields = {  # as the miner builds them: any order, empty values included
        "x-origin": [], "leaky": False, "commit_message": "Fix it\n", "repo": None, "added_files": [],
        "ground_truth_files": [{"path": "a.py", "lines": []}, {"path": "b.py", "lines": [[2, 3]]}],
        "query": "where is login", "id": "c1", "ground_truth_functions": [], "x-note": None,
    }
    assert case_fields_to_json(fields) == {
        "id": "c1", "query": "where is login", "ground_truth_files": ["a.py", {"path": "b.py", "lines": [[2, 3]]}],
        "leaky": False, "commit_message": "Fix it\n", "x-origin": [],
    }
    line = case_fields_line(fields)
    assert line.index('"id"') < line.index('"query"') < line.index('"leaky"') < line.index('"x-origin"')
    assert case_line(TestCase.model_validate(json.loads(line))) == line  # the same writer for a validated case


def test_ground_truth_keeps_symbols_and_a_relevance_other_than_1() -> None:
    case = TestCase.model_validate({"id": "c", "query": "q", "ground_truth_files": [
        {"path": "a.py", "relevance": 1}, {"path": "b.py", "relevance": 2}, {"path": "c.py", "symbols": ["f"]}]})
    assert json.loads(case_line(case))["ground_truth_files"] == [
        "a.py", {"path": "b.py", "relevance": 2}, {"path": "c.py", "symbols": ["f"]}
    ]


def test_the_json_document_form_holds_one_case_a_line(tmp_path: Path) -> None:
    for count in (2, 0):
        with (tmp_path / "set.json").open("w", encoding="utf-8") as target:
            assert write_json_lines(target, GoldSetMetadata(name="s"), [case_line(CASE) + "\n"] * count) == count
        text = (tmp_path / "set.json").read_text(encoding="utf-8")
        cases = f"\n    {case_line(CASE)},\n    {case_line(CASE)}\n  ]" if count else "]"
        assert text == '{\n  "metadata": {"name": "s"},\n  "test_cases": [' + cases + "\n}\n"


def test_a_cache_file_is_replaced_whole_its_folders_made_and_no_scratch_left(tmp_path: Path) -> None:
    target = tmp_path / "o1-abc" / "12" / "3456"
    write_cache_file(target, b"first")  # the folders did not exist
    write_cache_file(target, b"second")
    assert target.read_bytes() == b"second" and os.listdir(target.parent) == ["3456"]
    blocked = tmp_path / "taken"
    blocked.mkdir()
    (blocked / "inside").write_text("x")  # a non-empty directory cannot be replaced by a file
    with pytest.raises(OSError):
        write_cache_file(blocked, b"data")
    assert sorted(os.listdir(tmp_path)) == ["o1-abc", "taken"]  # the scratch file is gone


def test_splice_replaces_one_span_keeps_every_other_byte_and_leaves_no_scratch(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "results.json"
    content = bytes(range(256)) * 5000  # 1.28 MB: several copies of the kernel's
    path.write_bytes(content)
    os.chmod(path, 0o600)
    splice_atomic(path, 1000, 1010, b"marked")
    assert path.read_bytes() == content[:1000] + b"marked" + content[1010:]
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # a new file, with the mode open() gives
    splice_atomic(path, 0, 0, b"{")
    splice_atomic(path, path.stat().st_size, path.stat().st_size, b"}")
    assert path.read_bytes() == b"{" + content[:1000] + b"marked" + content[1010:] + b"}"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_splice_out_of_the_file_raises_and_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(b"0123456789")
    with pytest.raises(ValueError, match="bytes 8 to 12 are not in"):
        splice_atomic(path, 8, 12, b"x")
    assert path.read_bytes() == b"0123456789"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_range_is_copied_where_the_kernel_cannot_copy_it(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(b"abcdefghij" * 300_000)
    read, write = os.pipe()  # copy_file_range refuses a pipe: the bytes go through read and write
    os.set_blocking(read, False)
    with open(source, "rb") as stream:
        _copy_range(stream.fileno(), write, 5, 20)
    os.close(write)
    assert os.read(read, 100) == b"fghijabcdefghijabcde"
    os.close(read)
