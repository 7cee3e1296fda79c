"""Time what a case without ``base_commit`` costs: listing the working tree and linking its visible files.

Lists a directory as the snapshot store does (``.git`` and excluded paths hidden), then builds the
hard-linked copy agents that need a directory receive, and reads every file through the snapshot's
reader. Timings are wall-clock and noisy on a shared machine. Run it from the repository root::

    python benchmarks/bench_worktree.py [DIR]          # default: a synthetic 5,000-file tree
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from pytest_codesearch.repo import SnapshotStore


def _synthetic(root: Path, files: int) -> Path:
    """Write ``files`` small source files under ``root`` in 50 directories, plus a ``.git`` to hide."""
    for i in range(files):
        path = root / f"pkg{i % 50}" / f"module{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def function_{i}(value):\n    return value * {i}\n" * 20)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def main() -> None:
    """Print the milliseconds to list, link and read one working tree."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", nargs="?", type=Path)
    parser.add_argument("--files", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.directory or _synthetic(Path(scratch) / "tree", args.files)
        cache = Path(scratch) / "cache"
        start = time.perf_counter()
        store = SnapshotStore(cache, exclude=[root / ".codesearch", root / "codesearch-report"])
        snapshot = store.get(root, None)
        listed = time.perf_counter()
        store.directory(snapshot)
        linked = time.perf_counter()
        again_store = SnapshotStore(cache, exclude=[root / ".codesearch", root / "codesearch-report"])
        again_store.directory(again_store.get(root, None))  # the next run: listed again, the copy reused
        again = time.perf_counter()
        total = sum(len(snapshot.read(path) or b"") for path in snapshot.files)
        read = time.perf_counter()
        print(f"{len(snapshot.files)} files, {total / 1e6:.1f} MB in {os.fspath(root)}")
        print(f"list {1e3 * (listed - start):.0f} ms, link {1e3 * (linked - listed):.0f} ms, "
              f"list + reuse {1e3 * (again - linked):.0f} ms, read all {1e3 * (read - again):.0f} ms")


if __name__ == "__main__":
    main()
