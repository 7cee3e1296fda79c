"""Disk used by snapshot directories: one copy per file (before) against hard links and a bounded cache (after).

The snapshots are the trees of the last ``--snapshots`` first-parent commits of a repository (default:
this one), or, with ``--goldset``, the base commits of a gold set's cases in a seeded shuffle, as a run
visits them. They are written into fresh caches twice:

* before: every file a copy of its own (``materialize_tree(..., link_blobs=False)``), for the first
  ``--before`` snapshots only if given (its time is then scaled to all of them, and said so);
* after: through the snapshot store, as a run with an agent that needs a directory does: files hard-linked
  to read-only blob files, the last four directories held, the cache pruned to ``--cache-size``.

Printed: disk used (blocks of every distinct inode; manifests apart, as every run writes them whatever
the agent), inodes and time of each, the peak of the after cache (sampled every 100 snapshots), one
snapshot alone, the unique blobs of all the snapshots, and the ratio the target is stated in::

    python benchmarks/bench_snapshots_disk.py [REPO] [--snapshots 50]
    python benchmarks/bench_snapshots_disk.py REPO --goldset flask.jsonl --before 200 [--cache-size 2GB]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import pygit2

from pytest_codesearch.goldset import formats
from pytest_codesearch.settings.types import ByteSize, Origin
from pytest_codesearch.repo import SnapshotStore
from pytest_codesearch.repo.materialize import materialize_tree

MIB = 1 << 20


def disk_use(root: Path) -> tuple[int, int]:
    """Return (bytes allocated, inodes) under ``root``, counting each hard-linked inode once.

    The store's manifests (``<root>/<tree id>.json``) are left out; a repository's own JSON files count.
    """
    seen: set[tuple[int, int]] = set()
    total = 0
    for directory, names, files in os.walk(root):
        top = directory == str(root)
        for name in [*names, *files, "."] if top else [*names, *files]:
            if top and name.endswith(".json"):
                continue
            status = os.lstat(os.path.join(directory, name))
            if (status.st_dev, status.st_ino) not in seen:
                seen.add((status.st_dev, status.st_ino))
                total += status.st_blocks * 512
    return total, len(seen)


def history_commits(repo: pygit2.Repository, count: int) -> list[str]:
    """Return the last ``count`` first-parent commits of HEAD, oldest first."""
    found: list[str] = []
    commit = repo.head.peel(pygit2.Commit)
    while len(found) < count:
        found.append(str(commit.id))
        if not commit.parents:
            break
        commit = commit.parents[0]
    return found[::-1]


def goldset_commits(goldset: Path, seed: int = 0) -> list[str]:
    """Return the distinct base commits of a gold set's cases (the metadata's for a case without), shuffled."""
    loaded = formats.load(goldset)
    if loaded.error is not None:
        raise SystemExit(f"{goldset}: {loaded.error}")
    default = loaded.metadata.base_commit
    commits = sorted({commit for case in loaded.cases if (commit := case.base_commit or default) is not None})
    random.Random(seed).shuffle(commits)
    return commits


def unique_blobs(repo: pygit2.Repository, commits: list[str]) -> int:
    """Return the bytes the blob files of every regular file of ``commits`` take (4 KiB blocks)."""
    seen: dict[str, int] = {}
    pending = [repo[c].peel(pygit2.Commit).tree for c in commits]
    trees: set[str] = set()
    while pending:
        tree = pending.pop()
        if str(tree.id) in trees:
            continue
        trees.add(str(tree.id))
        for entry in tree:
            if entry.filemode == pygit2.enums.FileMode.TREE:
                pending.append(repo[entry.id])
            elif entry.filemode in (pygit2.enums.FileMode.BLOB, pygit2.enums.FileMode.BLOB_EXECUTABLE):
                seen[str(entry.id)] = repo[entry.id].size
    return sum(-(-size // 4096) * 4096 for size in seen.values())


def before(repo: pygit2.Repository, commits: list[str], scratch: Path) -> tuple[int, int, float]:
    """Write each commit's tree as copies; return (bytes, inodes, seconds)."""
    started = time.perf_counter()
    for commit in commits:
        materialize_tree(repo, repo[commit].peel(pygit2.Commit).tree, scratch / "copied", link_blobs=False)
    elapsed = time.perf_counter() - started
    return *disk_use(scratch / "copied"), elapsed


def after(path: Path, commits: list[str], scratch: Path, limit: int | None) -> tuple[int, int, float, int, str]:
    """Hand each commit's directory out through a bounded store; return (bytes, inodes, seconds, peak, pruned)."""
    store = SnapshotStore(scratch / "linked", materialize=False, size_limit=limit)
    started, measuring, peak = time.perf_counter(), 0.0, 0
    for n, commit in enumerate(commits, 1):
        store.directory(store.get(path, commit))
        if n % 100 == 0:
            paused = time.perf_counter()
            peak = max(peak, disk_use(scratch / "linked")[0])
            measuring += time.perf_counter() - paused
    elapsed = time.perf_counter() - started - measuring
    used, inodes = disk_use(scratch / "linked")
    return used, inodes, elapsed, max(peak, used), store.pruned.describe()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", default=".", help="a git repository (default: the current one)")
    parser.add_argument("--snapshots", type=int, default=50, help="how many consecutive commits (default 50)")
    parser.add_argument("--goldset", type=Path, help="take the base commits of this JSONL gold set instead")
    parser.add_argument("--before", type=int, help="time the copies on this many snapshots only")
    parser.add_argument("--cache-size", default="2GB", help="the bound of the after cache (default 2GB)")
    args = parser.parse_args()
    path = Path(args.repo).resolve()
    repo = pygit2.Repository(pygit2.discover_repository(str(path)))
    commits = goldset_commits(args.goldset) if args.goldset else history_commits(repo, args.snapshots)
    limit = ByteSize().parse(args.cache_size, Origin("--cache-size", Path(".")))
    scratch = Path(tempfile.mkdtemp(prefix="bench-snapshots-"))
    try:
        one, one_inodes = disk_use(materialize_tree(repo, repo[commits[-1]].peel(pygit2.Commit).tree,
                                                    scratch / "one", link_blobs=False)[0])  # fmt: skip
        blobs = unique_blobs(repo, commits)
        sample = commits[: args.before] if args.before else commits
        copied = before(repo, sample, scratch)
        linked = after(path, commits, scratch, limit)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    scale = len(commits) / len(sample)
    print(f"{len(commits)} snapshots of {os.path.abspath(repo.path)}; load average {os.getloadavg()[0]:.1f}")
    print(f"one snapshot (newest):        {one / MIB:8.2f} MiB  {one_inodes:7d} inodes")
    print(f"unique blobs (4 KiB blocks):  {blobs / MIB:8.2f} MiB")
    note = f" ({len(sample)} snapshots; time x{scale:.2f}: {copied[2] * scale:.1f} s)" if scale != 1 else ""
    print(f"before (a copy per file):     {copied[0] / MIB:8.2f} MiB  {copied[1]:7d} inodes  {copied[2]:6.2f} s{note}")
    print(f"after (links, {args.cache_size} bound):   {linked[0] / MIB:8.2f} MiB  {linked[1]:7d} inodes  "
          f"{linked[2]:6.2f} s; peak {linked[3] / MIB:.2f} MiB")  # fmt: skip
    print(f"after pruning: {linked[4]}")
    print(f"after peak / (one snapshot + unique blobs): {linked[3] / (one + blobs):.2f}x")


if __name__ == "__main__":
    main()
