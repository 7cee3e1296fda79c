"""normalize_paths: every cleaning rule, one table row each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_codesearch.agents.normalize import normalize_paths

ROOT = Path("/snap/3f2c1a9")
FILES = frozenset({"README.md", "src/app.py", "src/pkg/core.py", "src/My File.py", "a\\b.py", " spaced.py"})
DIRECTORIES = frozenset({"src", "src/pkg"})


@pytest.mark.parametrize(
    ("raw", "paths", "dropped"),
    [
        pytest.param(["src/app.py", "README.md"], ["src/app.py", "README.md"], [], id="kept-in-order"),
        pytest.param(["./src/app.py"], ["src/app.py"], [], id="leading-dot-slash"),
        pytest.param(["src/./pkg/core.py"], ["src/pkg/core.py"], [], id="inner-dot"),
        pytest.param(["src//pkg///core.py"], ["src/pkg/core.py"], [], id="doubled-slashes"),
        pytest.param(["src\\pkg\\core.py"], ["src/pkg/core.py"], [], id="backslashes"),
        pytest.param(["a\\b.py"], ["a\\b.py"], [], id="backslash-in-a-real-name-wins"),
        pytest.param(["src/pkg/"], ["src/pkg"], [], id="trailing-slash"),
        pytest.param(["src/pkg/../app.py"], ["src/app.py"], [], id="dotdot-inside-root"),
        pytest.param(["src/../../etc/passwd", ".."], [], ["src/../../etc/passwd", ".."], id="dotdot-escaping"),
        pytest.param(["/snap/3f2c1a9/src/app.py"], ["src/app.py"], [], id="absolute-inside"),
        pytest.param(["//snap/3f2c1a9//src/app.py"], ["src/app.py"], [], id="absolute-double-slash"),
        pytest.param(["/snap/3f2c1a9/../3f2c1a9/src/app.py"], ["src/app.py"], [], id="absolute-dotdot-inside"),
        pytest.param(
            ["/snap/other/src/app.py", "/src/app.py"],
            [],
            ["/snap/other/src/app.py", "/src/app.py"],
            id="absolute-outside",
        ),
        pytest.param(["/snap/3f2c1a9x/src/app.py"], [], ["/snap/3f2c1a9x/src/app.py"], id="root-prefix-is-not-root"),
        pytest.param(
            ["/snap/3f2c1a9", "/snap/3f2c1a9/", ".", ""],
            [],
            ["/snap/3f2c1a9", "/snap/3f2c1a9/", ".", ""],
            id="root-itself",
        ),
        pytest.param(
            ["src/app.py", "./src/app.py", "src//app.py"], ["src/app.py"], [], id="duplicates-keep-first-rank"
        ),
        pytest.param(
            ["README.md", "src/app.py", "README.md"],
            ["README.md", "src/app.py"],
            [],
            id="later-duplicate-dropped-silently",
        ),
        pytest.param(["SRC/app.py", "readme.md"], [], ["SRC/app.py", "readme.md"], id="case-sensitive"),
        pytest.param(
            ["nope.py", "src/app.py", "src/nope/"], ["src/app.py"], ["nope.py", "src/nope/"], id="not-in-snapshot"
        ),
        pytest.param(["src/My File.py"], ["src/My File.py"], [], id="spaces-inside-kept"),
        pytest.param([" src/app.py\n"], ["src/app.py"], [], id="surrounding-whitespace"),
        pytest.param([" spaced.py"], [" spaced.py"], [], id="leading-space-in-a-real-name-wins"),
        pytest.param([], [], [], id="empty-answer"),
    ],
)
def test_normalize_paths(raw: list[str], paths: list[str], dropped: list[str]) -> None:
    answer = normalize_paths(raw, ROOT, FILES, DIRECTORIES)
    expected = (paths, frozenset(p for p in paths if p in DIRECTORIES), dropped)
    assert (answer.paths, answer.directories, answer.dropped) == expected


def test_directories_are_reported_as_such() -> None:
    answer = normalize_paths(["src/pkg/", "src/app.py", "src"], ROOT, FILES, DIRECTORIES)
    assert answer.paths == ["src/pkg", "src/app.py", "src"]
    assert answer.directories == {"src/pkg", "src"}


def test_absolute_paths_through_a_symlinked_root_are_accepted(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    raw = [os.path.join(real, "src/app.py"), os.path.join(tmp_path, "alias", "README.md")]
    answer = normalize_paths(raw, tmp_path / "alias", FILES, DIRECTORIES)
    assert answer.paths == ["src/app.py", "README.md"]


def test_relative_snapshot_root_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    answer = normalize_paths([str(tmp_path / "snap" / "src/app.py")], Path("snap"), FILES, DIRECTORIES)
    assert answer.paths == ["src/app.py"]


def test_sources_point_each_kept_path_at_its_first_raw_position(tmp_path: Path) -> None:
    raw = ["nope.py", "src/a.py", "./src/a.py", "src/b.py"]
    answer = normalize_paths(raw, tmp_path, frozenset({"src/a.py", "src/b.py"}), frozenset({"src"}))
    assert answer.paths == ["src/a.py", "src/b.py"]
    assert answer.sources == [1, 3]


def test_a_snapshot_path_that_reads_as_a_drive_path_is_still_dropped() -> None:
    answer = normalize_paths(["C:/x.py", "src/app.py"], ROOT, FILES | {"C:/x.py"}, DIRECTORIES)
    assert (answer.paths, answer.dropped) == (["src/app.py"], ["C:/x.py"])
