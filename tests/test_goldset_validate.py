"""validate.py against real repositories built with pygit2: one test per kind of problem, exact messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, init_repo
from shop_repo import swebench_workspace

from pytest_codesearch.goldset.validate import (
    ERROR,
    WARNING,
    Problem,
    defines_symbol,
    format_table,
    goldset_files,
    line_count,
    query_leak,
    summary,
    validate_files,
    validate_goldset,
)
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo.snapshot import SnapshotStore

APP = '''\
"""The app."""


class Shop:
    def checkout(self):
        return 1


def helper():
    return 2
'''


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """Return a repository with three files and its only commit."""
    repo = init_repo(tmp_path / "project")
    base = commit(repo, {"src/app.py": APP, "src/main.c": "int run_main(void) { return 0; }\n", "README": "hi"}, "Add")
    return tmp_path / "project", base


def _case(**changes: Any) -> dict[str, Any]:
    case: dict[str, Any] = {"id": "c1", "query": "where is the checkout", "ground_truth_files": ["src/app.py"]}
    case.update(changes)
    return case


def _validate(project: tuple[Path, str], *cases: dict[str, Any]) -> list[Problem]:
    root, base = project
    path = root.parent / "gold.jsonl"
    header = {"metadata": {"repo": "project", "base_commit": base}}
    path.write_text("\n".join(json.dumps(line) for line in (header, *cases)) + "\n")
    store = SnapshotStore(root.parent / "cache", materialize=False)
    return validate_goldset(path, "gold.jsonl", store)[0]


def test_a_clean_case_has_no_problem(project: tuple[Path, str]) -> None:
    truth = {"path": "src/app.py", "lines": [[1, 10]], "symbols": ["src.app.Shop.checkout", "src/app.py:helper"]}
    assert _validate(project, _case(ground_truth_files=[truth, "src/main.c"])) == []


def test_a_missing_file_is_named_with_the_closest_one(project: tuple[Path, str]) -> None:
    tree = str(__import__("pygit2").Repository(str(project[0]))[project[1]].tree_id)[:10]
    assert _validate(project, _case(ground_truth_files=["src/apps.py", "nowhere/at/all.txt"])) == [
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[0]",
                f"'src/apps.py' is not in tree {tree} (did you mean 'src/app.py'?)"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[1]", f"'nowhere/at/all.txt' is not in tree {tree}"),
    ]


def test_a_line_range_past_the_end_is_an_error(project: tuple[Path, str]) -> None:
    truth = {"path": "src/app.py", "lines": [[1, 10], [9, 11]]}
    assert _validate(project, _case(ground_truth_files=[truth])) == [
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[0].lines[1]",
                "[9, 11] ends past the last line of 'src/app.py' (10 lines)"),
    ]


def test_a_start_below_one_is_reported_as_the_reader_gives_it(project: tuple[Path, str]) -> None:
    truth = {"path": "src/app.py", "lines": [[0, 2]]}
    assert _validate(project, _case(ground_truth_files=[truth])) == [
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[0].lines[0]", "line numbers start at 1, got [0, 2]"),
    ]


def test_undefined_symbols_are_errors(project: tuple[Path, str]) -> None:
    python = {"path": "src/app.py", "symbols": ["Shop.pay", "Shop.helper", "Shop.checkout"]}
    c_file = {"path": "src/main.c", "symbols": ["main.c:run_main", "stop_main"]}
    text = {"path": "README", "symbols": ["hi", "bye"]}  # no outline: the name must occur in the file
    assert _validate(project, _case(ground_truth_files=[python, c_file, text])) == [
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[0].symbols[0]",
                "'Shop.pay' is not a function, class or method defined in 'src/app.py'"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[0].symbols[1]",
                "'Shop.helper' is not a function, class or method defined in 'src/app.py'"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[1].symbols[1]",
                "'stop_main' is not a function, class or method defined in 'src/main.c'"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_files[2].symbols[1]", "'bye' does not occur in 'README'"),
    ]


def test_functions_and_modules_must_be_defined_at_the_base(project: tuple[Path, str]) -> None:
    functions = ["src/app.py:Shop.checkout", "src/main.c:run_main", "src/main.c:stop_main", "src/gone.go:Run",
                 "README:anything"]  # fmt: skip
    modules = ["src/app.py:Shop", "src/app.py:Cart"]
    assert _validate(project, _case(ground_truth_functions=functions, ground_truth_modules=modules)) == [
        Problem("gold.jsonl", 2, "c1", "ground_truth_functions[2]",
                "'stop_main' is not a function, class or method defined in 'src/main.c' at the base"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_functions[3]",
                f"'src/gone.go' is not in tree {_tree(project)}"),
        Problem("gold.jsonl", 2, "c1", "ground_truth_modules[1]",
                "'Cart' is not a function, class or method defined in 'src/app.py' at the base"),
    ]


def _tree(project: tuple[Path, str]) -> str:
    return str(__import__("pygit2").Repository(str(project[0]))[project[1]].tree_id)[:10]


def test_a_duplicate_id_is_reported_at_its_second_line(project: tuple[Path, str]) -> None:
    assert _validate(project, _case(), _case()) == [
        Problem("gold.jsonl", 3, "", "id", "duplicate of line 2"),
    ]


def test_broken_entries_are_reported_as_the_reader_gives_them(project: tuple[Path, str]) -> None:
    assert _validate(project, _case(query=""), [1], _case(id="c3", ground_truth_files="x")) == [
        Problem("gold.jsonl", 2, "c1", "query", "must not be empty"),
        Problem("gold.jsonl", 3, "", "", "a case must be a JSON object, got array"),
        Problem("gold.jsonl", 4, "c3", "ground_truth_files", "must be a list"),
    ]


def test_a_query_that_names_its_answer_is_a_warning(project: tuple[Path, str]) -> None:
    assert _validate(project, _case(query="what does app.py do"), _case(id="c2", query="see src/app.py")) == [
        Problem("gold.jsonl", 2, "c1", "query",
                "names its answer: the query contains the ground-truth file name 'app.py'", WARNING),
        Problem("gold.jsonl", 3, "c2", "query",
                "names its answer: the query contains the ground-truth path 'src/app.py'", WARNING),
    ]


def test_an_unknown_commit_and_a_missing_repo_are_errors(project: tuple[Path, str]) -> None:
    root = project[0].resolve()
    problems = _validate(project, _case(base_commit="0" * 40), _case(id="c2", repo="elsewhere"))
    assert [(p.line, p.field, p.level) for p in problems] == [(2, "base_commit", ERROR), (3, "repo", ERROR)]
    assert problems[0].message.startswith(f"{root}: ")
    assert problems[1].message == f"'elsewhere' (resolved to {root.parent / 'elsewhere'}) is not a directory"


def test_a_whole_file_error_keeps_its_line(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text('{"metadata": {"name": 3}}\n')
    problems, count = validate_goldset(path, "gold.jsonl", SnapshotStore(tmp_path / "cache", materialize=False))
    assert (count, problems) == (0, [Problem("gold.jsonl", 1, "", "metadata.name", "must be a string")])


def test_swebench_instances_are_validated(tmp_path: Path) -> None:
    swebench_workspace(tmp_path)
    store = SnapshotStore(tmp_path / "cache", materialize=False)
    result = validate_files([(tmp_path / "instances.jsonl", "instances.jsonl")], store)
    assert (result.files, result.cases, result.errors) == (1, 2, 0)


def test_files_are_found_in_directories_once(tmp_path: Path) -> None:
    for name in ("a.jsonl", "sub/b.jsonl", ".hidden/c.jsonl", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(_case()) + "\n")
    found = list(goldset_files([tmp_path, tmp_path / "a.jsonl"]))
    assert found == [tmp_path / "a.jsonl", tmp_path / "sub" / "b.jsonl"]


def test_the_table_has_one_sorted_line_per_problem_and_a_summary() -> None:
    problems = [
        Problem("b.jsonl", 2, "c2", "query", "names its answer", WARNING),
        Problem("a.jsonl", 12, "c1", "ground_truth_files[0]", "'x.py' is not in tree abc"),
        Problem("a.jsonl", 0, "", "", "line 3: invalid JSON"),
    ]
    assert format_table(problems).splitlines() == [
        "location    level    case  field                  message",
        "a.jsonl     error    -     -                      line 3: invalid JSON",
        "a.jsonl:12  error    c1    ground_truth_files[0]  'x.py' is not in tree abc",
        "b.jsonl:2   warning  c2    query                  names its answer",
    ]
    result = validate_files([], SnapshotStore(Path("unused"), materialize=False))
    assert summary(result) == "codesearch: validated 0 gold-set file(s), 0 case(s): 0 error(s), 0 warning(s)"


@pytest.mark.parametrize(
    ("data", "count"), [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"\n\n", 2)]
)
def test_line_count(data: bytes, count: int) -> None:
    assert line_count(data) == count


def test_python_symbols_match_by_qualified_name_suffix() -> None:
    data = APP.encode()
    names = ("Shop", "app.Shop.checkout", "src.app.helper", "x.py:helper", "hop.checkout", "other.helper", "Shop.helper")
    assert [defines_symbol("src/app.py", data, s) for s in names] == [True, True, True, True, False, False, False]
    assert not defines_symbol("a.py", b"def (", "anything")


def test_a_file_name_inside_a_longer_word_is_no_leak() -> None:
    case = TestCase.model_validate(_case(query="the myapp.pyc loader and src/app.pyx", ground_truth_files=["src/app.py"]))
    assert query_leak(case) is None
