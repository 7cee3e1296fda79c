"""YAML query files: strict types, errors with file lines, substring matching by default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_codesearch.goldset.formats import reader_for
from pytest_codesearch.goldset.formats.yaml_queries import load_yaml_queries

GOOD = """\
repo: engine
queries:
  - id: collision
    query: Where are two bodies tested for collision?
    category: function_search
    expected_files:
      - Physics/Collision.cpp
    expected_symbols: [DetectCollision]
  - id: config
    query: How is the config read?
    category: concept_search
    expected_files: [config.py, settings/]
"""


def _write(tmp_path: Path, text: str, name: str = "queries.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_queries_with_their_lines_and_substring_matching(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD.replace(", settings/]", "]"))
    loaded = load_yaml_queries(path)
    assert loaded.error is None
    assert loaded.metadata.match == "substring" and loaded.metadata.repo == "engine"
    assert [(e.line, e.error) for e in loaded.entries] == [(3, None), (9, None)]
    first = loaded.entries[0].case
    assert first is not None
    assert first.category == "function_search"
    assert [(f.path, f.symbols) for f in first.ground_truth_files] == [("Physics/Collision.cpp", ["DetectCollision"])]
    assert reader_for(path) is not None and reader_for(path).name == "yaml-queries"  # type: ignore[union-attr]


def test_a_bare_list_and_an_explicit_exact_rule(tmp_path: Path) -> None:
    bare = _write(tmp_path, "- id: a\n  query: q\n  category: c\n  expected_files: [a.py]\n")
    assert load_yaml_queries(bare).metadata.match == "substring"
    exact = _write(tmp_path, "match: exact\nqueries:\n  - {id: a, query: q, category: c, expected_files: [a.py]}\n", "e.yml")
    assert load_yaml_queries(exact).metadata.match == "exact"


def test_yaml_11_values_are_refused_where_strings_belong(tmp_path: Path) -> None:
    text = (
        "- id: 0123\n  query: q\n  category: c\n  expected_files: [a.py]\n"
        "- id: b\n  query: yes\n  category: c\n  expected_files: [a.py]\n"
        "- id: c\n  query: q\n  category: c\n  expected_files:\n    - a.py\n    - 1.10\n"
    )
    entries = load_yaml_queries(_write(tmp_path, text)).entries
    assert [(e.line, e.error) for e in entries] == [
        (1, "id: must be a string, got a number '0123'; quote it to keep it as written"),
        (6, "query: must be a string, got a boolean 'yes'; quote it to keep it as written"),
        (14, "expected_files[1]: must be a string, got a number '1.10'; quote it to keep it as written"),
    ]


def test_one_broken_query_fails_alone(tmp_path: Path) -> None:
    text = GOOD + "  - id: collision\n    query: again\n    category: c\n    expected_files: [x.py]\n"
    text += "  - id: odd\n    query: q\n    categroy: c\n    expected_files: [x.py]\n"
    text += "  - id: bad-path\n    query: q\n    category: c\n    expected_files: [../x.py]\n"
    entries = load_yaml_queries(_write(tmp_path, text)).entries
    assert [(e.line, e.error) for e in entries] == [
        (3, None),
        (12, "expected_files[1]: must be a normalized path like 'settings', got 'settings/'"),
        (13, "id: duplicate of line 3"),
        (19, "categroy: unknown field (did you mean 'category'?)"),
        (24, "expected_files[0]: must not contain a '..' segment, got '../x.py'"),
    ]


def test_whole_file_problems_name_their_line(tmp_path: Path) -> None:
    assert load_yaml_queries(_write(tmp_path, "queries: [\n")).error == (
        "line 2: invalid YAML: expected the node content, but found '<stream end>'"
    )
    assert load_yaml_queries(_write(tmp_path, "repo: x\nquery: []\n")).error == (
        "line 2: query: unknown field (did you mean 'queries'?)"
    )
    assert load_yaml_queries(_write(tmp_path, "match: fuzzy\nqueries: []\n")).error == (
        "line 1: match: Input should be 'exact' or 'substring'"
    )


@pytest.mark.parametrize("with_commit", [False, True], ids=["working-tree", "base-commit"])
def test_the_oracle_answers_a_substring_entry_with_the_file_that_holds_it(
    pytester: pytest.Pytester, with_commit: bool
) -> None:
    from gitrepo import commit, init_repo, write_files

    files = {"pkg/mod1.py": "def f():\n    pass\n", "mod2.py": "x = 1\n"}
    head = commit(init_repo(pytester.path / "repo"), files, "first")
    write_files(pytester.path / "repo", files)
    base = f"base_commit: {head}\n" if with_commit else ""
    pytester.makefile(".yaml", queries=f"repo: repo\n{base}queries:\n  - id: q1\n    query: where is f\n"
                      "    category: function_search\n    expected_files: [mod1.py]\n")  # fmt: skip
    pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1").assert_outcomes(passed=1)
    (record,) = json.loads((pytester.path / "codesearch-report" / "results.json").read_text())["cases"]
    assert (record["retrieved"], record.get("dropped", []), record["metrics"]["recall"]) == (["pkg/mod1.py"], [], 1.0)
