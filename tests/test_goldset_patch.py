"""Parsing unified diffs into per-file changes and old-side line spans (goldset/patch.py)."""

from __future__ import annotations

import pytest

from pytest_codesearch.goldset.patch import FileChange, PatchError, parse_patch, spans

MODIFY = """\
diff --git a/src/app.py b/src/app.py
index 1111111..2222222 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,6 +1,7 @@
 one
-two
+TWO
 three
 four
+inserted
 five
 six
@@ -20,3 +21,4 @@ def tail():
 x
 y
 z
+appended
"""


def test_modified_lines_and_insertions_mark_old_side_lines() -> None:
    (change,) = parse_patch(MODIFY).changes
    # "two" replaced: line 2; insertion between four and five: lines 4 and 5; appended after z (line 22),
    # with no old line shown after it: line 22 alone.
    assert change == FileChange("src/app.py", "src/app.py", "modified", False, ((2, 2), (4, 5), (22, 22)))


def test_a_replacement_marks_only_the_removed_lines() -> None:
    patch = "--- a/m.py\n+++ b/m.py\n@@ -3,4 +3,5 @@\n c\n-d\n-e\n+D\n+E\n+F\n f\n"
    assert parse_patch(patch).changes[0].old_lines == ((4, 5),)


def test_zero_context_insertion_marks_the_line_it_follows() -> None:
    patch = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -10,0 +11,2 @@\n+a\n+b\n@@ -30 +32 @@\n-x\n+y\n"
    assert parse_patch(patch).changes[0].old_lines == ((10, 10), (30, 30))


def test_insertion_at_the_top_marks_the_first_line() -> None:
    patch = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n+import os\n a\n b\n"
    assert parse_patch(patch).changes[0].old_lines == ((1, 1),)


def test_added_deleted_renamed_and_binary_files() -> None:
    patch = """\
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 3333333..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+hello
\\ No newline at end of file
diff --git a/old name.py b/new name.py
similarity index 90%
rename from old name.py
rename to new name.py
--- a/old name.py\t
+++ b/new name.py\t
@@ -3 +3 @@
-x
\\ No newline at end of file
+y
\\ No newline at end of file
diff --git a/moved.txt b/elsewhere/moved.txt
similarity index 100%
rename from moved.txt
rename to elsewhere/moved.txt
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
GIT binary patch
literal 12
Tcmb=e

literal 0
HcmV?d00001

diff --git a/data.bin b/data.bin
deleted file mode 100644
index 7777777..0000000
Binary files a/data.bin and /dev/null differ
"""
    parsed = parse_patch(patch)
    assert parsed.changes == (
        FileChange("gone.py", None, "deleted", False, ((1, 2),)),
        FileChange(None, "new.py", "added", False, ()),
        FileChange("old name.py", "new name.py", "renamed", False, ((3, 3),)),
        FileChange("moved.txt", "elsewhere/moved.txt", "renamed", False, ()),
        FileChange("logo.png", "logo.png", "modified", True, ()),
        FileChange("data.bin", None, "deleted", True, ()),
    )
    assert parsed.scored_files == ["gone.py", "old name.py", "moved.txt", "logo.png", "data.bin"]
    assert parsed.added_files == ["new.py"]
    assert parsed.old_lines() == {"gone.py": ((1, 2),), "old name.py": ((3, 3),)}


def test_quoted_names_are_unquoted() -> None:
    patch = (
        'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\n'
        'index 1..2 100644\n--- "a/caf\\303\\251.py"\n+++ "b/caf\\303\\251.py"\n@@ -1 +1 @@\n-a\n+b\n'
    )
    assert parse_patch(patch).changes == (FileChange("café.py", "café.py", "modified", False, ((1, 1),)),)


def test_mode_change_only_is_a_modified_file_without_lines() -> None:
    patch = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    assert parse_patch(patch).changes == (FileChange("run.sh", "run.sh", "modified", False, ()),)


def test_removed_lines_that_look_like_headers_stay_in_the_hunk() -> None:
    patch = "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,1 @@\n--- a/x\n-+++ b/x\n keep\n"
    assert parse_patch(patch).changes == (FileChange("notes.md", "notes.md", "modified", False, ((1, 2),)),)


def test_text_before_the_first_file_is_ignored_and_empty_patch_has_no_files() -> None:
    assert parse_patch("From abc Mon Sep 17 00:00:00 2001\nSubject: fix\n\n" + MODIFY).scored_files == ["src/app.py"]
    assert parse_patch("").changes == ()


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n", "line 3: the hunk ends early: 1 old and 1 new lines missing"),
        (
            "--- a/m.py\n+++ b/m.py\n@@ -x +1 @@\n",
            "line 3: malformed hunk header '@@ -x +1 @@' (expected '@@ -a,b +c,d @@')",
        ),
        ("@@ -1 +1 @@\n-a\n+b\n", "line 1: a hunk before any file header ('diff --git' or '---'/'+++')"),
        ("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a\n*b\n", "line 5: unexpected line in a hunk: '*b'"),
        ("--- a/m.py\n+++ b/m.py\n@@ -1 +1,2 @@\n a\n a\n", "line 3: the hunk is longer than its header says"),
    ],
)
def test_malformed_patches_name_the_line(patch: str, message: str) -> None:
    with pytest.raises(PatchError) as excinfo:
        parse_patch(patch)
    assert str(excinfo.value) == message


def test_spans_merge_adjacent_lines() -> None:
    assert spans([5, 1, 2, 3, 9, 10, 5]) == [(1, 3), (5, 5), (9, 10)]
    assert spans([]) == []


def test_form_feeds_and_crlf_inside_lines_do_not_split_them() -> None:
    patch = "--- a/m.py\r\n+++ b/m.py\r\n@@ -1,3 +1,3 @@\r\n a\x0c\r\n-b\u2028x\r\n+B\r\n c\x1c\r\n"
    assert parse_patch(patch).changes == (FileChange("m.py", "m.py", "modified", False, ((2, 2),)),)


def test_short_octal_escapes_in_quoted_names() -> None:
    patch = '--- "a/x\\18.py"\n+++ "b/x\\18.py"\n@@ -1 +1 @@\n-a\n+b\n'
    assert parse_patch(patch).changes[0].old_path == "x\x018.py"
