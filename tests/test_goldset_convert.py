"""Converting any known shape to native JSONL: same cases, repositories re-based, same metrics when collected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_project import read_results
from shop_repo import swebench_workspace

from pytest_codesearch.goldset.convert import Conversion, convert_goldset
from pytest_codesearch.goldset.formats import load, reader_for
from pytest_codesearch.goldset.formats.native import FORMAT as NATIVE


def test_swebench_instances_convert_to_the_same_native_cases(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    output = root / "converted" / "lite.jsonl"
    assert convert_goldset(root / "lite.json", output) == Conversion(2, [])
    assert reader_for(output) is NATIVE
    converted = load(output)
    original = load(root / "lite.json").cases
    assert converted.error is None
    assert [c.repo for c in converted.cases] == ["../acme__shop", "../acme__shop"]
    assert [c.model_copy(update={"repo": None}) for c in converted.cases] == [
        c.model_copy(update={"repo": None}) for c in original
    ]


def test_broken_entries_are_listed_not_written(tmp_path: Path) -> None:
    source = tmp_path / "set.jsonl"
    good = {"id": "a", "query": "q", "ground_truth_files": ["x.py"], "repo": "code"}
    source.write_text(json.dumps(good) + '\n{"id": "b"}\n', encoding="utf-8")
    (tmp_path / "code").mkdir()
    result = convert_goldset(source, tmp_path / "out" / "set.jsonl")
    missing = "query: missing required field; ground_truth_files: missing required field"
    assert result == Conversion(1, [f"{source}:2: {missing}"])
    assert [json.loads(line) for line in (tmp_path / "out" / "set.jsonl").read_text().splitlines()] == [
        {**good, "repo": "../code"}
    ]


@pytest.mark.slow
def test_converted_instances_collect_and_score_the_same(pytester: pytest.Pytester) -> None:
    root = swebench_workspace(pytester.path)
    convert_goldset(root / "instances.jsonl", root / "converted" / "instances.jsonl")
    metrics = []
    for target in ("instances.jsonl", "converted/instances.jsonl"):
        result = pytester.runpytest(target, "--codesearch-agent=bm25", "--codesearch-runs=1")
        result.assert_outcomes(passed=2)
        metrics.append({c["id"]: c["metrics"] for c in read_results(pytester.path)["cases"]})
    assert sorted(metrics[0]) == ["acme__shop-1", "acme__shop-2"]
    assert metrics[0] == metrics[1]


def test_a_directory_of_instance_files_joins_into_one_gold_set(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path / "data")  # instances.jsonl, lite.json (the same two), one Loc-Bench file
    (root / "notes.json").write_text('{"unrelated": true}')
    result = convert_goldset(root, tmp_path / "all.jsonl")
    assert result == Conversion(
        3,
        [
            f"{root / 'lite.json'}:2: id: 'acme__shop-1' is already used at {root / 'instances.jsonl'}:1",
            f"{root / 'lite.json'}:16: id: 'acme__shop-2' is already used at {root / 'instances.jsonl'}:2",
        ],
    )
    cases = load(tmp_path / "all.jsonl").cases
    assert [(c.id, c.repo) for c in cases] == [(f"acme__shop-{n}", "data/acme__shop") for n in (1, 2, 3)]


def test_a_set_read_through_the_repository_map_converts_to_a_portable_one(pytester: pytest.Pytester) -> None:
    """Instances whose mirror comes from the map keep ``acme/shop``, not the mirror's path: the converted
    set runs anywhere with the map (or a clone), and scores the same."""
    root = swebench_workspace(pytester.path / "data")
    mirror = pytester.path / "mirror" / "acme+shop" / "repo"
    mirror.parent.mkdir(parents=True)
    (root / "acme__shop").rename(mirror)
    mapping = f"--codesearch-repo-map=acme/shop={mirror}"
    converted = pytester.runpytest("--codesearch-convert", "data/instances.jsonl", "--codesearch-output",
                                   "sets/deep/down/instances.jsonl", mapping)  # fmt: skip
    assert converted.ret == 0
    lines = (pytester.path / "sets" / "deep" / "down" / "instances.jsonl").read_text().splitlines()
    assert [json.loads(line)["repo"] for line in lines if '"id"' in line] == ["acme/shop", "acme/shop"]
    assert "mirror" not in "".join(lines)
    metrics = []
    for target in ("data/instances.jsonl", "sets/deep/down/instances.jsonl"):
        result = pytester.runpytest(target, "--codesearch-agent=oracle", "--codesearch-runs=1", mapping)
        result.assert_outcomes(passed=2)
        results = read_results(pytester.path)
        metrics.append({c["id"]: c["metrics"] for c in results["cases"]})
        assert {c["repo"] for c in results["cases"]} == {"acme/shop"}  # the label, not the mirror's path
        assert list(results["breakdowns"]["repo"]) == ["acme/shop"]
    assert metrics[0] == metrics[1]
