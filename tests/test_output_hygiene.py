"""What the plugin prints and writes cannot be hijacked by what it reads (issue 18 item 12): agent names are
plain, the terminal shows control characters escaped, and each record says things once."""

from __future__ import annotations

from pathlib import Path

import pytest

import pytest_codesearch as pcs
from pytest_codesearch.settings.yamlfile import BenchFile, ConfigError, config_agent_specs, load_benchfile


@pytest.mark.parametrize("name", ["<b>x</b>", "a/b", "f(x)", "a b", "tab\tname", "esc\x1b[31m", "[x]", "a:b"])
def test_an_agent_name_outside_the_rule_is_refused_with_the_rule(name: str) -> None:
    def factory() -> object:
        return object()

    with pytest.raises(ValueError) as refused:
        pcs.agent(name=name)(factory)
    assert str(refused.value) == (
        f"agent name {name!r} of {factory.__qualname__}: use only letters, digits, '-', '_' or '.'"
    )


def test_plain_names_and_parameter_ids_are_kept() -> None:
    def factory(request: object) -> object:
        return request

    for name in ("bm25", "my-agent.v2", "a_b", "X9"):
        pcs.agent(name=name)(factory)
    pcs.agent(name="grid", params=[{"k1": 1.2}, 2], ids=["k1=1.2,b=0.75", "two"])(factory)
    with pytest.raises(ValueError, match=r"parameter id '<i>': use only letters, digits"):
        pcs.agent(name="grid", params=[1], ids=["<i>"])(factory)


def test_a_yaml_agent_name_outside_the_rule_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bench.yaml"
    path.write_text("agents:\n  - name: <img>\n    class: pytest_codesearch.agents.builtin.bm25:BM25Agent\n")
    bench: BenchFile = load_benchfile(path)
    with pytest.raises(ConfigError) as refused:
        config_agent_specs(bench, "bench.yaml")
    assert str(refused.value) == "bench.yaml: agents: name '<img>': use only letters, digits, '-', '_' or '.'"


ESCAPING_AGENT = """
import pytest_codesearch as pcs

def _answer(query):
    raise RuntimeError("clears your screen\\x1b[2J\\x1b[H and rings\\x07")

@pcs.agent(name="loud")
def loud():
    return _answer
"""


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_terminal_shows_an_agents_escape_bytes_escaped(pytester: pytest.Pytester, dist: list[str]) -> None:
    from example_project import write_project

    write_project(pytester.path, [{"id": "c1", "query": "q", "ground_truth_files": ["src/app.py"]}])
    pytester.makeconftest(ESCAPING_AGENT)
    result = pytester.runpytest("--codesearch-agent=loud", "--codesearch-runs=1", *dist)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "\x1b" not in output and "\x07" not in output
    result.stdout.fnmatch_lines([
        "*RuntimeError: clears your screen\\x1b[[]2J\\x1b[[]H and rings\\x07*",
        "FAILED cases.jsonl::c1[[]loud[]]*",
    ])


def test_a_goldset_file_named_with_escape_bytes_is_left_out_with_a_warning(pytester: pytest.Pytester) -> None:
    from example_project import write_project

    write_project(pytester.path, name="good.jsonl")
    write_project(pytester.path, name="red\x1b[31m.jsonl")
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1")
    result.assert_outcomes(passed=3, warnings=2)  # the other warning: the cases search a working tree
    assert "\x1b" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*GoldsetNameWarning: *red\\x1b[[]31m.jsonl: a gold-set file whose name holds "
                                 "control characters is not collected; rename it"])
