"""Settings as users give them: command line, ini file, YAML file, and which one wins."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

# Shows the merged settings in the header, so a collect-only run tells what a real run would use.
SHOW_SETTINGS = """
from pytest_codesearch.settings.load import LOADED

def pytest_report_header(config):
    settings = config.stash[LOADED][0]
    return [f"settings: {name}={value!r}" for name, value in vars(settings).items()]
"""


def write_ini(pytester: pytest.Pytester, body: str) -> None:
    """Write ``pytest.ini`` with ``body`` under ``[pytest]``."""
    pytester.makefile(".ini", pytest="[pytest]\n" + body)


def show(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run a collect-only session that prints the merged settings."""
    pytester.makeconftest(SHOW_SETTINGS)
    return pytester.runpytest("--collect-only", *args)


@pytest.mark.parametrize("given", ["1 5 10", "1,5,10", "10, 5 1"])
def test_ks_on_the_command_line_take_spaces_and_commas(pytester: pytest.Pytester, given: str) -> None:
    show(pytester, f"--codesearch-ks={given}").stdout.fnmatch_lines(["settings: ks=(1, 5, 10)"])


def test_lists_in_the_ini_file(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_agent = oracle random\ncodesearch_ks = 1 5, 20\n")
    result = show(pytester)
    result.stdout.fnmatch_lines(["*codesearch: agents oracle, random;*"])
    result.stdout.fnmatch_lines(["settings: ks=(1, 5, 20)"])


@pytest.mark.parametrize("agents", ['"oracle random"', '["oracle", "random"]', '"oracle, random"'])
def test_lists_in_pyproject_toml(pytester: pytest.Pytester, agents: str) -> None:
    pytester.makepyprojecttoml(f'[tool.pytest.ini_options]\ncodesearch_agent = {agents}\ncodesearch_ks = "5 1"\n')
    result = show(pytester)
    result.stdout.fnmatch_lines(["*codesearch: agents oracle, random;*"])
    result.stdout.fnmatch_lines(["settings: ks=(1, 5)"])


def test_agent_names_keep_their_brackets(pytester: pytest.Pytester) -> None:
    result = show(pytester, "--codesearch-agent", "bm25[k1=1.2, b=0.75] oracle")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown agent 'bm25[[]k1=1.2, b=0.75[]]'*"])


def test_lists_in_the_yaml_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", bench="evaluation:\n  ks: 5 1\noutput:\n  formats: json, csv\n")
    result = show(pytester, "--codesearch-config=bench.yaml")
    result.stdout.fnmatch_lines(["settings: ks=(1, 5)", "settings: formats=('json', 'csv')"])


def test_command_line_beats_yaml_beats_ini(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_config = bench.yaml\ncodesearch_runs = 7\ncodesearch_ks = 2\n"
                     "codesearch_bootstrap = 200\n")
    pytester.makefile(".yaml", bench="evaluation:\n  runs: 5\n  ks: [3]\n")
    result = show(pytester, "--codesearch-runs=4")
    result.stdout.fnmatch_lines(["settings: runs=4", "settings: ks=(3,)", "settings: bootstrap=200"])


@pytest.mark.parametrize(
    ("ini", "yaml", "args", "error"),
    [
        ("codesearch_runs = x", None, [], "ERROR: pytest.ini: codesearch_runs: expected an integer, got 'x'"),
        (None, "evaluation:\n  runs: 0\n", [], "ERROR: bench.yaml:2: evaluation.runs: must be at least 1, got 0"),
        ("codesearch_runs = x", None, ["--codesearch-runs=y"],
         "ERROR: --codesearch-runs: expected an integer, got 'y'"),
        ("codesearch_alpha = 2", None, [], "ERROR: pytest.ini: codesearch_alpha: must be between 0 and 1, got '2'"),
    ],
)  # fmt: skip
def test_errors_name_the_source_used(
    pytester: pytest.Pytester, ini: str | None, yaml: str | None, args: list[str], error: str
) -> None:
    write_ini(pytester, f"{ini or ''}\n")
    if yaml is not None:
        pytester.makefile(".yaml", bench=yaml)
        args = [*args, "--codesearch-config=bench.yaml"]
    result = show(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([error])


def test_index_timeout_from_each_source(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_index_timeout = 30\ncodesearch_timeout = 2\n")
    show(pytester).stdout.fnmatch_lines(["settings: timeout=2.0", "settings: index_timeout=30.0"])
    pytester.makefile(".yaml", bench="evaluation:\n  index_timeout: 45\n")
    show(pytester, "--codesearch-config=bench.yaml").stdout.fnmatch_lines(["settings: index_timeout=45.0"])
    show(pytester, "--codesearch-index-timeout=1.5").stdout.fnmatch_lines(["settings: index_timeout=1.5"])


def test_headline_from_each_source(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_headline = mrr\n  ndcg@10, f1\n")
    show(pytester).stdout.fnmatch_lines(["settings: headline=('mrr', 'ndcg@10', 'f1')"])
    pytester.makefile(".yaml", bench="output:\n  headline: [hit@1, mrr]\n")
    show(pytester, "--codesearch-config=bench.yaml").stdout.fnmatch_lines(["settings: headline=('hit@1', 'mrr')"])
    result = show(pytester, "--codesearch-headline=recall@5 map")
    result.stdout.fnmatch_lines(["settings: headline=('recall@5', 'map')"])


def test_headline_names_are_metrics_of_the_run(pytester: pytest.Pytester) -> None:
    agent = "--codesearch-agent=oracle"
    result = show(pytester, agent, "--codesearch-ks=1 5", "--codesearch-headline=mrr ndcg@10")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codesearch-headline: unknown 'ndcg@10' (did you mean 'ndcg@1'?); *"])
    write_ini(pytester, "codesearch_headline = mrr recal@5\n")
    result = show(pytester, agent)
    result.stderr.fnmatch_lines(["ERROR: pytest.ini: codesearch_headline: unknown 'recal@5' (did you mean *"])
    result = show(pytester, agent, "--codesearch-f-beta=2", "--codesearch-headline=f_beta,quality_score")
    result.stdout.fnmatch_lines(["settings: headline=('f_beta', 'quality_score')"])


def test_a_losing_bad_value_is_not_read(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_runs = x\n")
    show(pytester, "--codesearch-runs=2").stdout.fnmatch_lines(["settings: runs=2"])


def test_paths_are_relative_to_their_source(pytester: pytest.Pytester) -> None:
    (pytester.path / "conf").mkdir()
    (pytester.path / "conf" / "bench.yaml").write_text("output:\n  directory: reports\n")
    write_ini(pytester, "codesearch_config = conf/bench.yaml\ncodesearch_cache_dir = cache\n")
    result = show(pytester)
    result.stdout.fnmatch_lines([
        f"settings: report_dir=*{pytester.path.name}/conf/reports')",
        f"settings: cache_dir=*{pytester.path.name}/cache')",
    ])  # fmt: skip


def test_generate_reads_the_config_named_in_the_ini_file(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "project")
    commit(repo, {"src/app.py": "def a(): ...\n", "src/db.py": "x = 1\n"}, "Initial import")
    commit(repo, {"src/app.py": "def a(): ...\ndef b(): ...\n"}, "Add a logout action for signed in users")
    write_ini(pytester, "codesearch_config = bench.yaml\n")
    pytester.makefile(".yaml", bench="dataset:\n  repository: project\n  output: mined.jsonl\n")
    result = pytester.runpytest("--codesearch-generate")
    assert result.ret == 0
    assert len((pytester.path / "mined.jsonl").read_text().splitlines()) == 2  # metadata + 1 case


def test_generate_names_the_default_output_after_the_name(pytester: pytest.Pytester) -> None:
    repo = init_repo(pytester.path / "project")
    commit(repo, {"src/app.py": "def a(): ...\n", "src/db.py": "x = 1\n"}, "Initial import")
    commit(repo, {"src/app.py": "def a(): ...\ndef b(): ...\n"}, "Add a logout action for signed in users")
    pytester.makefile(".yaml", bench="dataset:\n  name: shop\n  repository: project\n")
    assert pytester.runpytest("--codesearch-generate", "--codesearch-config=bench.yaml").ret == 0
    assert (pytester.path / "goldsets" / "shop.jsonl").is_file()
    assert pytester.runpytest("--codesearch-generate", "--codesearch-repo=project", "--codesearch-name=web").ret == 0
    assert (pytester.path / "goldsets" / "web.jsonl").is_file()


def test_generate_reports_a_bad_config_named_in_the_ini_file(pytester: pytest.Pytester) -> None:
    write_ini(pytester, "codesearch_config = bench.yaml\n")
    pytester.makefile(".yaml", bench="dataset:\n  include_merges: on\n")
    result = pytester.runpytest("--codesearch-generate")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: bench.yaml:2: dataset.include_merges: Input should be a valid boolean"])


HEAVY_MODULES = """
import sys

def pytest_unconfigure(config):
    heavy = sorted(m for m in ("pydantic", "numpy", "pygit2", "rank_bm25", "yaml") if m in sys.modules)
    print("heavy modules:", heavy)
"""


def test_goldsets_without_an_agent_get_a_hint_and_no_library(pytester: pytest.Pytester, project: Path) -> None:
    """Every shape counts (a YAML query file and an FQN set too), and the hint names every built-in."""
    pytester.makeconftest(HEAVY_MODULES)
    for shape in ("yaml", "fqn"):
        shutil.copytree(Path(__file__).parent / "data" / shape, pytester.path / shape)
    result = pytester.runpytest_subprocess("-s", "yaml", "fqn")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines([
        "codesearch: 2 gold-set files found but no agent selected, so nothing was benchmarked; "
        "choose one with --codesearch-agent=bm25 (or keyword, path, hybrid, embedding, oracle, random, all)",
        "heavy modules: []",
    ])  # fmt: skip


def test_no_hint_without_goldsets_or_with_an_agent(pytester: pytest.Pytester) -> None:
    pytester.makefile(".json", data='{"a": 1}')
    assert "no agent selected" not in pytester.runpytest().stdout.str()
    pytester.makefile(".jsonl", cases='{"id": "a", "query": "q", "ground_truth_files": ["x"], "repo": "."}\n')
    assert "no agent selected" in pytester.runpytest("cases.jsonl").stdout.str()
    assert "no agent selected" not in pytester.runpytest("--codesearch-agent=oracle", "--co").stdout.str()
