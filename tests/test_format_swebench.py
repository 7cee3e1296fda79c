"""SWE-bench-style instance files: recognised by content, read into cases with patch-derived ground truth."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pygit2
import pytest
from example_project import read_results
from shop_repo import BASE, DATA, build_shop, swebench_workspace

from pytest_codesearch.goldset.formats import ReadOptions, load, reader_for
from pytest_codesearch.goldset.formats.native import FORMAT as NATIVE
from pytest_codesearch.goldset.formats.swebench import FORMAT as SWEBENCH
from pytest_codesearch.goldset.formats.swebench import load_swebench

UTIL_FUNCTIONS = ["pkg/util.py:fmt", "pkg/util.py:unused"]
FIXED = "227e6c3a135ee6857861811df0c4a192ecf0deee"
"""The fix commit: a wrong base for its own patch."""


def _case_json(case: Any) -> dict[str, Any]:
    return case.model_dump(mode="json", exclude_defaults=True)


def test_instances_become_cases_with_derived_ground_truth(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    loaded = load(root / "instances.jsonl")
    assert loaded.error is None
    assert [(e.line, e.error) for e in loaded.entries] == [(1, None), (2, None)]
    first, second = (_case_json(case) for case in loaded.cases)
    assert first["ground_truth_files"] == [
        {"path": "docs/legacy.txt", "lines": [[1, 3]]},  # deleted: every line of the base
        {"path": "pkg/shop.py", "lines": [[9, 9], [15, 15]]},
        {"path": "pkg/util.py", "lines": [[5, 5], [8, 9]]},
    ]
    assert {key: first[key] for key in ("id", "repo", "base_commit", "added_files", "tags")} == {
        "id": "acme__shop-1",
        "repo": str((root / "acme__shop").resolve()),
        "base_commit": BASE,
        "added_files": ["pkg/discount.py"],
        "tags": ["acme/shop"],
    }
    assert first["query"].startswith("Adding the same item twice")
    assert first["ground_truth_functions"] == ["pkg/shop.py:Cart.add", "pkg/shop.py:Cart.total", *UTIL_FUNCTIONS]
    assert first["ground_truth_modules"] == ["pkg/shop.py:Cart", *UTIL_FUNCTIONS]
    assert sorted(first["x-swebench"]) == [
        "FAIL_TO_PASS", "PASS_TO_PASS", "created_at", "environment_setup_commit", "hints_text", "test_patch", "version",
    ]
    assert second["ground_truth_files"] == [{"path": "pkg/util.py", "lines": [[5, 5], [8, 9]]}]
    assert second["ground_truth_functions"] == UTIL_FUNCTIONS
    assert "added_files" not in second


def test_a_json_list_and_a_single_instance_read_like_jsonl(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    from_jsonl = [_case_json(c) for c in load(root / "instances.jsonl").cases]
    listed = load(root / "lite.json")
    assert [e.line for e in listed.entries] == [2, 16]
    assert [_case_json(c) for c in listed.cases] == from_jsonl
    (single,) = load(root / "locbench-instance.json").cases
    assert (single.id, single.extensions["x-swebench"]) == ("acme__shop-3", {"category": "Bug Report"})


@pytest.mark.parametrize("layout", ["acme/shop", "acme__shop"])
def test_repository_found_beside_the_file_by_name(tmp_path: Path, layout: str) -> None:
    root = swebench_workspace(tmp_path, layout)
    assert [c.repo for c in load(root / "instances.jsonl").cases] == [str((root / layout).resolve())] * 2


def test_repository_map_points_at_a_clone_elsewhere(tmp_path: Path) -> None:
    build_shop(tmp_path / "clones" / "shop.git")
    (tmp_path / "sets").mkdir()
    shutil.copy(DATA / "instances.jsonl", tmp_path / "sets" / "instances.jsonl")
    options = ReadOptions(repos={"acme/shop": tmp_path / "clones" / "shop.git"})
    loaded = load(tmp_path / "sets" / "instances.jsonl", options)
    assert [c.repo for c in loaded.cases] == ["acme/shop"] * 2  # the map finds it again: no local path kept


def test_files_are_claimed_by_content(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    native = root / "native.json"
    case = {"id": "a", "query": "instance_id base_commit", "ground_truth_files": ["a"]}
    native.write_text(json.dumps({"test_cases": [case]}))
    other = root / "other.json"
    other.write_text(json.dumps([{"name": "instance_id"}]))
    assert [reader_for(root / n) for n in ("instances.jsonl", "lite.json", "locbench-instance.json")] == [SWEBENCH] * 3
    assert (reader_for(native), reader_for(other)) == (NATIVE, None)


def _instance(**changes: Any) -> dict[str, Any]:
    record = json.loads((DATA / "instances.jsonl").read_text().splitlines()[1])
    record.update(changes)
    return {key: value for key, value in record.items() if value is not None}


def test_each_broken_instance_fails_alone_naming_its_field(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    lines = [
        json.dumps(_instance()),
        json.dumps(_instance(instance_id="x-1", patch=None)),
        json.dumps(_instance(instance_id="x-2", base_commit="0" * 40)),
        json.dumps(_instance(instance_id="x-3", patch="--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n")),
        json.dumps(_instance(instance_id="x-4", patch="--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n")),
        json.dumps(_instance(instance_id="x-5", patch="--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+a\n")),
        json.dumps(_instance(instance_id="x-6", repo="acme/missing")),
        json.dumps(_instance(instance_id="x-7", problem_statement="  ")),
        json.dumps(_instance(instance_id="x-8", base_commit=FIXED)),
        json.dumps(_instance()),
        "{not json",
        "[1]",
        json.dumps(_instance(instance_id="has space")),
    ]
    (root / "broken.jsonl").write_text("\n".join(lines) + "\n")
    loaded = load_swebench(root / "broken.jsonl", ReadOptions())
    missing = (root / "acme" / "missing").resolve()
    assert [(e.line, e.case_id, e.error) for e in loaded.entries] == [
        (1, "acme__shop-2", None),
        (2, "x-1", "patch: missing required field"),
        (3, "x-2", f"base_commit: '{'0' * 40}' is not in {(root / 'acme__shop' / '.git').resolve()}/: "
                   "no commit, branch or tag has that name"),
        (4, "x-3", "patch: line 3: the hunk ends early: 1 old and 1 new lines missing"),
        (5, "x-4", "patch: changes 'nope.py', not in the tree of base_commit f331e8075701 (does the patch fit it?)"),
        (6, "x-5", "patch: changes no file that exists at base_commit (it only adds files)"),
        (7, "x-6", f"repo: 'acme/missing' (resolved to {missing}) is not a directory; "
                   "clone it there or beside the file as 'acme__missing', or map it to a clone"),
        (8, "x-7", "problem_statement: must not be empty"),
        (9, "x-8", f"patch: does not fit base_commit {FIXED[:12]}: pkg/util.py:5: "
                   "the patch expects 'return str(value)', the file has 'return f\"{value:.2f}\"'"),
        (10, None, "instance_id: duplicate of line 1"),
        (11, None, "invalid JSON: Expecting property name enclosed in double quotes (column 2)"),
        (12, None, "an instance must be a JSON object, got array"),
        (13, None, "instance_id: must not contain whitespace or control characters (found ' ')"),
    ]


def test_a_broken_json_list_is_one_file_error(tmp_path: Path) -> None:
    path = tmp_path / "lite.json"
    path.write_text('[{"instance_id": "a", "base_commit": "b",\n  oops}]')
    assert reader_for(path) is SWEBENCH
    loaded = load(path)
    assert loaded.entries == []
    assert loaded.error == "line 2: invalid JSON: Expecting property name enclosed in double quotes (column 3)"


@pytest.mark.parametrize("dist", ["-n0", "-n2"])
def test_instances_run_as_items(pytester: pytest.Pytester, dist: str) -> None:
    swebench_workspace(pytester.path)
    for name in ("lite.json", "locbench-instance.json"):
        (pytester.path / name).unlink()
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1", dist)
    result.assert_outcomes(passed=2)
    records = {case["id"]: case for case in read_results(pytester.path)["cases"]}
    assert sorted(records) == ["acme__shop-1", "acme__shop-2"]
    assert records["acme__shop-1"]["ground_truth"] == ["docs/legacy.txt", "pkg/shop.py", "pkg/util.py"]
    # the oracle names the files but no spans: full file scores, and the derived lines are scored too
    assert {name: records["acme__shop-2"]["metrics"][name] for name in ("f1", "line_coverage")} == {
        "f1": 1.0,
        "line_coverage": 0.0,
    }


def test_the_example_in_the_format_page_loads(tmp_path: Path) -> None:
    swebench_workspace(tmp_path)
    page = (Path(__file__).parent.parent / "docs" / "swebench-format.md").read_text(encoding="utf-8")
    example = page.split("```json\n")[1].split("```")[0]
    (tmp_path / "example.jsonl").write_text(example, encoding="utf-8")
    (case,) = load(tmp_path / "example.jsonl").cases
    assert [(f.path, f.lines) for f in case.ground_truth_files] == [("pkg/shop.py", [(9, 9)])]
    assert case.ground_truth_functions == ["pkg/shop.py:Cart.add"]


def test_a_missing_blob_is_named_and_the_rest_runs(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    blob = "3918707be09d4958d2a84a23872b27845cd824db"  # pkg/shop.py at the base: only instance 1 reads it
    (root / "acme__shop" / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a partial clone lacks it
    loaded = load(root / "instances.jsonl")
    git_dir = (root / "acme__shop" / ".git").resolve()
    assert [(e.case_id, e.error) for e in loaded.entries] == [
        (
            "acme__shop-1",
            f"base_commit: f331e8075701 needs 'pkg/shop.py' (blob 3918707be09d), but {git_dir}/ lacks it (a partial clone?)",
        ),
        ("acme__shop-2", None),
    ]


@pytest.mark.parametrize("agent", ["oracle", "bm25"])
def test_a_run_over_a_clone_lacking_a_blob_runs_the_cases_that_do_not_need_it(
    pytester: pytest.Pytester, agent: str
) -> None:
    root = swebench_workspace(pytester.path)
    for name in ("lite.json", "locbench-instance.json"):
        (root / name).unlink()
    blob = "3918707be09d4958d2a84a23872b27845cd824db"  # pkg/shop.py at the base: only instance 1's truth reads it
    (root / "acme__shop" / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    warning = "always::pytest_codesearch.repo.snapshot.IncompleteSnapshotWarning"
    result = pytester.runpytest(f"--codesearch-agent={agent}", "--codesearch-runs=1", "-W", warning)
    result.assert_outcomes(passed=1, failed=1)  # the invalid instance is a failed item naming its line
    result.stdout.fnmatch_lines(["instances.jsonl:1: base_commit: f331e8075701 needs 'pkg/shop.py' (blob 3918707be09d), but *lacks it*"])
    result.stdout.fnmatch_lines(["*IncompleteSnapshotWarning*lacks the blobs of 'pkg/shop.py'*snapshots leave them out"])
    (case,) = read_results(pytester.path)["cases"]
    assert case["id"] == "acme__shop-2" and case["status"] == "ok"
    assert "pkg/shop.py" not in case["retrieved"]


def test_hints_are_appended_only_when_asked(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    path = root / "instances.jsonl"
    plain, with_hints = (load(path, ReadOptions(hints=hints)).cases for hints in (False, True))
    statement = "Adding the same item twice to the cart counts it twice, and totals show long decimals."
    assert [c.query for c in plain] == [statement, "fmt prints too many digits"]
    assert [c.query for c in with_hints] == [f"{statement}\n\nLook at Cart.add.", "fmt prints too many digits"]


def test_an_object_is_one_instance_only_when_its_own_keys_say_so(tmp_path: Path) -> None:
    report = tmp_path / "results.json"
    report.write_text(json.dumps({"cases": [{"instance_id": "a", "base_commit": "b"}]}))
    broken = tmp_path / "one.json"
    broken.write_text('{"instance_id": "a", "base_commit": "b", oops}')
    assert (reader_for(report), reader_for(broken)) == (None, SWEBENCH)


def test_a_missing_base_tree_is_named(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    repo = pygit2.Repository(str(root / "acme__shop"))
    tree = str(repo[pygit2.Oid(hex=BASE)].peel(pygit2.Commit).tree_id)
    (root / "acme__shop" / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    git_dir = (root / "acme__shop" / ".git").resolve()
    expected = f"base_commit: f331e8075701 needs tree {tree[:12]}, but {git_dir}/ lacks it (a partial clone?)"
    assert [e.error for e in load(root / "instances.jsonl").entries] == [expected, expected]


def test_text_after_an_instance_on_its_line_is_an_error(tmp_path: Path) -> None:
    root = swebench_workspace(tmp_path)
    line = (root / "instances.jsonl").read_text().splitlines()[1]
    (root / "junk.jsonl").write_text(line + " trailing\r\n" + line.replace("acme__shop-2", "acme__shop-9") + "\r\n")
    entries = load(root / "junk.jsonl").entries
    assert [(e.line, e.error) for e in entries] == [(1, f"invalid JSON: Extra data (column {len(line) + 2})"), (2, None)]


def test_a_broken_instance_fails_alone_as_an_item(pytester: pytest.Pytester) -> None:
    root = swebench_workspace(pytester.path)
    for name in ("instances.jsonl", "lite.json", "locbench-instance.json"):
        (root / name).unlink()
    lines = [json.dumps(_instance()), json.dumps(_instance(instance_id="x-1", patch=None))]
    (root / "broken.jsonl").write_text("\n".join(lines) + "\n")
    result = pytester.runpytest("--codesearch-agent=oracle", "--codesearch-runs=1")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["broken.jsonl:2: patch: missing required field"])
    assert "Traceback" not in result.stdout.str()


def test_derived_truth_is_kept_and_read_back_unchanged(tmp_path: Path) -> None:
    from pytest_codesearch.goldset import truthcache
    from pytest_codesearch.goldset.truth import PatchTruth

    root = swebench_workspace(tmp_path)
    cache = tmp_path / "truth"
    fresh = [_case_json(c) for c in load(root / "instances.jsonl").cases]
    stored = [_case_json(c) for c in load(root / "instances.jsonl", ReadOptions(truth_cache=cache)).cases]
    files = sorted(cache.rglob("*.json"))
    assert stored == fresh and len(files) == 2  # one truth per instance
    assert all(p.parts[-3] == f"t1-{truthcache.code_digest()}" for p in files)
    files[0].write_text("{damaged")  # unreadable: derived again, and written whole
    again = [_case_json(c) for c in load(root / "instances.jsonl", ReadOptions(truth_cache=cache)).cases]
    assert again == fresh and json.loads(files[0].read_text())["files"]
    key = truthcache.truth_key("patch", BASE, "native")
    assert key != truthcache.truth_key("patch", BASE, "locagent") != truthcache.truth_key("patch", FIXED, "native")
    derived: list[PatchTruth] = []

    def derive() -> PatchTruth:
        derived.append(PatchTruth(files=("a.py",), added_files=(), lines={"a.py": ((1, 2),)}, functions=("a.py:f",),
                                  modules=("a.py:f",), missing=(), misfits=("a.py:3: differs",)))  # fmt: skip
        return derived[-1]

    assert [truthcache.cached_truth(cache, key, derive) for _ in range(2)] == derived * 2 and len(derived) == 1


def test_processes_reading_one_file_at_once_each_derive_their_share_of_the_truth(tmp_path: Path) -> None:
    """Every xdist worker collects every case: with ``truth_share`` (k, n), a reader first derives the
    truth of every n-th instance from the k-th into the cache, so two workers derive one instance each and
    find the other's there; the cases read are the same as without a share."""
    from pytest_codesearch.goldset.formats.swebench import derive_share, read_records
    from pytest_codesearch.goldset.truthcache import truth_key

    root = swebench_workspace(tmp_path)
    path, cache = root / "instances.jsonl", tmp_path / "truth"
    fresh = [_case_json(c) for c in load(path).cases]
    records, _ = read_records(path)
    derive_share(path, records, ReadOptions(truth_cache=cache, truth_share=(1, 2)))
    (only,) = cache.rglob("*.json")
    second = records[1][1]
    assert only.stem == truth_key(second["patch"], second["base_commit"], "native")[2:]  # the second instance's alone
    derive_share(path, records, ReadOptions(truth_cache=cache, truth_share=(0, 2)))
    assert len(list(cache.rglob("*.json"))) == 2
    shared = [_case_json(c) for c in load(path, ReadOptions(truth_cache=cache, truth_share=(0, 2))).cases]
    assert shared == fresh and len(list(cache.rglob("*.json"))) == 2
    alone = [_case_json(c) for c in load(path, ReadOptions(truth_cache=tmp_path / "other", truth_share=(1, 3))).cases]
    assert alone == fresh
