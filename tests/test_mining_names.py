"""Case ids and the ``repo`` of mined cases: the same for a commit in any clone, the path the user gave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest
from gitrepo import commit, init_repo

from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import generate_goldset
from pytest_codesearch.mining.walk import repository_name

APP = "def app():\n    return 'form'\n"


def _history(repo: pygit2.Repository) -> list[str]:
    """Write three commits, the last two of which make cases; return their ids, oldest first."""
    return [
        commit(repo, {"src/app.py": APP, "src/db.py": "DB = 1\n"}, "Initial import"),
        commit(repo, {"src/app.py": APP + "X = 1\n"}, "Validate the login form before saving it"),
        commit(repo, {"src/db.py": "DB = 2\n"}, "Retry the database connection on timeouts"),
    ]


def _mine(path: Path, output: Path, **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    generate_goldset(path, output, FilterConfig(), workers=1, **options)
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    return lines[1:], lines[0]["metadata"]


def test_clones_in_differently_named_folders_give_the_same_ids(tmp_path: Path) -> None:
    ids = _history(init_repo(tmp_path / "upstream"))
    for folder in ("main", "proj"):
        pygit2.clone_repository(str(tmp_path / "upstream"), str(tmp_path / folder))
    main, main_meta = _mine(tmp_path / "main", tmp_path / "out" / "main.jsonl")
    proj, _ = _mine(tmp_path / "proj", tmp_path / "out" / "proj.jsonl")
    expected = [f"upstream-{ids[2][:12]}", f"upstream-{ids[1][:12]}"]
    assert [case["id"] for case in main] == [case["id"] for case in proj] == expected
    assert [case["repo"] for case in main] == ["../main", "../main"]
    assert (main_meta["name"], main_meta["repository"]) == ("upstream", "upstream")


def test_a_given_name_starts_every_id(tmp_path: Path) -> None:
    ids = _history(init_repo(tmp_path / "checkout"))
    cases, metadata = _mine(tmp_path / "checkout", tmp_path / "out" / "x.jsonl", name="flask")
    assert [case["id"] for case in cases] == [f"flask-{ids[2][:12]}", f"flask-{ids[1][:12]}"]
    assert metadata["name"] == "flask"


def test_without_a_remote_the_folder_names_the_ids(tmp_path: Path) -> None:
    ids = _history(init_repo(tmp_path / "checkout"))
    cases, _ = _mine(tmp_path / "checkout", tmp_path / "out" / "x.jsonl")
    assert [case["id"] for case in cases] == [f"checkout-{ids[2][:12]}", f"checkout-{ids[1][:12]}"]


def test_a_bare_repository_without_a_config_file_is_named_by_the_path_given(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "mirror" / "repo", bare=True)
    ids = _history(repo)
    (tmp_path / "mirror" / "repo" / "config").unlink()
    output = tmp_path / "out" / "mirror.jsonl"
    cases, _ = _mine(tmp_path / "mirror" / "repo", output)
    assert [(case["id"], case["repo"]) for case in cases] == [
        (f"repo-{ids[2][:12]}", "../mirror/repo"),
        (f"repo-{ids[1][:12]}", "../mirror/repo"),
    ]
    reopened = pygit2.Repository(str(output.parent / cases[0]["repo"]))
    assert str(reopened[cases[0]["base_commit"]].id) == ids[1]


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://github.com/pallets/flask.git", "flask"),
        ("https://github.com/pallets/flask/", "flask"),
        ("git@github.com:pallets/flask.git", "flask"),
        ("git@host:flask", "flask"),
        ("/src/flask/.git", "flask"),
        ("file:///src/flask.git", "flask"),
        ("C:\\src\\flask", "flask"),
    ],
)
def test_the_origin_remote_names_the_repository(tmp_path: Path, url: str, name: str) -> None:
    repo = init_repo(tmp_path / "elsewhere")
    repo.remotes.create("origin", url)
    assert repository_name(repo) == name
