"""Tests of gold-set detection, loading with readable errors, and JSONL dumps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_codesearch.goldset import (
    GoldSetMetadata,
    GroundTruthFile,
    TestCase,
    format_error,
    load,
    reader_for,
    write_goldset_jsonl,
)

GOOD = {"id": "c1", "query": "where is login handled", "ground_truth_files": ["src/auth.py"]}


def _line(**fields: Any) -> str:
    return json.dumps({**GOOD, **fields})


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('{"id": "c1", "ground_truth_files": ["a.py"]}', "query: missing required field"),
        (_line(query="   "), "query: must not be empty"),
        (_line(ground_truth_files=[]), "ground_truth_files: must not be empty"),
        (
            _line(ground_truth_files=[{"path": "a.py", "relevance": 0}]),
            "ground_truth_files[0].relevance: must be >= 1",
        ),
        (
            _line(ground_truth_files=[{"path": "a.py", "lines": [[9, 3]]}]),
            "ground_truth_files[0].lines[0]: start must be <= end, got [9, 3]",
        ),
        (
            _line(ground_truth_files=[{"path": "a.py", "lines": [[0, 3]]}]),
            "ground_truth_files[0].lines[0]: line numbers start at 1, got [0, 3]",
        ),
        (
            _line(ground_truth_files=[{"path": "a.py", "lines": [[4]]}]),
            "ground_truth_files[0].lines[0]: must be a [start, end] pair of line numbers, got [4]",
        ),
        (
            _line(ground_truth_files=[{"path": "a.py", "relevence": 2}]),
            "ground_truth_files[0].relevence: unknown field (did you mean 'relevance'?)",
        ),
        (
            _line(ground_truth_file=["a.py"]),
            "ground_truth_file: unknown field (did you mean 'ground_truth_files'?)",
        ),
        (
            _line(ground_truth_files=["a.py", "../secrets.py"]),
            "ground_truth_files[1].path: must not contain a '..' segment, got '../secrets.py'",
        ),
        (
            _line(ground_truth_files=["a.py", {"path": "a.py", "relevance": 2}]),
            "ground_truth_files: duplicate path 'a.py' (entries 0 and 1)",
        ),
        (
            _line(ground_truth_files=[3]),
            "ground_truth_files[0]: must be a path string or an object with a 'path', got 3",
        ),
        (_line(query=5), "query: must be a string"),
        (_line(tags="slow"), "tags: must be a list"),
        (_line(timestamp="soon"), "timestamp: must be an ISO 8601 date and time, got 'soon'"),
        (_line(id="a b"), "id: must not contain whitespace or control characters (found ' ')"),
        (
            _line()[:-1] + ', "score": NaN}',
            "invalid JSON: NaN is not allowed (JSON has no NaN or Infinity; use a number or null)",
        ),
        (_line()[:-1] + ', "x-n": 1e999}', "invalid JSON: 1e999 is too large for a number"),
        (
            '{"id": "c1", "query": "a", "query": "b", "ground_truth_files": ["a.py"]}',
            "invalid JSON: duplicate key 'query'",
        ),
        ('{"id": "c1" "query": "a"}', "invalid JSON: Expecting ',' delimiter (column 13)"),
        ("[1, 2]", "a case must be a JSON object, got array"),
    ],
)
def test_broken_case_messages(tmp_path: Path, line: str, error: str) -> None:
    loaded = load(_write(tmp_path, "set.jsonl", line + "\n"))
    assert loaded.error is None
    assert [(entry.line, entry.error, entry.case) for entry in loaded.entries] == [(1, error, None)]


def test_broken_case_keeps_its_id_when_readable(tmp_path: Path) -> None:
    lines = [_line(id="nan-case")[:-1] + ', "s": NaN}', _line(id="bad-gt", ground_truth_files=[]), _line(id="x y")]
    loaded = load(_write(tmp_path, "set.jsonl", "\n".join(lines)))
    assert [entry.case_id for entry in loaded.entries] == ["nan-case", "bad-gt", None]


def test_one_bad_line_in_the_middle_leaves_the_others(tmp_path: Path) -> None:
    text = "\n".join(
        [
            '{"metadata": {"name": "demo", "base_commit": "v1.0", "owner": "qa"}}',
            _line(id="first"),
            "",
            '{"id": "broken", "query": "x", "ground_truth_files": [',
            "   ",
            _line(id="last"),
        ]
    )
    loaded = load(_write(tmp_path, "set.jsonl", text))
    assert loaded.error is None
    assert loaded.metadata.base_commit == "v1.0" and loaded.metadata.model_extra == {"owner": "qa"}
    assert [(entry.line, entry.case_id) for entry in loaded.entries] == [(2, "first"), (4, None), (6, "last")]
    assert loaded.entries[1].error == "invalid JSON: Expecting value (column 55)"
    assert [case.id for case in loaded.cases] == ["first", "last"]


def test_duplicate_id_is_broken_and_names_the_first_line(tmp_path: Path) -> None:
    text = "\n".join([_line(id="a"), _line(id="b"), _line(id="a", query="other")])
    entries = load(_write(tmp_path, "set.jsonl", text)).entries
    assert (entries[2].line, entries[2].error, entries[2].case_id) == (3, "id: duplicate of line 1", None)
    assert entries[0].case is not None and entries[0].case.query == GOOD["query"]


def test_metadata_problems_are_file_errors(tmp_path: Path) -> None:
    text = '{"metadata": {"repo": 3}, "metdata": {}}\n' + _line() + "\n"
    loaded = load(_write(tmp_path, "set.jsonl", text))
    assert loaded.error == (
        "line 1: metdata: unknown field (did you mean 'metadata'?); line 1: metadata.repo: must be a string"
    )
    assert len(loaded.cases) == 1


def test_metadata_after_the_first_line_is_broken(tmp_path: Path) -> None:
    text = _line() + '\n{"metadata": {"name": "late"}}\n'
    entries = load(_write(tmp_path, "set.jsonl", text)).entries
    assert entries[1].error == "metadata: only the first line of the file may hold metadata"


def test_non_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    good = _line(id="good").encode()
    bad = b'{"id": "bad", "query": "caf\xe9", "ground_truth_files": ["a.py"]}'
    jsonl = load(_write(tmp_path, "set.jsonl", good + b"\n" + bad + b"\n"))
    offset = len(good) + 1 + bad.index(b"\xe9")
    assert jsonl.error == (
        f"line 2: not valid UTF-8 at byte offset {offset} (invalid continuation byte); save the file as UTF-8"
    )
    assert [case.id for case in jsonl.cases] == ["good"]
    document = b'{"test_cases": [\n' + bad + b"]}"
    loaded = load(_write(tmp_path, "set.json", document))
    offset = document.index(b"\xe9")
    assert loaded.error == (
        f"line 2: not valid UTF-8 at byte offset {offset} (invalid continuation byte);"
        " save the file as UTF-8"
    )
    assert loaded.entries == []


def test_unreadable_file_is_a_file_error(tmp_path: Path) -> None:
    loaded = load(tmp_path / "missing.jsonl")
    assert loaded.error == "cannot read: No such file or directory"
    assert loaded.entries == []


JSON_FORM = """\
{
  "metadata": {"name": "demo", "repo": "../flask"},
  "test_cases": [
    {"id": "one", "query": "app factory", "ground_truth_files": ["src/app.py"]},
    {
      "id": "two",
      "query": "",
      "ground_truth_files": ["src/app.py"]
    },

    {"id": "three", "query": "q", "ground_truth_files": ["a.py"], "v": Infinity},
    {"id": "one", "query": "again", "ground_truth_files": ["b.py"]},
    "four"
  ],
  "x-generator": "by hand"
}
"""


def test_json_form_gives_each_case_its_starting_line(tmp_path: Path) -> None:
    loaded = load(_write(tmp_path, "set.json", JSON_FORM))
    assert loaded.error is None
    assert loaded.metadata.repo == "../flask"
    assert [(entry.line, entry.case_id, entry.error) for entry in loaded.entries] == [
        (4, "one", None),
        (5, "two", "query: must not be empty"),
        (11, "three", "invalid JSON: Infinity is not allowed (JSON has no NaN or Infinity; use a number or null)"),
        (12, None, "id: duplicate of line 4"),
        (13, None, "a case must be a JSON object, got string"),
    ]


def test_json_form_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    text = '{"test_cases": [\n  {"id": "a",\n   "query": "q" "ground_truth_files": []}\n]}\n'
    loaded = load(_write(tmp_path, "set.json", text))
    assert loaded.error == "line 3: invalid JSON: Expecting ',' delimiter (column 17)"
    assert loaded.entries == []


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"test_cases": [], "metdata": {}}', "line 1: metdata: unknown field (did you mean 'metadata'?)"),
        ('{"test_cases": [],\n "metadata": {"n": NaN}}', "line 2: metadata: invalid JSON: NaN is not allowed"),
        ('{"test_cases": [], "test_cases": []}', "line 1: invalid JSON: duplicate key 'test_cases'"),
        ('{"test_cases": {}}', "line 1: a JSON gold set must be an object with a 'test_cases' list"),
        ('{"test_cases": [], "metadata": []}', "line 1: metadata: must be an object"),
    ],
)
def test_json_form_file_errors(tmp_path: Path, text: str, error: str) -> None:
    loaded = load(_write(tmp_path, "set.json", text))
    assert loaded.error is not None and loaded.error.startswith(error)


def test_format_error() -> None:
    assert format_error("goldsets/x.jsonl", 12, "query: must not be empty") == (
        "goldsets/x.jsonl:12: query: must not be empty"
    )
    assert format_error("goldsets/x.jsonl", 0, "cannot read: denied") == "goldsets/x.jsonl: cannot read: denied"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("set.json", '{"test_cases": []}', True),
        ("set.json", '{"metadata": {}, "test_cases": [{"id": "a"}]}', True),
        ("set.json", '{"test_cases": [ {"id": ', True),
        ("set.json", b'{"test_cases": ["\xff"]}', True),
        ("package.json", '{"name": "x", "scripts": {"test_cases": "jest"}}', False),
        ("results.json", '{"cases": [{"id": "a"}], "note": "no test cases"}', False),
        ("odd.json", '{"test_cases": 3}', False),
        ("list.json", '["test_cases"]', False),
        ("set.jsonl", '{"metadata": {"name": "x"}}\n{"garbage": 1}\n', True),
        ("set.jsonl", "\n\n" + json.dumps(GOOD) + "\n", True),
        ("set.jsonl", '{"id": "a", "query": "q", "ground_truth_files": [\n', True),
        ("set.jsonl", '{"metadata": {"name": NaN x\n', True),
        ("log.jsonl", '{"event": "start", "query": "q"}\n', False),
        ("log.jsonl", "not json at all\n", False),
        ("empty.jsonl", "\n  \n", False),
        ("set.txt", json.dumps(GOOD), False),
    ],
)
def test_detection(tmp_path: Path, name: str, content: str | bytes, expected: bool) -> None:
    assert (reader_for(_write(tmp_path, name, content)) is not None) is expected


def test_detection_of_missing_file(tmp_path: Path) -> None:
    assert (reader_for(tmp_path / "gone.jsonl") is not None) is False


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    metadata = GoldSetMetadata.model_validate({"name": "demo", "base_commit": "abc123", "owner": "qa"})
    cases = [
        TestCase(id="plain", query="where", ground_truth_files=[GroundTruthFile(path="a.py")]),
        TestCase.model_validate(
            {
                "id": "rich",
                "query": "café ünïcode",
                "ground_truth_files": ["a.py", {"path": "b.py", "lines": [[1, 4]], "symbols": ["f"], "relevance": 3}],
                "repo": "../other",
                "timestamp": "2024-03-15T10:30:00Z",
                "tags": ["auth"],
                "x-origin": {"pr": 7},
            }
        ),
    ]
    target = tmp_path / "out.jsonl"
    write_goldset_jsonl(target, metadata, cases)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {"metadata": {"name": "demo", "base_commit": "abc123", "owner": "qa"}}
    assert json.loads(lines[1]) == {"id": "plain", "query": "where", "ground_truth_files": ["a.py"]}
    assert json.loads(lines[2])["ground_truth_files"] == [
        "a.py",
        {"path": "b.py", "lines": [[1, 4]], "symbols": ["f"], "relevance": 3},
    ]
    loaded = load(target)
    assert (loaded.error, loaded.metadata, loaded.cases) == (None, metadata, cases)
    assert (reader_for(target) is not None)
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_dump_without_metadata_writes_only_cases(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old content\n", encoding="utf-8")
    write_goldset_jsonl(target, GoldSetMetadata(), [TestCase.model_validate(GOOD)])
    assert target.read_text(encoding="utf-8") == json.dumps(GOOD) + "\n"


def test_examples_in_the_format_guide_load(tmp_path: Path) -> None:
    guide = (Path(__file__).parent.parent / "docs" / "goldset-format.md").read_text(encoding="utf-8")
    jsonl, document = guide.split("```json\n")[1:3]
    for name, text in (("guide.jsonl", jsonl), ("guide.json", document)):
        loaded = load(_write(tmp_path, name, text.split("```")[0]))
        assert loaded.error is None and [case.id for case in loaded.cases] == ["login-view", "hash-password"]
