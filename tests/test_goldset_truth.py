"""Ground truth derived from a SWE-bench-style patch against a base tree read with pygit2."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from gitrepo import commit, init_repo
from shop_repo import UTIL, build_shop

from pytest_codesearch.goldset.patch import parse_patch
from pytest_codesearch.goldset.truth import PatchTruth, Reader, fit_problem, truth_from_patch

def _tree_reader(repo: pygit2.Repository, commit_id: str) -> tuple[pygit2.Tree, Reader]:
    tree = repo[pygit2.Oid(hex=commit_id)].peel(pygit2.Commit).tree

    def read(path: str) -> bytes | None:
        try:
            entry = tree[path]
        except KeyError:
            return None
        return repo[entry.id].peel(pygit2.Blob).data

    return tree, read


def test_patch_of_two_methods_and_a_function_gives_exact_truth(tmp_path: Path) -> None:
    repo, base, patch = build_shop(tmp_path / "shop")
    assert patch.startswith("diff --git a/docs/legacy.txt b/docs/legacy.txt\n")
    tree, read = _tree_reader(repo, base)

    truth = truth_from_patch(parse_patch(patch), read)

    assert truth == PatchTruth(
        files=("docs/legacy.txt", "pkg/shop.py", "pkg/util.py"),
        added_files=("pkg/discount.py",),
        # shop.py: the append (line 9) and the sum (line 15) are replaced; util.py: line 5 replaced, and a
        # docstring inserted between lines 8 and 9 marks both; legacy.txt: all three lines deleted.
        lines={"docs/legacy.txt": ((1, 3),), "pkg/shop.py": ((9, 9), (15, 15)), "pkg/util.py": ((5, 5), (8, 9))},
        functions=("pkg/shop.py:Cart.add", "pkg/shop.py:Cart.total", "pkg/util.py:fmt", "pkg/util.py:unused"),
        modules=("pkg/shop.py:Cart", "pkg/util.py:fmt", "pkg/util.py:unused"),
        missing=(),
    )
    base_lines = {path: read(path).decode().splitlines() for path in truth.lines}  # type: ignore[union-attr]
    assert base_lines["pkg/shop.py"][8].strip() == "self.items.append(item)"
    assert base_lines["pkg/shop.py"][14].strip() == "return sum(i.price for i in self.items)"
    util = [base_lines["pkg/util.py"][n - 1] for n in (5, 8, 9)]
    assert util == ["    return str(value)", "def unused():", "    return math.pi"]
    assert "pkg/discount.py" not in [entry.name for entry in tree["pkg"]]  # type: ignore[union-attr]


def test_files_the_base_lacks_are_reported_missing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "shop")
    base = commit(repo, {"pkg/util.py": UTIL}, "Base")
    _, read = _tree_reader(repo, base)
    patch = "diff --git a/pkg/other.py b/pkg/other.py\n--- a/pkg/other.py\n+++ b/pkg/other.py\n@@ -1 +1 @@\n-a\n+b\n"
    truth = truth_from_patch(parse_patch(patch), read)
    assert (truth.files, truth.missing, truth.functions) == (("pkg/other.py",), ("pkg/other.py",), ())


def test_a_patch_read_against_the_wrong_commit_does_not_fit(tmp_path: Path) -> None:
    repo, _, patch = build_shop(tmp_path / "shop")
    _, read_fixed = _tree_reader(repo, str(repo.head.target))  # the fix itself, not its parent
    util_patch = "".join(patch.partition("diff --git a/pkg/util.py")[1:])
    truth = truth_from_patch(parse_patch(util_patch), read_fixed)
    expected = "pkg/util.py:5: the patch expects 'return str(value)', the file has 'return f\"{value:.2f}\"'"
    assert truth.misfits == (expected,)


@pytest.mark.parametrize(
    ("data", "shown", "problem"),
    [
        (b"a\nb  \r\nc\n", [(1, "a"), (2, "b"), (3, "c")], None),  # trailing whitespace and CR are ignored
        (b"a\nb\n", [(3, "c")], "f.py:3: the patch shows line 3, but the file has 2 lines"),
        (b"a\nb", [(2, "x")], "f.py:2: the patch expects 'x', the file has 'b'"),
        (b"\xff\xfe", [(1, "anything")], None),  # not UTF-8: not checked
        (b"", [], None),
    ],
)
def test_fit_problem(data: bytes, shown: list[tuple[int, str]], problem: str | None) -> None:
    assert fit_problem("f.py", data, shown) == problem


def test_renamed_and_deleted_python_files_name_entities_by_base_path() -> None:
    base = {"old.py": b"def f():\n    return 1\n", "gone.py": b"class A:\n    def m(self):\n        pass\n"}
    patch = (
        "diff --git a/old.py b/new.py\nsimilarity index 80%\nrename from old.py\nrename to new.py\n"
        "--- a/old.py\n+++ b/new.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
        "@@ -1,3 +0,0 @@\n-class A:\n-    def m(self):\n-        pass\n"
    )
    truth = truth_from_patch(parse_patch(patch), base.get)
    assert (truth.files, truth.functions, truth.modules) == (
        ("old.py", "gone.py"),
        ("old.py:f", "gone.py:A.m"),
        ("old.py:f", "gone.py:A"),
    )
    assert truth.lines == {"old.py": ((2, 2),), "gone.py": ((1, 3),)}


def test_hunks_a_few_lines_off_their_headers_are_found_where_the_base_holds_them() -> None:
    """As git apply and GNU patch do: SWE-bench Lite has gold patches whose hunks sit 8 lines below their headers."""
    filler = "".join(f"# filler {n}\n" for n in range(1, 9))
    base = {"m.py": (filler + "def f():\n    return 1\n\n\ndef g():\n    return 2\n").encode()}
    patch = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 3\n"
        "@@ -5,2 +5,3 @@\n def g():\n+    x = 1\n     return 2\n"
    )
    truth = truth_from_patch(parse_patch(patch), base.get)
    assert (truth.misfits, truth.lines) == ((), {"m.py": ((10, 10), (13, 14))})
    assert (truth.functions, truth.modules) == (("m.py:f", "m.py:g"), ("m.py:f", "m.py:g"))


def test_hunks_that_fit_nowhere_are_a_misfit() -> None:
    patch = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 9\n+    return 3\n"
    truth = truth_from_patch(parse_patch(patch), {"m.py": b"def f():\n    return 1\n"}.get)
    assert truth.misfits == ("m.py:2: the patch expects 'return 9', the file has 'return 1'",)
