"""Check the functions a mined gold set records against the repository, independently of the miner.

For a sample of kept commits that record functions, each ``path:Qualified.name`` of
``ground_truth_functions`` must name a definition of ``path`` at the parent commit (outlined whole
with ``pytest_codesearch.outline``, not the miner's incremental outline) whose lines contain a line the
commit changes on the old side, found with libgit2's own diff of the two commits (renames detected,
no context; a pure insertion marks the old lines on either side, as the miner's rule says). Prints the
counts and every failure::

    python benchmarks/check_mined_functions.py ~/mirrors/git.git goldsets/git.jsonl [--sample 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import pygit2

from pytest_codesearch.outline import outline

_FLAGS = pygit2.enums.DiffOption.INDENT_HEURISTIC


def changed_old_lines(repo: pygit2.Repository, parent: str, child: str) -> dict[str, set[int]]:
    """Return, per old path, the old-side lines the commit changes (insertions mark their neighbours)."""
    diff = repo.diff(repo.revparse_single(parent), repo.revparse_single(child), context_lines=0, flags=_FLAGS)
    diff.find_similar()
    found: dict[str, set[int]] = {}
    for patch in diff:
        if patch is None or patch.delta.is_binary:
            continue
        lines = found.setdefault(patch.delta.old_file.path, set())
        for hunk in patch.hunks:
            if hunk.old_lines:
                lines.update(range(hunk.old_start, hunk.old_start + hunk.old_lines))
            else:
                lines.update((hunk.old_start, hunk.old_start + 1))
    return found


def check_case(repo: pygit2.Repository, case: dict[str, Any]) -> tuple[int, list[str]]:
    """Return how many functions the case records and why each failing one fails."""
    changed = changed_old_lines(repo, case["base_commit"], case["commit_hash"])
    tree = repo.revparse_single(case["base_commit"]).peel(pygit2.Commit).tree
    failures = []
    for name in case["ground_truth_functions"]:
        path, _, qualname = name.partition(":")
        if path not in tree:
            failures.append(f"{case['id']}: {name}: {path} is not in the parent")
            continue
        data = repo[tree[path].id].peel(pygit2.Blob).data
        spans = [(d.start, d.end) for d in outline(path, data).definitions if d.qualname == qualname]
        if not spans:
            failures.append(f"{case['id']}: {name}: no such definition at the parent")
        elif not any(start <= line <= end for start, end in spans for line in changed.get(path, ())):
            failures.append(f"{case['id']}: {name}: holds no changed old-side line")
    return len(case["ground_truth_functions"]), failures


def main() -> None:
    """Sample the cases, check them, print the counts and the failures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repository", type=Path)
    parser.add_argument("goldset", type=Path)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    repo = pygit2.Repository(str(args.repository))
    with args.goldset.open(encoding="utf-8") as lines:
        cases = [case for case in map(json.loads, lines) if case.get("ground_truth_functions")]
    sample = random.Random(args.seed).sample(cases, min(args.sample, len(cases)))
    checked, failures = 0, []
    for case in sample:
        count, failed = check_case(repo, case)
        checked += count
        failures += failed
    print(f"{len(cases):,} kept commits record functions; checked {len(sample)} of them (seed {args.seed}): "
          f"{checked:,} functions, {checked - len(failures):,} exist at the parent in their file and hold a "
          f"changed old-side line, {len(failures)} do not")  # fmt: skip
    for failure in failures:
        print("  " + failure)


if __name__ == "__main__":
    main()
