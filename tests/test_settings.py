"""The option table, its value types and the merge, without pytest runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codesearch.settings import options
from pytest_codesearch.settings.options import OPTIONS
from pytest_codesearch.settings.types import (
    Boolean,
    Choice,
    Cutoffs,
    Integer,
    Names,
    Number,
    Origin,
    PathList,
    PathValue,
    SettingsError,
    Shard,
    Text,
    split_list,
)
from pytest_codesearch.settings.model import Given, Settings, build_settings, default_settings, settings_fields, winner

HERE, ROOT = Path("/inv"), Path("/root")
TEXT = Origin("--codesearch-x", HERE)
YAML = Origin("b.yaml:3: evaluation.x", Path("/conf"), typed=True)


def settings(*layers: dict[str, object]) -> Settings:
    """Return settings from layers of raw text values, each named after its position."""
    given = [{k: Given(v, Origin(f"layer{i}: {k}", HERE)) for k, v in layer.items()} for i, layer in enumerate(layers)]
    return build_settings(given, HERE, ROOT)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["1 5 10"], ["1", "5", "10"]),
        (["1,5,10"], ["1", "5", "10"]),
        (["1, 5,,10 "], ["1", "5", "10"]),
        (["my-agent bm25"], ["my-agent", "bm25"]),
        (["bm25[k1=1.2, b=0.75] keyword", "oracle"], ["bm25[k1=1.2, b=0.75]", "keyword", "oracle"]),
        (["a\n  b\tc"], ["a", "b", "c"]),
        (["x[a,[b c]],y"], ["x[a,[b c]]", "y"]),
        ([""], []),
    ],
)
def test_split_list_takes_spaces_and_commas_outside_brackets(value: list[str], expected: list[str]) -> None:
    assert split_list(value) == expected


def test_integer_from_text_and_yaml() -> None:
    assert Integer().parse(" 4 ", TEXT) == 4
    assert Integer().parse(4, YAML) == 4
    with pytest.raises(SettingsError, match=r"^--codesearch-x: expected an integer, got 'x'$"):
        Integer().parse("x", TEXT)
    with pytest.raises(SettingsError, match=r"^b.yaml:3: evaluation.x: expected an integer, got '3'$"):
        Integer().parse("3", YAML)
    with pytest.raises(SettingsError, match=r"expected an integer, got True$"):
        Integer().parse(True, YAML)
    with pytest.raises(SettingsError, match=r"^--codesearch-x: must be at least 1, got 0$"):
        Integer().parse("0", TEXT)
    assert Integer(minimum=0).parse("0", TEXT) == 0


def test_number_bounds() -> None:
    assert Number().parse("1.5", TEXT) == 1.5
    assert Number().parse(2, YAML) == 2.0
    assert Number(0.0, 1.0).parse("0.05", TEXT) == 0.05
    with pytest.raises(SettingsError, match=r"^--codesearch-x: must be between 0 and 1, got '1'$"):
        Number(0.0, 1.0).parse("1", TEXT)
    with pytest.raises(SettingsError, match=r"must be greater than 0, got 'nan'$"):
        Number().parse("nan", TEXT)
    with pytest.raises(SettingsError, match=r"^b.yaml:3: evaluation.x: expected a number, got '2'$"):
        Number().parse("2", YAML)


def test_boolean_yaml_is_strict_text_is_not() -> None:
    assert Boolean().parse(False, YAML) is False
    assert Boolean().parse("no", TEXT) is False
    assert Boolean().parse("On", TEXT) is True
    with pytest.raises(SettingsError, match=r"^b.yaml:3: evaluation.x: expected true or false, got 'yes'$"):
        Boolean().parse("yes", YAML)
    with pytest.raises(SettingsError, match=r"expected true or false, got 'maybe'$"):
        Boolean().parse("maybe", TEXT)


def test_text_and_path() -> None:
    assert Text().parse(" main ", TEXT) == "main"
    with pytest.raises(SettingsError, match=r"^--codesearch-x: must not be empty$"):
        Text().parse(" ", TEXT)
    with pytest.raises(SettingsError, match=r"expected a string, got 3$"):
        Text().parse(3, YAML)
    assert PathValue().parse("out/x.jsonl", TEXT) == HERE / "out/x.jsonl"
    assert PathValue().parse("out", YAML) == Path("/conf/out")
    assert PathValue().parse("/abs", YAML) == Path("/abs")


def test_choice() -> None:
    levels = Choice(("auto", "none", "process"))
    assert levels.parse(" none ", TEXT) == "none"
    with pytest.raises(SettingsError, match=r"^--codesearch-x: expected one of auto, none, process, got 'proces' "
                       r"\(did you mean 'process'\?\)$"):
        levels.parse("proces", TEXT)
    with pytest.raises(SettingsError, match=r"expected a string, got 1$"):
        levels.parse(1, YAML)


def test_isolation_follows_the_retrieval_budget() -> None:
    assert (settings().isolate, settings().isolation, settings().retries, settings().max_answer) == (
        "auto", "none", 0, 1000)
    assert settings({"timeout": "2"}).isolation == "auto"
    assert settings({"isolate": "process", "retries": "0"}).isolation == "process"


def test_shard_and_path_list() -> None:
    assert Shard().parse(" 2/3 ", TEXT) == (2, 3)
    with pytest.raises(SettingsError, match=r"^--codesearch-x: I must be between 1 and N, got '4/3'$"):
        Shard().parse("4/3", TEXT)
    assert PathList().parse(["a", "/b"], TEXT) == (HERE / "a", Path("/b"))
    assert settings().merge == () and settings().shard is None and settings().warmup == 0


def test_names_from_every_shape() -> None:
    assert Names().parse(["a b", "c,a"], TEXT) == ("a", "b", "c")
    assert Names().parse("json csv", YAML) == ("json", "csv")
    assert Names().parse(["json", "csv"], YAML) == ("json", "csv")
    with pytest.raises(SettingsError, match=r"expected a list of strings \(or one string of them\), got \[1\]$"):
        Names().parse([1], YAML)
    with pytest.raises(SettingsError, match=r"^b.yaml:3: evaluation.x: unknown 'jsn' \(did you mean 'json'\?\); "):
        Names(("json", "csv")).parse(["jsn"], YAML)


def test_cutoffs_sorted_unique_and_checked() -> None:
    assert Cutoffs().parse("10 1,5 5", TEXT) == (1, 5, 10)
    assert Cutoffs().parse([5, 1], YAML) == (1, 5)
    assert Cutoffs().parse("1 5 10", YAML) == (1, 5, 10)
    with pytest.raises(SettingsError, match=r"^--codesearch-x: give at least one cut-off"):
        Cutoffs().parse(" , ", TEXT)
    with pytest.raises(SettingsError, match=r"^--codesearch-x: expected an integer, got 'ten'$"):
        Cutoffs().parse("1 ten", TEXT)
    with pytest.raises(SettingsError, match=r"expected a list of integers"):
        Cutoffs().parse(["1"], YAML)
    with pytest.raises(SettingsError, match=r"expected a list of integers"):
        Cutoffs().parse([True], YAML)


def test_defaults_when_no_source_gives_a_value() -> None:
    s = settings()
    assert (s.agents, s.seed, s.runs, s.k, s.ks) == ((), None, 3, None, (1, 5, 10))
    assert (s.report_dir, s.cache_dir, s.config_path) == (HERE / "codesearch-report", ROOT / ".codesearch", None)
    assert (s.bootstrap, s.alpha, s.f_beta, s.timeout, s.randomize) == (1000, 0.05, None, None, True)
    assert s.formats == ("json", "csv", "markdown", "html")
    assert (s.generate, s.repo, s.rev, s.output) == (False, None, "HEAD", None)
    assert not s.active


def test_first_layer_giving_a_value_wins_and_names_itself_in_errors() -> None:
    assert settings({"runs": "4"}, {"runs": "5"}).runs == 4
    assert settings({"runs": None, "agents": []}, {"runs": "5", "agents": ["a b"]}).runs == 5
    assert settings({"runs": ""}, {}, {"runs": "6"}).runs == 6
    assert settings({"agents": []}, {"agents": ["oracle, bm25"]}).agents == ("oracle", "bm25")
    with pytest.raises(SettingsError, match=r"^layer1: runs: expected an integer, got 'x'$"):
        settings({}, {"runs": "x"}, {"runs": "2"})
    settings({"runs": "2"}, {"runs": "x"})  # a value that loses is not read


def test_index_timeout_has_its_own_generous_budget() -> None:
    assert (settings().index_timeout, settings().timeout) == (600.0, None)
    assert settings({"index_timeout": "90", "timeout": "2.5"}).index_timeout == 90.0
    with pytest.raises(SettingsError, match=r"^layer0: index_timeout: must be greater than 0, got '0'$"):
        settings({"index_timeout": "0"})


def test_headline_is_a_list_of_names() -> None:
    assert settings().headline == ()
    assert settings({"headline": "recall@10, mrr latency_ms"}).headline == ("recall@10", "mrr", "latency_ms")


def test_name_is_text() -> None:
    assert settings().name is None
    assert settings({"name": " flask "}).name == "flask"


def test_winner_skips_empty_values() -> None:
    layers = [{"a": Given([], TEXT)}, {"a": Given("", TEXT)}, {"a": Given("v", YAML)}]
    found = winner(layers, "a")
    assert found is not None and found.origin is YAML
    assert winner(layers, "b") is None


def test_table_and_settings_agree() -> None:
    assert sorted(o.field for o in OPTIONS) == sorted(settings_fields())
    assert len({o.flag for o in OPTIONS if o.flag}) == len([o for o in OPTIONS if o.flag])
    for option in OPTIONS:
        assert option.flag is None or option.flag.startswith("--codesearch-"), option
        assert option.ini is None or option.ini.startswith("codesearch_"), option
        assert option.yaml is None or option.yaml.split(".")[0] in ("dataset", "evaluation", "output"), option
        assert option.flag or option.ini or option.yaml, option


def test_default_settings_are_the_tables_with_values_replaced() -> None:
    built = settings()
    made = default_settings(HERE, runs=7)
    assert made.runs == 7
    for name in settings_fields():
        if name not in ("runs", "cache_dir"):
            assert getattr(made, name) == getattr(built, name), name


def test_existing_names_are_kept() -> None:
    """Flags, ini keys and YAML keys are a contract: none may disappear."""
    flags = {o.flag for o in OPTIONS}
    inis = {o.ini for o in OPTIONS}
    yamls = {o.yaml for o in OPTIONS}
    assert {f"--codesearch-{n}" for n in ("agent", "seed", "runs", "k", "ks", "report-dir", "cache-dir", "f-beta",
            "bootstrap", "alpha", "timeout", "index-timeout", "isolate", "retries", "max-answer", "config", "generate",
            "repo", "rev", "output")} <= flags
    assert {f"codesearch_{n}" for n in ("agent", "runs", "ks", "report_dir", "cache_dir", "bootstrap", "alpha",
            "config")} <= inis
    assert {"evaluation.runs", "evaluation.timeout", "evaluation.seed", "evaluation.randomize", "evaluation.ks",
            "evaluation.k", "output.directory", "output.formats", "dataset.repository", "dataset.rev",
            "dataset.output"} <= yamls


@pytest.mark.parametrize("name", options.DOCS)
def test_docs_tables_are_generated_from_the_table(name: str) -> None:
    text = (Path(__file__).parent.parent / name).read_text(encoding="utf-8")
    assert "table: generated from pytest_codesearch/settings/options.py" in text
    assert options.render_docs(text) == text, f"run: python -m pytest_codesearch.settings.options (then commit {name})"


def test_every_flag_is_in_the_docs() -> None:
    text = (Path(__file__).parent.parent / "docs/getting-started.md").read_text(encoding="utf-8")
    for option in OPTIONS:
        for name in (option.flag, option.ini, option.yaml):
            assert name is None or f"`{name}" in text, name

