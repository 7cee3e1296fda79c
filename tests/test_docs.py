"""The README's and the docs' commands and figures still hold: run them, compare what they print.

The README's sample table is what its command prints today (every figure but the timings); the files,
agents and options the docs name are the ones the plugin has; the reproduce-a-table page's command
prints the figures the page is about.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_codesearch.agents.builtin import fixtures
from pytest_codesearch.agents.registry import module_specs
from pytest_codesearch.report.render.formats import REPORT_DIR_FORMATS, REPORT_FORMATS
from pytest_codesearch.runs.journal import JOURNAL_NAME
from pytest_codesearch.settings.options import OPTIONS
from shop_repo import swebench_workspace

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LATENCY_COLUMNS = ("p50 ms", "p90 ms")
"""Columns that hold timings: they change from run to run, so they are not compared."""


def _readme_sample() -> tuple[list[str], list[str]]:
    """Return the README's sample command (as arguments after ``pytest``) and the lines it shows after ``...``."""
    block = re.search(r"```\n\$ (.*?)\n\.\.\.\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None, "the README has no sample run"
    words = shlex.split(block.group(1))
    assert words[0] == "COLUMNS=120" and words[1] == "pytest"
    return words[2:], block.group(2).splitlines()


def _cells(line: str, header: list[str]) -> list[str]:
    """Return the cells of a table row, the timing columns left out (cells are split on runs of spaces)."""
    cells = line.split()
    assert len(cells) == len(header), line
    return [cell for cell, name in zip(cells, header) if name not in LATENCY_COLUMNS]


def _split_header(line: str) -> list[str]:
    """Return a header's column names: ``p50 ms`` is one column."""
    return re.findall(r"p\d+ ms|\S+", line)


@pytest.mark.slow
def test_the_readme_sample_table_is_what_its_command_prints(tmp_path: Path) -> None:
    args, shown = _readme_sample()
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "--codesearch-no-save",
         f"--codesearch-report-dir={tmp_path / 'report'}", f"--codesearch-cache-dir={tmp_path / 'cache'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    printed = run.stdout.splitlines()
    start = printed.index(shown[0])  # the table's header, as shown
    header = _split_header(shown[0])
    for ours, theirs in zip(shown[1:], printed[start + 1 :]):
        if ours.split()[0] in ("omitted", "*"):
            assert theirs == ours
        else:
            assert _cells(theirs, header) == _cells(ours, header)


def test_the_docs_name_every_built_in_agent() -> None:
    names = [spec.name for spec in module_specs(fixtures)]
    assert names == ["bm25", "keyword", "path", "hybrid", "embedding", "oracle", "random"]
    for page in (DOCS / "writing-an-agent.md", DOCS / "agents.md"):
        rows = re.findall(r"^\| `([\w-]+)` \|", page.read_text(encoding="utf-8"), re.M)
        assert list(dict.fromkeys(name for name in rows if name in names)) == names, page.name
    readme = README.read_text(encoding="utf-8").split("## Built-in agents", 1)[1]
    assert all(f"`{name}`" in readme for name in names)
    assert "how many times" not in (DOCS / "writing-an-agent.md").read_text(encoding="utf-8")  # keyword is grep -l


def test_the_docs_list_the_files_a_run_writes() -> None:
    files = [REPORT_FORMATS[name].filename for name in REPORT_DIR_FORMATS] + [JOURNAL_NAME]
    assert files == ["results.json", "results.csv", "summary.md", "report.html", "journal.jsonl"]
    started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert "writes five files into" in started
    assert re.findall(r"^\| `([\w.]+)` \|", started, re.M)[: len(files)] == files
    formats = (DOCS / "results-format.md").read_text(encoding="utf-8")
    assert re.findall(r"^\| `([\w.]+)` \| (?:programs|spreadsheets|people)", formats, re.M) == files[:4]
    quick = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("##", 1)[0]
    assert all(f"`{name}`" in quick for name in files)


def test_every_option_the_docs_name_exists() -> None:
    flags = {option.flag for option in OPTIONS if option.flag}
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        named = set(re.findall(r"--codesearch-[a-z-]*[a-z]", page.read_text(encoding="utf-8")))
        assert named <= flags, (page.name, sorted(named - flags))


def test_no_page_calls_shipped_features_future_work() -> None:
    swebench = (DOCS / "swebench-format.md").read_text(encoding="utf-8")
    assert "later step" not in swebench and "will call it" not in swebench
    assert "--codesearch-convert" in swebench and "--codesearch-repo-map" in swebench


def test_the_reproduce_page_command_prints_the_figures_it_is_about(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (DOCS / "reproduce-a-published-table.md").read_text(encoding="utf-8").split("## 4. Run", 1)[1]
    command, header = re.findall(r"```\n(.*?)```", page, re.S)[:2]
    words = shlex.split(command.replace("\\\n", " "))
    assert words[:2] == ["pytest", "lite.jsonl"]
    args = [w for w in words[2:] if w not in ("--codesearch-repo-map", "...")]
    swebench_workspace(pytester.path)  # SWE-bench instances in lite.json, their repository beside them
    (pytester.path / "loc_outputs.jsonl").write_text((Path(__file__).parent / "data" / "predictions" /
                                                      "loc_outputs.jsonl").read_text())  # fmt: skip
    monkeypatch.setenv("COLUMNS", "120")
    result = pytester.runpytest("lite.json", *args, "--codesearch-no-save")
    result.assert_outcomes(passed=2)
    table = ["acc@1", "acc@3", "acc@5", "module_acc@5", "module_acc@10", "function_acc@5", "function_acc@10"]
    assert _split_header(header.strip())[1:8] == table
    result.stdout.fnmatch_lines([header.strip()])
