"""Atomic files: permissions from the umask, nothing half-written."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_codesearch.atomic import atomic_file, creation_mode, current_umask, write_atomic


@pytest.fixture
def umask() -> Iterator[int]:
    """Run the test under umask 0o027, restoring the previous one after."""
    previous = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_without_changing_it(umask: int) -> None:
    assert (current_umask(), creation_mode()) == (0o027, 0o640)
    assert current_umask() == 0o027


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o000, 0o666)])
def test_write_atomic_creates_files_with_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    previous = os.umask(mask)
    try:
        write_atomic(tmp_path / "results.json", "{}\n")
        (tmp_path / "plain.txt").write_text("x")  # what open() gives, for comparison
    finally:
        os.umask(previous)
    assert _mode(tmp_path / "results.json") == mode == _mode(tmp_path / "plain.txt")


def test_atomic_file_writes_newlines_as_given(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    with atomic_file(target) as stream:
        stream.write("one\r\ntwo\n")
    assert target.read_bytes() == b"one\r\ntwo\n"
