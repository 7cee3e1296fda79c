"""Tests of the gold-set models and of the JSON Schema written from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_codesearch.goldset import GoldSet, GoldSetMetadata, GroundTruthFile, TestCase
from pytest_codesearch.goldset.model import case_id_problem, path_problem, unknown_field_message
from pytest_codesearch.goldset.schema import build_schema, main, render_schema

SCHEMA_FILE = Path(__file__).parent.parent / "docs" / "goldset.schema.json"


def _case(**fields: Any) -> dict[str, Any]:
    return {"id": "c1", "query": "where is login handled", "ground_truth_files": ["src/auth.py"], **fields}


def test_plain_paths_become_relevance_one() -> None:
    case = TestCase.model_validate(
        _case(ground_truth_files=["a.py", {"path": "b.py", "lines": [[3, 9]], "symbols": ["B.run"], "relevance": 2}])
    )
    assert case.ground_truth_files[0] == GroundTruthFile(path="a.py")
    assert case.ground_truth_files[1].lines == [(3, 9)]
    assert case.relevance_map() == {"a.py": 1, "b.py": 2}


def test_optional_fields_default_to_nothing() -> None:
    case = TestCase.model_validate(_case())
    assert (case.repo, case.base_commit, case.commit_hash, case.timestamp) == (None, None, None, None)
    assert case.tags == [] and case.extensions == {}


def test_extension_keys_are_kept() -> None:
    case = TestCase.model_validate(_case(**{"x-source": {"pr": 12}, "x_note": "hand-made"}))
    assert case.extensions == {"x-source": {"pr": 12}, "x_note": "hand-made"}


def test_models_are_frozen() -> None:
    case = TestCase.model_validate(_case())
    with pytest.raises(ValidationError):
        setattr(case, "query", "other")  # noqa: B010 - the assignment itself is under test


def test_pytest_does_not_collect_the_case_model() -> None:
    assert TestCase.__test__ is False


def test_metadata_keeps_unknown_keys() -> None:
    metadata = GoldSetMetadata.model_validate({"name": "flask", "generated_at": "2024-03-20"})
    assert metadata.name == "flask"
    assert metadata.model_extra == {"generated_at": "2024-03-20"}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("fix-login_42", None),
        ("a/b.c", None),
        ("", "must not be empty"),
        ("a::b", "must not contain '::' (it separates the parts of a pytest node id)"),
        ("a[1]", "must not contain '[' or ']' (pytest uses them for parameters)"),
        ("a b", "must not contain whitespace or control characters (found ' ')"),
        ("a\x07", "must not contain whitespace or control characters (found '\\x07')"),
        ("a\u200bb", "must not contain whitespace or control characters (found '\\u200b')"),
    ],
)
def test_case_id_rules(value: str, problem: str | None) -> None:
    assert case_id_problem(value) == problem


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("src/app.py", None),
        ("..foo/x.py", None),
        ("../x.py", "must not contain a '..' segment, got '../x.py'"),
        ("a/../x.py", "must not contain a '..' segment, got 'a/../x.py'"),
        ("/etc/passwd", "must be relative to the repository root, got '/etc/passwd'"),
        ("C:/x.py", "must be relative to the repository root, got 'C:/x.py'"),
        ("src\\app.py", "must use '/' as the separator, got 'src\\\\app.py'"),
        ("./src//app.py", "must be a normalized path like 'src/app.py', got './src//app.py'"),
    ],
)
def test_path_rules(value: str, problem: str | None) -> None:
    assert path_problem(value) == problem


def test_unknown_field_message_suggests_or_lists() -> None:
    assert unknown_field_message("qeury", ["query", "id"], True) == "unknown field (did you mean 'query'?)"
    assert unknown_field_message("zzz", ["query", "id"], False) == "unknown field (known fields: id, query)"


@pytest.mark.parametrize("value", ["2024-03-15T10:30:00Z", "2024-03-15T10:30:00+02:00", "2024-03-15"])
def test_timestamps_in_iso_8601_are_accepted(value: str) -> None:
    assert TestCase.model_validate(_case(timestamp=value)).timestamp == value


@pytest.mark.parametrize(
    "fields",
    [
        {"timestamp": "last tuesday"},
        {"ground_truth_files": [{"path": "a.py", "relevance": True}]},
        {"ground_truth_files": [{"path": "a.py", "lines": [[1.0, 2]]}]},
        {"ground_truth_files": ["a.py", "a.py"]},
        {"tags": ["ok", ""]},
        {"id": 7},
    ],
)
def test_wrong_values_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        TestCase.model_validate(_case(**fields))


def test_gold_set_refuses_duplicate_ids() -> None:
    with pytest.raises(ValidationError, match="duplicate id 'c1'"):
        GoldSet.model_validate({"test_cases": [_case(), _case()]})


def test_schema_file_is_up_to_date() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == render_schema(), (
        "regenerate: python -m pytest_codesearch.goldset.schema docs/goldset.schema.json"
    )


def test_schema_describes_both_ground_truth_forms_and_extensions() -> None:
    schema = build_schema()
    case = schema["$defs"]["TestCase"]
    assert case["additionalProperties"] is False and "^x[-_]" in case["patternProperties"]
    forms = schema["$defs"]["GroundTruthFile"]["anyOf"]
    assert [form["type"] for form in forms] == ["string", "object"]
    assert schema["$defs"]["MetadataLine"]["required"] == ["metadata"]


def test_schema_main_writes_the_file(tmp_path: Path) -> None:
    target = tmp_path / "schema.json"
    assert main([str(target)]) == 0
    assert json.loads(target.read_text(encoding="utf-8")) == build_schema()
    assert main([]) == 2


def test_entity_truth_is_a_field_and_legacy_extension_keys_are_read() -> None:
    from pytest_codesearch.goldset.model import TestCase

    case = TestCase.model_validate(
        {"id": "c", "query": "q", "ground_truth_files": ["a.py"], "x-ground_truth_functions": ["a.py:A.f"],
         "ground_truth_modules": ["a.py:A"]}
    )
    assert (case.ground_truth_functions, case.ground_truth_modules, case.extensions) == (["a.py:A.f"], ["a.py:A"], {})
