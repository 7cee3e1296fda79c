"""``benchmarks/bench_baselines.py``: truth from patches, LocAgent's Acc@k at every level, one run on a tiny repository."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gitrepo import commit, init_repo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_baselines import acc_at_k, main, patch_truth  # noqa: E402

from pytest_codesearch.agents.index.embedstore import shared_embedding_store  # noqa: E402

PATCH = """diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-old
+new
diff --git a/src/new.py b/src/new.py
new file mode 100644
--- /dev/null
+++ b/src/new.py
@@ -0,0 +1 @@
+added
diff --git a/src/gone.py b/src/gone.py
deleted file mode 100644
--- a/src/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-removed
"""


def test_patch_truth_keeps_modified_and_deleted_files_not_added_ones() -> None:
    assert patch_truth(PATCH) == frozenset({"src/app.py", "src/gone.py"})


@pytest.mark.parametrize(
    ("ranked", "truth", "k", "expected"),
    [
        (["a", "b"], {"a"}, 1, True),
        (["b", "a"], {"a"}, 1, False),
        (["b", "a"], {"a", "b", "c"}, 1, True),  # min(|truth|, 1) = 1 truth file in the first 1
        (["a", "x", "b"], {"a", "b"}, 3, True),
        (["a", "x", "y"], {"a", "b"}, 3, False),
        ([], {"a"}, 5, False),
    ],
)
def test_acc_at_k_is_locagents(ranked: list[str], truth: set[str], k: int, expected: bool) -> None:
    assert acc_at_k(ranked, frozenset(truth), k) is expected


def test_a_run_prints_one_row_per_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = init_repo(tmp_path / "mirror", bare=True)
    files = {
        "pkg/cache.py": "def evict(entry):\n    # drop the least recently used entry\n    return entry\n",
        "pkg/clock.py": "def now():\n    return tick()\n",
        "pkg/tests/test_cache.py": "def test_evict():\n    evict(entry)\n",
        **{f"pkg/other{n}.py": f"def helper{n}():\n    pass\n" for n in range(4)},
    }
    base = commit(repo, files, "Add the package")
    patch = (
        "diff --git a/pkg/cache.py b/pkg/cache.py\n--- a/pkg/cache.py\n+++ b/pkg/cache.py\n"
        "@@ -1,3 +1,3 @@\n def evict(entry):\n     # drop the least recently used entry\n-    return entry\n+    return None\n"
    )
    record = {"instance_id": "demo-1", "repo": "acme/demo", "base_commit": base,
              "problem_statement": "evict drops the wrong entry from the cache", "patch": patch}
    (tmp_path / "instances.jsonl").write_text(json.dumps(record) + "\n")
    (tmp_path / "mirrors.json").write_text(json.dumps({"demo": str(tmp_path / "mirror")}))
    argv = [str(tmp_path / "instances.jsonl"), str(tmp_path / "mirrors.json"), "--agents", "bm25,keyword,path,hybrid"]
    assert main([*argv, "--cache", str(tmp_path / "cache")]) == 0
    assert {p.name for p in (tmp_path / "cache").iterdir()} >= {"tokens", "indexes"}  # a run's stores, for a warm rerun
    assert shared_embedding_store() is None  # the process's stores are put back (later tests here get none)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "1 instances from 1 repositories: acme/demo; 1 with module and function truth"
    assert lines[1].split()[:10] == ["agent", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "mod@5", "mod@10", "fn@5", "fn@10", "cases"]
    rows = {line.split()[0]: line.split()[1:10] for line in lines[2:]}
    all_files = ["100.00"] * 4
    found = ["100.00"] * 4  # pkg/cache.py:evict, the function the hunk edits and its module
    none = ["0.00"] * 4  # keyword and path answer files only
    assert rows == {
        "bm25": [*all_files, *found, "1"],
        "keyword": [*all_files, *none, "1"],
        "path": [*all_files, *none, "1"],
        "hybrid": [*all_files, *found, "1"],
    }
