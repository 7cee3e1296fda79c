"""The YAML benchmark file: strict types, errors as file:line: key, values by the option table."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.settings.yamlfile import BenchFile, ConfigError, load_benchfile
from pytest_codesearch.settings.model import build_settings


def load(tmp_path: Path, text: str) -> BenchFile:
    path = tmp_path / "bench.yaml"
    path.write_text(text, encoding="utf-8")
    return load_benchfile(path, "bench.yaml")


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return str(info.value).splitlines()


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "Yes", "y", "n"])
def test_yaml_11_booleans_are_refused(tmp_path: Path, word: str) -> None:
    assert problems(tmp_path, f"evaluation:\n  runs: 2\n  randomize: {word}\n") == [
        f"bench.yaml:3: evaluation.randomize: expected true or false, got '{word}'"
    ]


def test_only_true_and_false_are_booleans(tmp_path: Path) -> None:
    bench = load(tmp_path, "evaluation:\n  randomize: false\n")
    settings = build_settings([bench.layer()], tmp_path, tmp_path)
    assert settings.randomize is False


def test_mining_filters_are_strict_too(tmp_path: Path) -> None:
    assert problems(tmp_path, "dataset:\n  include_merges: yes\n") == [
        "bench.yaml:2: dataset.include_merges: Input should be a valid boolean"
    ]


@pytest.mark.parametrize(("text", "shown"), [("0123", "'0123'"), ("1:30", "'1:30'"), ("0x10", "'0x10'")])
def test_yaml_11_integers_are_refused(tmp_path: Path, text: str, shown: str) -> None:
    assert problems(tmp_path, f"evaluation:\n  seed: {text}\n") == [
        f"bench.yaml:2: evaluation.seed: expected an integer, got {shown}"
    ]


def test_every_problem_is_named_with_its_line(tmp_path: Path) -> None:
    text = "evaluaton: {}\nevaluation:\n  runs: '3'\n  sead: 3\noutput:\n  formats: [json, htm]\n"
    assert problems(tmp_path, text) == [
        "bench.yaml:1: evaluaton: unknown key (did you mean 'evaluation'?); known keys: agents, dataset, "
        "evaluation, output",
        "bench.yaml:3: evaluation.runs: expected an integer, got '3'",
        "bench.yaml:4: evaluation.sead: unknown key (did you mean 'seed'?); known keys: "
        + "allow_any_repo, alpha, baseline, blind, bootstrap, cache_size, entity_truth, f_beta, fail_on, fail_under, "
        + "gate_any, index_timeout, k, ks, limit, predictions, profile, randomize, repo_map, runs, sample, seed, timeout, "
        + "truth",
        "bench.yaml:6: output.formats: unknown 'htm' (did you mean 'html'?); choose from json, csv, markdown, html",
    ]


def test_dataset_keys_are_options_or_filters(tmp_path: Path) -> None:
    lines = problems(tmp_path, "dataset:\n  max_file: 3\n  rev: 7\n")
    assert lines[0] == "bench.yaml:3: dataset.rev: expected a string, got 7"
    assert lines[1].startswith("bench.yaml:2: dataset.max_file: unknown key (did you mean 'max_files'?); known keys:")
    assert "repository" in lines[1] and "min_files" in lines[1]


def test_agents_entries_are_checked(tmp_path: Path) -> None:
    assert problems(tmp_path, "agents:\n  - name: a\n    clas: x:Y\n")[0].startswith(
        "bench.yaml:2: agents.0.class: Field required"
    )


def test_values_come_with_their_origin(tmp_path: Path) -> None:
    bench = load(tmp_path, "evaluation:\n  ks: 1 5 10\noutput:\n  directory: out\n"
                 "agents:\n  - name: x\n    class: m:C\n")
    settings = build_settings([bench.layer()], Path("/elsewhere"), Path("/elsewhere"))
    assert settings.ks == (1, 5, 10)
    assert settings.report_dir == tmp_path / "out"
    assert settings.agents == ("x",)
    assert bench.values["ks"].origin.where == "bench.yaml:2: evaluation.ks"


@pytest.mark.parametrize(("text", "message"), [
    ("- a\n", "bench.yaml:1: the file must be a mapping with keys dataset, evaluation, agents, output"),
    ("evaluation: [1]\n", "bench.yaml:1: evaluation: expected a mapping, got [1]"),
    ("evaluation:\n  runs: [\n", "bench.yaml:3: invalid YAML: expected the node content"),
])  # fmt: skip
def test_malformed_files(tmp_path: Path, text: str, message: str) -> None:
    assert problems(tmp_path, text)[0].startswith(message)


def test_empty_file_and_null_values_give_nothing(tmp_path: Path) -> None:
    assert load(tmp_path, "").values == {}
    assert load(tmp_path, "evaluation:\n  runs:\n").values == {}


def test_the_documented_example_loads(tmp_path: Path) -> None:
    text = (Path(__file__).parent.parent / "docs" / "config.md").read_text(encoding="utf-8")
    example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    bench = load(tmp_path, example)
    settings = build_settings([bench.layer()], tmp_path, tmp_path)
    assert (settings.runs, settings.seed, settings.ks, settings.k, settings.timeout) == (3, 42, (1, 5, 10), 10, 30.0)
    assert (settings.name, settings.rev, settings.headline) == ("myproject", "main", ("ndcg@10", "mrr"))
    assert settings.repo == tmp_path / "../myproject" and settings.agents == ("bm25-k1-2",)
    assert bench.filters.max_files == 20 and bench.filters.also_exclude == ["migrations/"]


def test_statistics_options_in_yaml(tmp_path: Path) -> None:
    bench = load(tmp_path, "evaluation:\n  f_beta: 2\n  bootstrap: 500\n  alpha: 0.01\n")
    settings = build_settings([bench.layer()], tmp_path, tmp_path)
    assert (settings.f_beta, settings.bootstrap, settings.alpha) == (2.0, 500, 0.01)
    assert problems(tmp_path, "evaluation:\n  bootstrap: 50\n") == [
        "bench.yaml:2: evaluation.bootstrap: must be at least 100, got 50"
    ]
