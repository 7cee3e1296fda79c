"""``--codesearch-entity-truth=dataset``: the instance's own ``edit_functions`` is the entity truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_project import read_results
from shop_repo import swebench_workspace

from pytest_codesearch.goldset.formats import ReadOptions, load

GIVEN = ["pkg/shop.py:Cart", "pkg/shop.py:Cart.add", "pkg/util.py:fmt", "pkg/shop.py:Cart.add"]


def _instances(root: Path) -> Path:
    """Write the shop instances again, the first with its own ``edit_functions`` (as LocAgent's copies have)."""
    records = [json.loads(line) for line in (root / "instances.jsonl").read_text().splitlines()]
    records[0]["edit_functions"] = GIVEN
    path = root / "with_edits.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    (root / "instances.jsonl").unlink()
    for name in ("lite.json", "locbench-instance.json"):
        (root / name).unlink()
    return path


def test_dataset_truth_takes_edit_functions_and_derives_modules_as_locagent_does(tmp_path: Path) -> None:
    path = _instances(swebench_workspace(tmp_path))
    loaded = load(path, ReadOptions(entity_truth="dataset"))
    assert [(e.line, e.error) for e in loaded.entries] == [
        (1, None),
        (2, "edit_functions: missing; --codesearch-entity-truth=dataset takes the function-level truth from it"),
    ]
    (case,) = loaded.cases
    assert case.ground_truth_functions == ["pkg/shop.py:Cart", "pkg/shop.py:Cart.add", "pkg/util.py:fmt"]
    assert case.ground_truth_modules == ["pkg/shop.py:Cart", "pkg/util.py:fmt"]
    assert [f.path for f in case.ground_truth_files] == ["docs/legacy.txt", "pkg/shop.py", "pkg/util.py"]  # patch


def test_patch_truth_is_the_default_and_keeps_edit_functions_aside(tmp_path: Path) -> None:
    path = _instances(swebench_workspace(tmp_path))
    first = load(path).cases[0]
    assert first.ground_truth_functions[:2] == ["pkg/shop.py:Cart.add", "pkg/shop.py:Cart.total"]
    assert first.model_dump(mode="json")["x-swebench"]["edit_functions"] == GIVEN


def test_the_option_reaches_the_cases_of_a_run(pytester: pytest.Pytester) -> None:
    _instances(swebench_workspace(pytester.path))
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-entity-truth=dataset", "--codesearch-runs=1")
    result.assert_outcomes(passed=1, failed=1)
    (record,) = read_results(pytester.path)["cases"]
    assert record["ground_truth_modules"] == ["pkg/shop.py:Cart", "pkg/util.py:fmt"]
    result.stdout.fnmatch_lines(["with_edits.jsonl:2: edit_functions: missing; --codesearch-entity-truth=dataset*"])
