"""Disk used by the snapshot directories of consecutive commits: one copy per file against hard links to blobs.

Materialises the trees of the last ``--snapshots`` first-parent commits of a repository (default: this
one) into two fresh caches, once with every file a copy of its own (before) and once with every file a hard
link to its read-only blob file under ``<cache>/blobs`` (after), and prints for each the disk used (blocks of
every distinct inode, directories and manifests included), the inode count and the wall time; beside them,
one snapshot alone and the unique blobs alone. Run it from the repository root::

    python benchmarks/bench_snapshots_disk.py [REPO] [--snapshots 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import pygit2

from pytest_codesearch.repo.materialize import materialize_tree


def disk_use(root: Path) -> tuple[int, int]:
    """Return (bytes allocated, inodes) under ``root``, counting each hard-linked inode once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for directory, names, files in os.walk(root):
        for name in [*names, *files, "."] if directory == str(root) else [*names, *files]:
            status = os.lstat(os.path.join(directory, name))
            if (status.st_dev, status.st_ino) not in seen:
                seen.add((status.st_dev, status.st_ino))
                total += status.st_blocks * 512
    return total, len(seen)


def trees(repo: pygit2.Repository, count: int) -> list[pygit2.Tree]:
    """Return the trees of the last ``count`` first-parent commits of HEAD, oldest first."""
    found: list[pygit2.Tree] = []
    commit = repo.head.peel(pygit2.Commit)
    while len(found) < count:
        found.append(commit.tree)
        if not commit.parents:
            break
        commit = commit.parents[0]
    return found[::-1]


def run(
    repo: pygit2.Repository, snapshots: list[pygit2.Tree], link_blobs: bool, scratch: Path
) -> tuple[int, int, float]:
    """Materialise ``snapshots`` into a fresh cache; return (bytes, inodes, seconds)."""
    cache = scratch / ("linked" if link_blobs else "copied")
    started = time.perf_counter()
    for tree in snapshots:
        materialize_tree(repo, tree, cache, link_blobs=link_blobs)
    elapsed = time.perf_counter() - started
    used, inodes = disk_use(cache)
    return used, inodes, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", default=".", help="a git repository (default: the current one)")
    parser.add_argument("--snapshots", type=int, default=50, help="how many consecutive commits (default 50)")
    args = parser.parse_args()
    repo = pygit2.Repository(pygit2.discover_repository(args.repo))
    snapshots = trees(repo, args.snapshots)
    scratch = Path(tempfile.mkdtemp(prefix="bench-snapshots-"))
    try:
        one, one_inodes = disk_use(materialize_tree(repo, snapshots[-1], scratch / "one", link_blobs=False)[0])
        copied = run(repo, snapshots, False, scratch)
        linked = run(repo, snapshots, True, scratch)
        blobs, blob_inodes = disk_use(scratch / "linked" / "blobs")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    mib = 1 << 20
    print(f"{len(snapshots)} snapshots of {os.path.abspath(repo.path)}")
    print(f"one snapshot (newest):      {one / mib:8.2f} MiB  {one_inodes:7d} inodes")
    print(f"unique blobs:               {blobs / mib:8.2f} MiB  {blob_inodes:7d} inodes")
    for label, (used, inodes, seconds) in (("before (a copy per file)", copied), ("after (hard links)", linked)):
        print(f"{label + ':':27} {used / mib:8.2f} MiB  {inodes:7d} inodes  {seconds:6.2f} s")
    print(f"after / (one snapshot + unique blobs): {linked[0] / (one + blobs):.2f}x")


if __name__ == "__main__":
    main()
