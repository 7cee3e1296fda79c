"""YAML query files and FQN retrieval sets run as users run them: collected, scored, converted, selected."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from example_project import read_results

DATA = Path(__file__).parent / "data"

FIXED_AGENT = """
import json
import pathlib
import pytest_codesearch as pcs

ANSWERS = json.loads(pathlib.Path("answers.json").read_text())

class Fixed:
    def initialize(self, repo_path):
        pass
    def retrieve(self, query):
        answer = ANSWERS[query]
        return pcs.RetrievalResult(files=answer.get("files", []), symbols=answer.get("symbols", []))
    def reset(self):
        pass

@pcs.agent(name="fixed")
def fixed():
    return Fixed()
"""

YAML_ANSWERS = {
    "How are passwords hashed before they are stored?": {
        "files": ["README.md", "auth/hashing.py"],
        "symbols": ["shop.auth.HASH_PASSWORD"],
    },
    "Where is the cart total computed with discounts?": {"files": ["cart.py"]},
}


def _setup(pytester: pytest.Pytester, shape: str, answers: dict[str, object]) -> None:
    shutil.copytree(DATA / shape, pytester.path / shape)
    pytester.makeconftest(FIXED_AGENT)
    (pytester.path / "answers.json").write_text(json.dumps(answers))


def _metrics(root: Path) -> dict[str, dict[str, float]]:
    return {case["id"]: case["metrics"] for case in read_results(root)["cases"]}


def test_yaml_queries_match_by_substring_and_round_trip(pytester: pytest.Pytester) -> None:
    _setup(pytester, "yaml", YAML_ANSWERS)
    result = pytester.runpytest("--codesearch-agent=fixed", "--codesearch-runs=1", "yaml/queries.yaml")
    result.assert_outcomes(passed=2)
    metrics = _metrics(pytester.path)
    assert (metrics["hashing"]["mrr"], metrics["hashing"]["recall@1"], metrics["hashing"]["recall@5"]) == (0.5, 0.0, 1.0)
    assert metrics["hashing"]["symbol_mrr"] == 1.0
    assert metrics["cart-total"]["mrr"] == 1.0
    converted = pytester.runpytest("--codesearch-convert", "yaml/queries.yaml", "--codesearch-output", "yaml/native.jsonl")
    assert converted.ret == 0
    converted.stdout.fnmatch_lines(["codesearch: wrote 2 cases to *native.jsonl"])
    first = json.loads((pytester.path / "yaml" / "native.jsonl").read_text().splitlines()[0])
    assert first == {"metadata": {"match": "substring"}}
    again = pytester.runpytest("--codesearch-agent=fixed", "--codesearch-runs=1", "yaml/native.jsonl")
    again.assert_outcomes(passed=2)
    assert _metrics(pytester.path) == metrics


def test_fqn_sets_report_symbols_and_hard_negatives_and_round_trip(pytester: pytest.Pytester) -> None:
    answers = {
        "Which class runs agents concurrently?": {
            "files": ["src/adk/agents/sequential.py", "src/adk/agents/parallel.py"],
            "symbols": ["adk.agents.SequentialAgent", "src/adk/agents/parallel.py:ParallelAgent"],
        },
        "Which class runs agents one after another?": {"symbols": ["adk.agents.sequential.SequentialAgent"]},
    }
    _setup(pytester, "fqn", answers)
    result = pytester.runpytest("--codesearch-agent=fixed", "--codesearch-runs=1", "fqn/retrieval.jsonl")
    result.assert_outcomes(passed=2)
    metrics = _metrics(pytester.path)
    assert metrics["parallel"]["mrr"] == 0.5
    assert (metrics["parallel"]["symbol_mrr"], metrics["parallel"]["hard_negative_rate"]) == (0.5, 1.0)
    assert (metrics["sequential"]["symbol_mrr"], metrics["sequential"]["recall@5"]) == (1.0, 0.0)
    assert "hard_negative_rate" not in metrics["sequential"]
    converted = pytester.runpytest("--codesearch-convert", "fqn/retrieval.jsonl", "--codesearch-output", "fqn/native.jsonl")
    assert converted.ret == 0
    again = pytester.runpytest("--codesearch-agent=fixed", "--codesearch-runs=1", "fqn/native.jsonl")
    again.assert_outcomes(passed=2)
    assert _metrics(pytester.path) == metrics


def test_k_selects_by_repository_and_category(pytester: pytest.Pytester) -> None:
    _setup(pytester, "yaml", YAML_ANSWERS)
    run = pytester.runpytest("--codesearch-agent=fixed", "--codesearch-runs=1", "-k", "shop and concept_search", "yaml")
    run.assert_outcomes(passed=1, deselected=1)
    assert [case["id"] for case in read_results(pytester.path)["cases"]] == ["cart-total"]


def _many_cases(pytester: pytest.Pytester) -> None:
    (pytester.path / "a.py").write_text("x = 1\n")
    complexities = ["low", "low", "low", "low", "high", "high"]
    lines = [
        json.dumps({"id": f"c{i}", "query": f"q{i}", "ground_truth_files": ["a.py"], "repo": ".", "complexity": c})
        for i, c in enumerate(complexities)
    ]
    (pytester.path / "cases.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
@pytest.mark.parametrize("sample", ["first", "stratified"])
def test_limit_keeps_n_cases_the_same_on_every_worker(pytester: pytest.Pytester, dist: str, sample: str) -> None:
    _many_cases(pytester)
    args = ["--codesearch-agent=oracle", "--codesearch-runs=1", "--codesearch-seed=7", "--codesearch-limit=2"]
    result = pytester.runpytest_subprocess(*args, f"--codesearch-sample={sample}", dist)
    result.assert_outcomes(passed=2)
    kept = {case["complexity"] for case in read_results(pytester.path)["cases"]}
    if sample == "stratified":
        assert kept == {"low", "high"}


def test_convert_needs_an_output(pytester: pytest.Pytester) -> None:
    _many_cases(pytester)
    result = pytester.runpytest("--codesearch-convert", "cases.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codesearch-convert needs --codesearch-output OUT.jsonl*"])


def _remote_cases(pytester: pytest.Pytester, repo: str) -> None:
    from gitrepo import commit, init_repo

    origin = init_repo(pytester.path / "origin.git", bare=True)
    old = commit(origin, {"src/login.py": "def login(): pass\n", "README.md": "hi\n"}, "first")
    new = commit(origin, {"src/token.py": "def token(): pass\n"}, "second")
    cases = [
        {"id": "old", "query": "q", "ground_truth_files": ["src/login.py"], "repo": repo, "base_commit": old},
        {"id": "new", "query": "q", "ground_truth_files": ["src/token.py"], "repo": repo, "base_commit": new},
    ]
    (pytester.path / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n")


def test_remote_repositories_are_cloned_once_for_all_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "home-cache"))
    url = (pytester.path / "origin.git").as_uri()
    _remote_cases(pytester, url)
    result = pytester.runpytest_subprocess("--codesearch-agent=oracle", "--codesearch-runs=1", "-n2", "cases.jsonl")
    result.assert_outcomes(passed=2)
    clones = pytester.path / "home-cache" / "pytest-codesearch" / "repos"
    assert sorted(p.suffix for p in clones.iterdir()) == [".git", ".lock"]
    assert {case["metrics"]["mrr"] for case in read_results(pytester.path)["cases"]} == {1.0}


def test_the_repository_map_runs_owner_name_offline(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "home-cache"))
    _remote_cases(pytester, "acme/shop")
    args = ["--codesearch-agent=oracle", "--codesearch-runs=1", "--codesearch-repo-map", "acme/shop=origin.git"]
    result = pytester.runpytest(*args, "-k", "shop", "cases.jsonl")
    result.assert_outcomes(passed=2)
    assert not (pytester.path / "home-cache").exists()


def test_parsing_searched_code_prints_no_warning(pytester: pytest.Pytester) -> None:
    """Python files with invalid escapes (``"\\d"``), parsed to resolve names and to score lines, warn
    nothing under the agents' test ids: the warnings are the searched code's, not the run's."""
    shutil.copytree(DATA / "fqn", pytester.path / "fqn")
    util = pytester.path / "fqn" / "project" / "src" / "adk" / "agents" / "util.py"
    util.write_text('import re\nPATTERN = "\\d+"\n\n\ndef parse(text):\n    return re.findall(PATTERN, text)\n')
    query = {"id": "u", "query": "Which function parses numbers?", "positive_ctxs": [{"fqn": "adk.agents.util.parse"}]}
    with (pytester.path / "fqn" / "retrieval.jsonl").open("a") as stream:
        stream.write(json.dumps(query) + "\n")
    case = {"id": "lines", "query": "where are numbers parsed",
            "ground_truth_files": [{"path": "src/adk/agents/util.py", "lines": [[5, 6]]}]}  # fmt: skip
    pytester.makefile(".jsonl", lines=json.dumps({"metadata": {"repo": "fqn/project"}}) + "\n" + json.dumps(case))
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-no-save", "lines.jsonl", "fqn")
    result.assert_outcomes(passed=4)
    assert "invalid escape sequence" not in result.stdout.str()
