"""``pytest --codesearch-generate`` and the YAML config, as users run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

from example_project import read_results

APP = "def login(user):\n    return check_password(user)\n"


def _history(root: Path) -> list[str]:
    """A small history: a root commit, two kept feature commits, a docs-only commit."""
    repo = init_repo(root)
    return [
        commit(repo, {"src/app.py": APP, "src/db.py": "def connect(): ...\n"}, "Initial import"),
        commit(repo, {"src/app.py": APP + "def logout(): ...\n"}, "Add a logout action for signed in users"),
        commit(repo, {"src/db.py": "def connect(retries=3): ...\n", "src/app.py": APP + "X = 1\n"},
               "Retry the database connection when it drops"),
        commit(repo, {"README.md": "hello\n"}, "Describe the project in the readme"),
    ]


def test_generate_writes_a_goldset_and_runs_no_tests(pytester: pytest.Pytester) -> None:
    ids = _history(pytester.path / "project")
    result = pytester.runpytest("--codesearch-generate", "--codesearch-repo=project", "--codesearch-output=out.jsonl")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "mined *out.jsonl in *",
        "*commits examined*4",
        "*kept (cases written)*2",
        "*dropped: root commit*1",
        "codesearch: warning: case ids start with 'project', the repository folder's name (it has no origin "
        "remote); give --codesearch-name NAME for ids that are the same in every clone",
        "run it: pytest --codesearch-agent=bm25 out.jsonl",
    ])
    assert "passed" not in result.stdout.str()
    lines = [json.loads(line) for line in (pytester.path / "out.jsonl").read_text().splitlines()]
    cases = {c["query"]: c for c in lines[1:]}
    retry = cases["Retry the database connection when it drops"]
    assert retry["base_commit"] == ids[1]
    assert retry["ground_truth_files"] == [
        {"path": "src/app.py", "lines": [[3, 3]]}, {"path": "src/db.py", "lines": [[1, 1]]}
    ]  # fmt: skip
    changed = ["src/app.py:logout", "src/db.py:connect"]
    assert retry["ground_truth_functions"] == retry["ground_truth_modules"] == changed
    assert retry["repo"] == "project"
    logout = cases["Add a logout action for signed in users"]
    assert logout["ground_truth_files"] == [{"path": "src/app.py", "lines": [[2, 2]]}]  # appended after login
    assert logout["ground_truth_functions"] == ["src/app.py:login"]


def test_generate_lines_false_writes_files_only(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "project")
    args = ["--codesearch-generate", "--codesearch-repo=project", "--codesearch-output=out.jsonl"]
    assert pytester.runpytest(*args, "--codesearch-generate-lines=false").ret == 0
    cases = [json.loads(line) for line in (pytester.path / "out.jsonl").read_text().splitlines()[1:]]
    assert [sorted(case["ground_truth_files"]) for case in cases] == [["src/app.py", "src/db.py"], ["src/app.py"]]
    assert not any("ground_truth_functions" in case for case in cases)


def test_mined_goldset_evaluates_at_each_parent(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "project")
    pytester.runpytest("--codesearch-generate", "--codesearch-repo=project", "--codesearch-output=out.jsonl")
    result = pytester.runpytest("--codesearch-agent=oracle,keyword", "out.jsonl")
    result.assert_outcomes(passed=4)
    data = read_results(pytester.path)
    assert len({c["snapshot"] for c in data["cases"]}) == 2  # one tree per parent commit
    assert data["agents"]["oracle"]["metrics"]["mrr"]["mean"] == 1.0


def test_generate_reports_a_bad_repository_as_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "plain").mkdir()
    result = pytester.runpytest("--codesearch-generate", "--codesearch-repo=plain")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*plain*not a git repository*"])
    assert "Traceback" not in result.stderr.str()


def test_transform_hook_rewrites_queries(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "project")
    pytester.makeconftest(
        """
        def pytest_codesearch_transform_query(query, commit, config):
            return "where is the code to " + query.lower()
        """
    )
    pytester.runpytest("--codesearch-generate", "--codesearch-repo=project", "--codesearch-output=out.jsonl")
    cases = [json.loads(line) for line in (pytester.path / "out.jsonl").read_text().splitlines()[1:]]
    assert {c["query_source"] for c in cases} == {"hook"}
    assert all(c["query"].startswith("where is the code to ") for c in cases)


def test_yaml_config_drives_generation_and_evaluation(pytester: pytest.Pytester) -> None:
    _history(pytester.path / "project")
    (pytester.path / "agents_here.py").write_text(
        "class Fixed:\n"
        "    def __init__(self, answer):\n        self.answer = answer\n"
        "    def initialize(self, repo_path): pass\n"
        "    def retrieve(self, query): return [self.answer]\n"
        "    def reset(self): pass\n"
    )
    (pytester.path / "bench.yaml").write_text(
        "dataset:\n  repository: project\n  output: gold/mined.jsonl\n  min_files: 2\n"
        "evaluation:\n  runs: 2\n  seed: 11\n"
        "agents:\n  - name: fixed-db\n    class: agents_here:Fixed\n    config: {answer: src/db.py}\n"
        "output:\n  directory: reports\n  formats: [json]\n"
    )
    gen = pytester.runpytest("--codesearch-generate", "--codesearch-config=bench.yaml")
    assert gen.ret == 0
    assert len((pytester.path / "gold" / "mined.jsonl").read_text().splitlines()) == 2  # metadata + 1 case
    pytester.syspathinsert()
    result = pytester.runpytest("--codesearch-config=bench.yaml", "gold")
    result.assert_outcomes(passed=1)
    data = read_results(pytester.path, "reports")
    assert data["run"]["seed"] == 11 and data["run"]["runs"] == 2
    assert data["cases"][0]["agent"] == "fixed-db" and data["cases"][0]["metrics"]["recall"] == 0.5
    assert sorted(p.name for p in (pytester.path / "reports").iterdir()) == [".codesearch.lock", "journal.jsonl", "results.json"]


def test_yaml_unknown_key_names_file_line_and_key(pytester: pytest.Pytester) -> None:
    (pytester.path / "bench.yaml").write_text("evaluation:\n  runs: 2\n  sead: 3\n")
    (pytester.path / "g.jsonl").write_text('{"id": "a", "query": "q", "ground_truth_files": ["x"], "repo": "."}\n')
    result = pytester.runpytest("--codesearch-config=bench.yaml", "--codesearch-agent=oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bench.yaml:3: evaluation.sead: unknown key (did you mean 'seed'?)*"])


def test_yaml_values_are_not_coerced(pytester: pytest.Pytester) -> None:
    (pytester.path / "bench.yaml").write_text("evaluation:\n  runs: '3'\n  randomize: yes\n")
    result = pytester.runpytest("--codesearch-config=bench.yaml", "--codesearch-agent=oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: bench.yaml:2: evaluation.runs: expected an integer, got '3'",
        "bench.yaml:3: evaluation.randomize: expected true or false, got 'yes'",
    ])


def test_command_line_overrides_yaml(pytester: pytest.Pytester) -> None:
    (pytester.path / "repo").mkdir()
    (pytester.path / "repo" / "a.py").write_text("x = 1\n")
    (pytester.path / "g.jsonl").write_text('{"id": "a", "query": "q", "ground_truth_files": ["a.py"], "repo": "repo"}\n')
    (pytester.path / "bench.yaml").write_text("evaluation:\n  runs: 2\n  seed: 5\n")
    result = pytester.runpytest("--codesearch-config=bench.yaml", "--codesearch-agent=oracle", "--codesearch-runs=4")
    result.assert_outcomes(passed=1)
    data = read_results(pytester.path)
    assert data["run"]["runs"] == 4 and data["run"]["seed"] == 5
    assert len(data["cases"][0]["latencies_ms"]) == 4


@pytest.mark.slow
def test_real_history_evaluates_under_xdist_at_each_parent(pytester: pytest.Pytester) -> None:
    """This project's own history, mined and evaluated with bm25 under -n 2: each case searches its parent."""
    import pygit2

    from pytest_codesearch.repo.snapshot import find_repository

    here = find_repository(Path(__file__).parent)
    if here is None or pygit2.Repository(str(here)).is_shallow:
        pytest.skip("needs a full git checkout of this project")
    (pytester.path / "bench.yaml").write_text("dataset:\n  max_commits: 25\n")
    mined = pytester.runpytest_subprocess(
        "--codesearch-generate", f"--codesearch-repo={here}", "--codesearch-output=real.jsonl",
        "--codesearch-config=bench.yaml",
    )
    assert mined.ret == 0
    cases = [json.loads(line) for line in (pytester.path / "real.jsonl").read_text().splitlines()[1:]]
    assert cases, "the history should give at least one case"
    repo = pygit2.Repository(str(here))
    for case in cases:
        assert case["base_commit"] == str(repo[case["commit_hash"]].peel(pygit2.Commit).parent_ids[0])
    result = pytester.runpytest_subprocess(
        "--codesearch-agent=bm25", "real.jsonl", "-p", "xdist", "-n", "2", "--dist", "loadgroup"
    )
    result.assert_outcomes(passed=len(cases))
    records = read_results(pytester.path)["cases"]
    assert {r["status"] for r in records} == {"ok"}
    for record in records:
        parent = repo[record["base_commit"]].peel(pygit2.Commit)
        assert record["snapshot"] == str(parent.tree_id)


def test_mined_functions_score_an_answer_at_function_level(pytester: pytest.Pytester) -> None:
    """A mined gold set carries functions and modules, so an agent naming the right ones scores at those levels."""
    _history(pytester.path / "project")
    (pytester.path / "agents_here.py").write_text(
        "from pytest_codesearch import RetrievalResult\n"
        "class Right:\n"
        "    def initialize(self, repo_path): pass\n"
        "    def retrieve(self, query):\n"
        "        if query.startswith('Retry'):\n"
        "            return RetrievalResult(files=['src/db.py', 'src/app.py'],\n"
        "                                   functions=['src/db.py:connect', 'src/app.py:logout'])\n"
        "        return RetrievalResult(files=['src/app.py'], functions=['src/app.py:logout'])\n"
        "    def reset(self): pass\n"
    )
    (pytester.path / "bench.yaml").write_text(
        "dataset:\n  repository: project\n  output: mined.jsonl\n"
        "agents:\n  - name: right\n    class: agents_here:Right\n"
    )
    assert pytester.runpytest("--codesearch-generate", "--codesearch-config=bench.yaml").ret == 0
    pytester.syspathinsert()
    result = pytester.runpytest("--codesearch-config=bench.yaml", "mined.jsonl")
    result.assert_outcomes(passed=2)
    cases = {case["query"][:5]: case["metrics"] for case in read_results(pytester.path)["cases"]}
    retry, logout = cases["Retry"], cases["Add a"]
    assert (retry["function_acc@1"], retry["function_acc@5"], retry["function_recall@5"]) == (1.0, 1.0, 1.0)
    assert (retry["module_acc@5"], retry["function_mrr"]) == (1.0, 1.0)
    assert (logout["function_acc@5"], logout["function_recall@5"], logout["function_mrr"]) == (0.0, 0.0, 0.0)


def test_a_mined_set_names_the_repository_by_its_origin_not_this_clone(pytester: pytest.Pytester) -> None:
    """A clone at a machine's own path (``mirror/pallets+flask/repo``) whose origin is GitHub: the cases
    name ``pallets/flask`` and their ids ``flask-<sha>``, with no warning; the next step maps the name to
    this clone, and runs offline."""
    clone = pytester.path / "mirror" / "pallets+flask" / "repo"
    _history(clone)
    import pygit2

    pygit2.Repository(str(clone)).remotes.create("origin", "https://github.com/pallets/flask.git")
    result = pytester.runpytest("--codesearch-generate", f"--codesearch-repo={clone}", "--codesearch-output=out.jsonl")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"run it: pytest --codesearch-agent=bm25 out.jsonl --codesearch-repo-map "
                                 f"pallets/flask={clone}"])  # fmt: skip
    assert "warning" not in result.stdout.str()
    cases = [json.loads(line) for line in (pytester.path / "out.jsonl").read_text().splitlines()[1:]]
    assert {case["repo"] for case in cases} == {"pallets/flask"}
    assert all(case["id"].startswith("flask-") for case in cases)
    ran = pytester.runpytest("--codesearch-agent=oracle", "out.jsonl", f"--codesearch-repo-map=pallets/flask={clone}")
    ran.assert_outcomes(passed=2)
