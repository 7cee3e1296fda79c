"""Shards: a deterministic, balanced split of the items, merged back into the single run's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_project import read_results, write_project
from pytest_codesearch.session.shard import assign_shards, select_shard
from pytest_codesearch.settings.types import Origin, SettingsError, Shard


def parse_shard(text: str) -> tuple[int, int]:
    """Return the shard ``--codesearch-shard text`` asks for."""
    return Shard().parse(text, Origin("--codesearch-shard", Path.cwd()))


def test_parse_shard() -> None:
    assert parse_shard("2/3") == (2, 3) and parse_shard(" 1 / 1 ") == (1, 1)
    for bad in ("0/3", "4/3", "a/b", "3", "1/0"):
        with pytest.raises(SettingsError, match=r"^--codesearch-shard: "):
            parse_shard(bad)


def test_groups_go_largest_first_to_the_least_loaded_shard() -> None:
    assert assign_shards({"a": 5, "b": 3, "c": 3, "d": 1}, 2) == {"a": 1, "b": 2, "c": 2, "d": 1}


def test_every_item_lands_in_exactly_one_shard_whatever_the_order() -> None:
    items = [f"g{i % 4}::c{i}" for i in range(23)]
    shards = [select_shard(items, i, 3, lambda x: x.split("::")[0], lambda x: x)[0] for i in (1, 2, 3)]
    assert sorted(x for shard in shards for x in shard) == sorted(items)
    assert max(map(len, shards)) - min(map(len, shards)) <= 6  # at most one snapshot group apart
    again = [select_shard(list(reversed(items)), i, 3, lambda x: x.split("::")[0], lambda x: x)[0] for i in (1, 2, 3)]
    assert [sorted(s) for s in again] == [sorted(s) for s in shards]


def _aggregates(data: dict[str, object]) -> object:
    report = dict(data)  # type: ignore[arg-type]
    return {key: report[key] for key in ("agents", "comparisons", "breakdowns", "not_run")}


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_three_shards_merged_equal_the_single_run(pytester: pytest.Pytester, dist: str) -> None:
    cases = [{"id": f"c{i}", "query": ["login view", "check password", "create app"][i % 3],
              "ground_truth_files": ["src/auth/login.py"]} for i in range(12)]
    write_project(pytester.path, cases)
    common = ["--codesearch-agent=bm25,random", "--codesearch-seed=3", "--codesearch-runs=1", dist]
    pytester.runpytest_subprocess(*common, "--codesearch-report-dir=single").assert_outcomes(passed=24)
    counts = []
    for shard in (1, 2, 3):
        result = pytester.runpytest_subprocess(*common, f"--codesearch-shard={shard}/3", f"--codesearch-report-dir=s{shard}")
        assert result.ret == pytest.ExitCode.OK
        counts.append(len(read_results(pytester.path, f"s{shard}")["cases"]))
    assert sum(counts) == 24 and all(counts)
    merged = pytester.runpytest_subprocess("--codesearch-merge", "s1", "s2", "s3", "--codesearch-report-dir=merged")
    assert merged.ret == pytest.ExitCode.OK
    merged.stdout.fnmatch_lines(["codesearch: merged 3 journal(s): 24 case record(s), 0 not run; report in *merged*"])
    single, combined = read_results(pytester.path, "single"), read_results(pytester.path, "merged")
    strip = lambda d: json.loads(json.dumps(_aggregates(d)).replace('"latency', '"x'))  # noqa: E731
    for agent in ("bm25", "random"):
        assert combined["agents"][agent]["metrics"] == single["agents"][agent]["metrics"]
        assert combined["agents"][agent]["counts"] == single["agents"][agent]["counts"]
    assert [(c["metric"], c["p_value"]) for c in combined["comparisons"]] == [
        (c["metric"], c["p_value"]) for c in single["comparisons"]
    ]
    assert strip(combined)["not_run"] == []


def test_merging_runs_of_different_seeds_is_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    write_project(pytester.path)
    for seed in (1, 2):
        pytester.runpytest("--codesearch-agent=oracle", f"--codesearch-seed={seed}", f"--codesearch-report-dir=r{seed}")
    result = pytester.runpytest("--codesearch-merge", "r1", "r2", "--codesearch-report-dir=merged")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: --codesearch-merge: r1 and r2 differ in --codesearch-seed (1 vs 2); run every shard with the same "
        "options, including --codesearch-seed"
    ])
