"""Functions and modules in every supported language: a fix that changes two methods of one class and a
top-level function of another file, read as a SWE-bench patch and as a mined commit, derives exactly those;
anonymous and nested definitions count for the method around them."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo
from language_samples import SAMPLES, Sample

from pytest_codesearch.goldset.patch import parse_patch
from pytest_codesearch.goldset.truth import truth_from_patch
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.generate import MiningStats, format_stats, generate_goldset
from pytest_codesearch.outline import language_of

MESSAGE = "Fix the cart totals and the value formatting that receipts print for every order"


def _history(path: Path, sample: Sample) -> tuple[pygit2.Repository, str, str]:
    repo = init_repo(path)
    base = commit(repo, sample.files, "Add the cart and its helpers")
    fix = commit(repo, sample.fixed(), MESSAGE)
    return repo, base, fix


def _reader(repo: pygit2.Repository, commit_id: str):  # type: ignore[no-untyped-def]
    tree = repo[pygit2.Oid(hex=commit_id)].peel(pygit2.Commit).tree

    def read(path: str) -> bytes | None:
        return repo[tree[path].id].peel(pygit2.Blob).data if path in tree else None

    return read


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.language for s in SAMPLES])
def test_a_patch_derives_exactly_the_changed_functions_and_modules(tmp_path: Path, sample: Sample) -> None:
    repo, base, fix = _history(tmp_path / "project", sample)
    assert {language_of(path) for path in sample.files} == {sample.language}
    patch = repo.diff(base, fix).patch
    assert patch is not None

    truth = truth_from_patch(parse_patch(patch), _reader(repo, base))

    assert (truth.functions, truth.modules, truth.misfits) == (sample.functions, sample.modules, ())


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.language for s in SAMPLES])
def test_mining_records_the_same_functions_and_modules(tmp_path: Path, sample: Sample) -> None:
    _history(tmp_path / "project", sample)
    output = tmp_path / "mined.jsonl"

    generate_goldset(tmp_path / "project", output, FilterConfig(), workers=1)

    cases = [json.loads(line) for line in output.read_text().splitlines()[1:]]
    assert [(c["ground_truth_functions"], c["ground_truth_modules"]) for c in cases] == [
        (list(sample.functions), list(sample.modules))
    ]


def test_the_mining_summary_counts_files_without_outline_by_extension(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "project")
    files = {"src/a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n", "src/app.kt": "one\n", "Makefile": "all:\n"}
    commit(repo, files, "Start")
    commit(repo, {path: text.replace("1", "2").replace("one", "two").replace("all", "any") for path, text in files.items()},
           MESSAGE)  # fmt: skip

    stats = generate_goldset(tmp_path / "project", tmp_path / "mined.jsonl", FilterConfig(), workers=1)

    assert (stats.outlined_files, stats.unoutlined_files) == ({"go": 1}, {"": 1, ".kt": 1})
    lines = format_stats(stats).splitlines()
    assert [line.split("  ")[1].strip() for line in lines if "no outline" in line] == [
        "no functions (no outline): no extension files", "no functions (no outline): .kt files"
    ]


def test_the_summary_names_the_eight_most_frequent_extensions_and_sums_the_rest(tmp_path: Path) -> None:
    unoutlined = {f".e{n}": 20 - n for n in range(11)}
    stats = MiningStats(1, 1, {}, {}, 1.0, tmp_path / "m.jsonl", "0" * 40, unoutlined_files=unoutlined)
    rows = [line.split("  ")[1].strip() for line in format_stats(stats).splitlines() if "no outline" in line]
    assert rows == [f"no functions (no outline): .e{n} files" for n in range(8)] + [
        "no functions (no outline): 3 other extensions"
    ]
    assert format_stats(stats).splitlines()[-1].endswith(f"{12 + 11 + 10}")
