"""The gold-set format registry: which reader claims a file, loading through it, and repository resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.goldset import formats
from pytest_codesearch.goldsniff import SHAPES, shape_of
from pytest_codesearch.goldset.entries import CaseEntry, LoadedGoldSet
from pytest_codesearch.goldset.formats import FORMATS, Format, ReadOptions, load, reader_for
from pytest_codesearch.goldset.formats.native import FORMAT as NATIVE
from pytest_codesearch.goldset.model import GoldSetMetadata, GroundTruthFile, TestCase
from pytest_codesearch.repo.resolve import default_repo, resolve_repo

CASE = {"id": "c1", "query": "where is login handled", "ground_truth_files": ["src/auth.py"]}


README = GroundTruthFile(path="README.md")


def _read_lines(path: Path, options: ReadOptions) -> LoadedGoldSet:
    """A toy shape: each line of a .queries file is a query whose answer is README.md."""
    lines = path.read_text(encoding="utf-8").splitlines()
    entries = [
        CaseEntry(n, TestCase(id=f"q{n}", query=q, ground_truth_files=[README]), None, f"q{n}")
        for n, q in enumerate(lines, start=1)
    ]
    return LoadedGoldSet(path, GoldSetMetadata(), entries, None)


TOY = Format(
    name="toy", suffixes=(".queries",), sniff=lambda path: path.read_bytes().startswith(b"where"), read=_read_lines
)


def test_native_is_registered_and_claims_its_files(tmp_path: Path) -> None:
    jsonl = tmp_path / "set.jsonl"
    jsonl.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    other = tmp_path / "package.json"
    other.write_text('{"name": "x"}', encoding="utf-8")
    assert [fmt.name for fmt in FORMATS][-1] == "native"
    assert reader_for(jsonl) is NATIVE
    assert reader_for(other) is None
    assert reader_for(tmp_path / "missing.jsonl") is None
    assert [case.id for case in load(jsonl).cases] == ["c1"]


def test_a_new_shape_is_one_format_value(tmp_path: Path) -> None:
    path = tmp_path / "mine.queries"
    path.write_text("where is login\nwhere is logout\n", encoding="utf-8")
    elsewhere = tmp_path / "notes.queries"
    elsewhere.write_text("shopping list\n", encoding="utf-8")
    registry = (TOY, *FORMATS)
    assert reader_for(path) is None  # not registered: the default registry never opens .queries files
    assert reader_for(path, registry) is TOY
    assert reader_for(elsewhere, registry) is None
    assert [c.query for c in TOY.read(path, ReadOptions()).cases] == ["where is login", "where is logout"]


def test_load_of_an_unclaimed_file_reports_it_through_the_native_reader(tmp_path: Path) -> None:
    loaded = formats.load(tmp_path / "missing.jsonl")
    assert (loaded.entries, loaded.error) == ([], "cannot read: No such file or directory")


def test_resolve_repo_relative_absolute_mapped_and_missing(tmp_path: Path) -> None:
    (tmp_path / "code").mkdir()
    (tmp_path / "mirror").mkdir()
    goldset = tmp_path / "sets" / "a.jsonl"
    assert resolve_repo("../code", goldset) == ((tmp_path / "code").resolve(), None)
    assert resolve_repo(str(tmp_path / "code"), goldset) == ((tmp_path / "code").resolve(), None)
    mirror = (tmp_path / "mirror").resolve()
    assert resolve_repo("acme/shop", goldset, {"acme/shop": tmp_path / "mirror"}) == (mirror, None)
    missing = (tmp_path / "sets" / "nope").resolve()
    assert resolve_repo("nope", goldset) == (None, f"repo: 'nope' (resolved to {missing}) is not a directory")
    gone = (tmp_path / "gone").resolve()
    assert resolve_repo("acme/shop", goldset, {"acme/shop": tmp_path / "gone"}) == (
        None,
        f"repo: 'acme/shop' (resolved through the repository map to {gone}) is not a directory",
    )


def test_default_repo_is_the_metadata_repo_or_the_enclosing_repository(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    commit(repo, {"README.md": "hi\n"})
    inside = tmp_path / "project" / "goldsets" / "a.jsonl"
    inside.parent.mkdir()
    outside = tmp_path / "loose" / "a.jsonl"
    outside.parent.mkdir()
    assert default_repo(inside, None, "goldsets/a.jsonl") == ((tmp_path / "project").resolve(), None)
    assert default_repo(outside, "../project", "a.jsonl") == ((tmp_path / "project").resolve(), None)
    assert default_repo(outside, None, "loose/a.jsonl") == (
        None,
        "loose/a.jsonl: no 'repo' given and the file is not inside a git repository; "
        "set 'repo' in the case or the metadata",
    )


@pytest.mark.parametrize("name", ["set.JSONL", "set.jsonl"])
def test_suffixes_are_matched_without_case(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    assert reader_for(path) is NATIVE


def test_the_readers_claim_with_the_light_sniffers_in_one_order() -> None:
    assert [(f.name, f.suffixes, f.sniff) for f in FORMATS] == list(SHAPES)


def test_a_case_file_with_misspelt_truth_is_claimed_so_its_error_shows(pytester: pytest.Pytester) -> None:
    """A folder's .jsonl whose first case lacks ``ground_truth_files`` is collected and fails by line,
    not skipped in silence; a data file that is no case stays unclaimed."""
    pytester.makefile(".py", a="x = 1\n")
    (pytester.path / "sets").mkdir()
    lines = [{"id": "c1", "query": "where is x", "ground_truth": ["a.py"], "repo": ".."},
             {"id": "c2", "query": "where is x", "ground_truth_files": ["a.py"], "repo": ".."}]  # fmt: skip
    (pytester.path / "sets" / "cases.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (pytester.path / "sets" / "log.jsonl").write_text('{"level": "info", "message": "query done"}\n')
    assert shape_of(pytester.path / "sets" / "cases.jsonl") == "native"
    assert shape_of(pytester.path / "sets" / "log.jsonl") is None
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save", "sets")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["sets/cases.jsonl:1: ground_truth_files: missing required field; "
                                 "ground_truth: unknown field (did you mean 'ground_truth_files'?)"])  # fmt: skip
