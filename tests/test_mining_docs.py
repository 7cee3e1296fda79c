"""The Python example of ``docs/mining.md`` runs as written, against a repository built with pygit2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

DOC = Path(__file__).resolve().parent.parent / "docs" / "mining.md"


def _python_example() -> str:
    """Return the first Python code block of the mining guide."""
    found = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert found is not None, "docs/mining.md has no Python example"
    return found.group(1)


def test_the_python_example_mines_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "src" / "myproject")
    commit(repo, {"src/app.py": "A = 1\n", "src/db.py": "B = 1\n"}, "Initial import")
    commit(repo, {"src/app.py": "A = 2\n", "src/db.py": "B = 2\n"}, "Store the session in the database")
    monkeypatch.setenv("HOME", str(tmp_path))  # the example mines ~/src/myproject
    monkeypatch.chdir(tmp_path)  # and writes goldsets/myproject.jsonl
    exec(compile(_python_example(), str(DOC), "exec"), {})  # a fresh namespace: the example imports what it uses
    lines = (tmp_path / "goldsets" / "myproject.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["query"] for line in lines[1:]] == ["Store the session in the database"]
    assert "kept (cases written)" in capsys.readouterr().out
