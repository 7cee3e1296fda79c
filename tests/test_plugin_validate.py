"""``pytest --codesearch-validate``: the table, the summary and the exit status, run the way users run it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gitrepo import commit, init_repo
from shop_repo import swebench_workspace


def _goldset(root: Path, *queries: tuple[str, str], repo: str = "project") -> str:
    """Build a repository under ``root`` and return the text of a gold set with one case per (id, path)."""
    base = commit(init_repo(root / "project"), {"src/app.py": "def run():\n    return 1\n"}, "Add")
    lines = [{"metadata": {"repo": repo, "base_commit": base}}]
    lines += [{"id": case_id, "query": query, "ground_truth_files": ["src/app.py"]} for case_id, query in queries]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def test_errors_are_listed_and_exit_1(pytester: pytest.Pytester) -> None:
    text = _goldset(pytester.path, ("ok", "where do we run"), ("leaky", "what is in src/app.py"), repo="../project")
    bad = text.replace('"ground_truth_files": ["src/app.py"]}', '"ground_truth_files": ["src/apps.py"]}', 1)
    (pytester.path / "goldsets").mkdir()
    (pytester.path / "goldsets" / "gold.jsonl").write_text(bad)
    result = pytester.runpytest("--codesearch-validate", "goldsets")
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "location *level *case *field *message",
        "goldsets/gold.jsonl:2 *error *ok *ground_truth_files[[]0[]] *'src/apps.py' is not in tree * "
        "(did you mean 'src/app.py'?)",
        "goldsets/gold.jsonl:3 *warning *leaky *query *names its answer: * path 'src/app.py'",
        "codesearch: validated 1 gold-set file(s), 2 case(s): 1 error(s), 1 warning(s)",
    ])
    result.stdout.no_fnmatch_line("*passed*")


def test_a_run_and_validate_suggest_the_same_path(pytester: pytest.Pytester) -> None:
    files = {"src/project/app.py": "def run():\n    return 1\n", "src/project/cli.py": "def main():\n    pass\n"}
    base = commit(init_repo(pytester.path / "project"), files, "Add")
    case = {"id": "short", "query": "where do we run", "ground_truth_files": ["app.py"]}
    pytester.makefile(".jsonl", gold=json.dumps({"metadata": {"repo": "project", "base_commit": base}}) + "\n"
                      + json.dumps(case) + "\n")
    hint = "'app.py' is not in tree * (did you mean 'src/project/app.py'?)"
    validated = pytester.runpytest("--codesearch-validate")
    validated.stdout.fnmatch_lines([f"gold.jsonl:2 *error *short *ground_truth_files[[]0[]] *{hint}"])
    ran = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save")
    ran.assert_outcomes(failed=1)
    ran.stdout.fnmatch_lines([f"*gold.jsonl:2: ground_truth_files: {hint}"])


def test_warnings_alone_exit_0_and_no_case_runs(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", gold=_goldset(pytester.path, ("leaky", "what does app.py do")))
    result = pytester.runpytest("--codesearch-validate", "--codesearch-agent=oracle")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["gold.jsonl:2 *warning*", "*: 0 error(s), 1 warning(s)"])
    assert not (pytester.path / "codesearch-report").exists()


def test_swebench_instances_validate_clean(pytester: pytest.Pytester) -> None:
    swebench_workspace(pytester.path)
    result = pytester.runpytest("--codesearch-validate", "instances.jsonl", "lite.json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["codesearch: validated 2 gold-set file(s), * case(s): 0 error(s), 0 warning(s)"])


def test_a_missing_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codesearch-validate", "nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codesearch-validate: no such file or directory: *nowhere"])


def test_the_shipped_goldsets_are_clean(tmp_path: Path) -> None:
    from pytest_codesearch.goldset.validate import goldset_files, validate_files
    from pytest_codesearch.repo.snapshot import SnapshotStore

    root = Path(__file__).parent.parent
    files = [(path, path.name) for path in goldset_files([root / "goldsets"])]
    result = validate_files(files, SnapshotStore(tmp_path, materialize=False))
    assert (result.files, result.problems) == (2, [])


def test_the_python_example_of_the_docs_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (Path(__file__).parent.parent / "docs" / "validation.md").read_text(encoding="utf-8")
    example = page.split("```python\n", 1)[1].split("```", 1)[0]
    swebench_workspace(tmp_path / "goldsets")
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "docs/validation.md", "exec"), {})
    assert capsys.readouterr().out == " 0 0\n"


DATA = Path(__file__).parent / "data"


def test_sets_that_run_fine_validate_clean_with_the_runs_resolver(pytester: pytest.Pytester) -> None:
    """A YAML query file (substring entries) and an FQN set naming a re-export and a function defined in a
    package's ``__init__.py`` validate with no error, as they run; a real miss is still an error."""
    shutil.copytree(DATA / "yaml", pytester.path / "yaml")
    shutil.copytree(DATA / "fqn", pytester.path / "fqn")
    init = pytester.path / "fqn" / "project" / "src" / "adk" / "agents" / "__init__.py"
    init.write_text(init.read_text() + "\n\ndef make_agent():\n    return ParallelAgent()\n")
    query = {"id": "factory", "query": "Which function builds an agent?", "positive_ctxs": [{"fqn": "adk.agents.make_agent"}]}
    with (pytester.path / "fqn" / "retrieval.jsonl").open("a") as stream:
        stream.write(json.dumps(query) + "\n")
    clean = pytester.runpytest("--codesearch-validate", "yaml", "fqn")
    clean.stdout.fnmatch_lines(["codesearch: validated 2 gold-set file(s), 5 case(s): 0 error(s), 0 warning(s)"])
    assert clean.ret == 0
    ran = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save", "yaml", "fqn")
    ran.assert_outcomes(passed=5)
    queries = pytester.path / "yaml" / "queries.yaml"
    queries.write_text(queries.read_text().replace("[hashing.py]", "[hashed.py]"))
    broken = pytester.runpytest("--codesearch-validate", "yaml")
    assert broken.ret == 1
    broken.stdout.fnmatch_lines(["yaml/queries.yaml:4 *error *hashing *ground_truth_files[[]0[]] *'hashed.py' is not in*"])
