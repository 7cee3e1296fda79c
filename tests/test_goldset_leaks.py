"""One leaky-query rule: a query naming a ground-truth path or its module, judged alike by the miner and validate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.goldset.leaks import Leak, find_leak
from pytest_codesearch.goldset.validate import WARNING, validate_files
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset
from pytest_codesearch.repo.snapshot import SnapshotStore

PATHS = ["src/app.py", "Makefile", "examples/flaskr/flaskr/__init__.py", "src/flask/json/provider.py"]


@pytest.mark.parametrize(
    ("query", "leak"),
    [
        ("Fix the crash in app.py when empty", ("src/app.py", "app.py", "file name")),
        ("Fix src/app.py startup.", ("src/app.py", "src/app.py", "path")),
        ("Rename APP.PY to main.py", ("src/app.py", "app.py", "file name")),
        ("Update the Makefile targets", ("Makefile", "Makefile", "path")),
        ("Fix flaskr import in flaskr/__init__.py", ("examples/flaskr/flaskr/__init__.py", "flaskr/__init__.py", "path end")),
        ("Import from examples.flaskr.flaskr", ("examples/flaskr/flaskr/__init__.py", "examples.flaskr.flaskr", "module")),
        ("Move flask.json.provider.dumps out", ("src/flask/json/provider.py", "flask.json.provider", "module")),
        ("Fix json.provider loading", ("src/flask/json/provider.py", "json.provider", "module")),
        ("Use myapp.py instead", None),
        ("Read app.pyc files", None),
        ("Fix pre-app.py", None),
        ("Fix other/app.py", None),  # another path with the same file name
        ("Fix the app startup", None),
        ("Fixes import statement in flaskr", None),  # one name: the package, not a file
        ("Read the JSON provider setting", None),
    ],
)
def test_what_names_a_ground_truth_file(query: str, leak: tuple[str, str, str] | None) -> None:
    assert find_leak(query, PATHS) == (None if leak is None else Leak(*leak))


def test_a_module_of_two_names_leaks_and_one_name_does_not() -> None:
    assert find_leak("Fix src.app startup", ["src/app.py"]) == Leak("src/app.py", "src.app", "module")
    assert find_leak("Fix the flask app", ["src/flask/__init__.py", "flask.py"]) is None


def test_the_first_path_named_is_given_as_validation_words_it() -> None:
    found = [find_leak("see flask/json/provider.py and app.py", PATHS), find_leak("see flask.json.provider", PATHS)]
    assert [leak.describe() if leak else None for leak in found] == [
        "the query contains the ground-truth file name 'app.py'",
        "the query contains 'flask.json.provider', the module of the ground-truth file 'src/flask/json/provider.py'",
    ]
    assert Leak("a/b.py", "a/b.py", "path").describe() == "the query contains the ground-truth path 'a/b.py'"
    assert Leak("x/a/b.py", "a/b.py", "path end").describe() == (
        "the query contains 'a/b.py', the end of the ground-truth path 'x/a/b.py'"
    )


def test_the_miner_marks_leaky_exactly_the_queries_validate_warns_about(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    package = "examples/flaskr/flaskr"
    commit(repo, {f"{package}/__init__.py": "from flaskr.flaskr import app\n", f"{package}/db.py": "def close():\n    pass\n"})
    commit(repo, {f"{package}/__init__.py": "from .flaskr import app\n"}, "Fix flaskr import in flaskr/__init__.py")
    commit(repo, {f"{package}/db.py": "def close():\n    db.close()\n"}, "Close the connection of flaskr.db on teardown")
    commit(repo, {f"{package}/db.py": "def close():\n    g.db.close()\n"}, "Close the database connection on teardown")
    output = tmp_path / "mined.jsonl"
    stats = generate_goldset(tmp_path / "project", output, FilterConfig(keep_leaky=True), workers=1, lines=False)
    cases = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()[1:]]
    assert [(case["query"], case["leaky"]) for case in cases] == [
        ("Close the database connection on teardown", False),
        ("Close the connection of flaskr.db on teardown", True),
        ("Fix flaskr import in flaskr/__init__.py", True),
    ]
    result = validate_files([(output, "mined.jsonl")], SnapshotStore(tmp_path / "snapshots", materialize=False))
    assert [(p.line, p.field, p.level, p.message) for p in result.problems] == [
        (3, "query", WARNING, "names its answer: the query contains 'flaskr.db', the module of the ground-truth file "
                              "'examples/flaskr/flaskr/db.py'"),
        (4, "query", WARNING, "names its answer: the query contains 'flaskr/__init__.py', the end of the ground-truth "
                              "path 'examples/flaskr/flaskr/__init__.py'"),
    ]
    dropped = generate_goldset(tmp_path / "project", tmp_path / "strict.jsonl", FilterConfig(), workers=1, lines=False)
    assert (stats.kept, dropped.kept, dropped.dropped.get("leaky query")) == (3, 1, 2)
