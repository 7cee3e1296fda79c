"""The mining entry point: walk a history, keep the commits that make answerable cases, stream them out.

``generate_goldset`` opens the repository, judges every commit of the walk (``miner.Miner``), writes each
case as it is found, newest commit first, and publishes the gold set with its metadata in one step. Long
histories are shared between two processes (``parallel.py``) when no query transform is installed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import pygit2

from pytest_codesearch.goldset.model import GoldSetMetadata
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.miner import SHORT_HASH, Counts, MinedCommit, Miner, Transform
from pytest_codesearch.mining.objects import fast_reads
from pytest_codesearch.mining.output import GoldsetWriter
from pytest_codesearch.mining.progress import ProgressEvent, Reporter
from pytest_codesearch.mining.walk import (
    MiningError,
    bounded_cache,
    has_origin_name,
    open_repository,
    origin_name,
    repository_name,
    resolve_commit,
)

__all__ = [
    "MinedCommit",
    "MiningError",
    "MiningStats",
    "ProgressEvent",
    "Transform",
    "format_stats",
    "generate_goldset",
]


SHOWN_EXTENSIONS = 8
"""Extensions without outline the summary names (the most frequent); the rest share one row."""


@dataclass(frozen=True)
class MiningStats:
    """What a mining run did: commits examined, cases kept, and counts by reason."""

    walked: int
    """Commits examined (inside since/until, at most max_commits)."""
    kept: int
    dropped: dict[str, int]
    """Commits examined but not kept, by the first reason that applied, most frequent first."""
    excluded_files: dict[str, int]
    """Changed files of examined commits left out of the ground truth, by reason."""
    elapsed_s: float
    output: Path
    head: str
    """Full id of the commit the walk started from."""
    outside_window: int = 0
    """Commits skipped without being examined because they fall outside since/until."""
    rename_limit_hits: int = 0
    """Commits with more rename candidates than ``rename_limit`` (some renames may be listed as additions)."""
    repaired_messages: int = 0
    """Messages not valid in their encoding, decoded with replacement characters."""
    hook_failures: int = 0
    """Queries the transform hook failed to rewrite (the rule-based query was kept)."""
    workers: int = 1
    outlined_files: dict[str, int] = field(default_factory=dict)
    """Changed files of kept commits whose functions were found, by language (with lines only)."""
    outline_s: dict[str, float] = field(default_factory=dict)
    """Seconds spent finding them, by language (summed over workers)."""
    unoutlined_files: dict[str, int] = field(default_factory=dict)
    """Changed files of kept commits of no supported language, by extension (``""``: none)."""
    notes: list[str] = field(default_factory=list)
    """What the user should know about the gold set written (ids from a folder's name, a repository map)."""
    repo: str | None = None
    """How the cases name the repository (``owner/name``, a URL, a relative path); None: the set lives in it."""


def generate_goldset(
    repo_path: Path,
    output: Path,
    config: FilterConfig,
    *,
    rev: str = "HEAD",
    transform: Transform | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
    workers: int | None = None,
    name: str | None = None,
    lines: bool = True,
) -> MiningStats:
    """Mine the history reachable from ``rev`` into the gold set ``output``; return what was done.

    ``transform(query, commit)`` may rewrite each rule-based query (None keeps it; an exception keeps it
    too, and ``query_source`` records the failure). ``progress`` is called about twice a second and once
    at the end with ``done=True``. ``workers`` is the number of processes (default: 2 where the machine
    has two cores; always 1 with a transform, which stays in this process). ``name`` starts every case
    id (``<name>-<12 hex digits>``) and names the gold set; by default it is the repository's own name
    (its ``origin`` remote's, else its directory's), so a commit gets the same id in every clone. With
    ``lines``, each case records the line ranges, functions and modules its commit changes. Raises
    ``MiningError`` for a repository, revision or output that cannot be used.
    """
    reporter = Reporter(progress)
    repo_path = Path(repo_path).absolute()
    repo = open_repository(repo_path)
    head = resolve_commit(repo, rev)
    output = Path(output).absolute()
    case_repo = _case_repo(repo, repo_path, output)
    notes = _naming_notes(repo, name, repository_name(repo, repo_path))
    name = repository_name(repo, repo_path) if name is None else name
    count = _worker_count(workers, transform)
    with GoldsetWriter(output) as writer, bounded_cache(), fast_reads():
        if count > 1:
            from pytest_codesearch.mining.parallel import mine_in_processes

            counts = mine_in_processes(
                repo_path, str(head.id), config, case_repo, name, count, writer, reporter, lines=lines
            )
        else:
            if progress is not None:  # one walk more for the total: what the parallel plan also counts
                reporter.total = sum(1 for _ in Miner(repo, config, None, case_repo, name, False).commits(head))
            counts = _mine(Miner(repo, config, transform, case_repo, name, lines), head, writer, reporter)
        stats = replace(_stats(counts, output, str(head.id), reporter.elapsed(), count), notes=notes, repo=case_repo)
        writer.publish(_metadata(name, rev, head, config, stats))
    reporter.finish(counts.walked, counts.kept)
    return stats


def _mine(miner: Miner, head: pygit2.Commit, writer: GoldsetWriter, reporter: Reporter) -> Counts:
    """Examine the walk in this process, writing each new case; return the counts."""
    seen: set[int] = set()
    for _, commit in miner.commits(head):
        case = miner.examine_new(commit, seen)
        if case is not None:
            writer.add(case.line)
        reporter.tick(miner.counts.walked, miner.counts.kept)
    return miner.counts


def _worker_count(workers: int | None, transform: Transform | None) -> int:
    """Return how many processes mine: one with a transform, else as asked, else two when there are two cores."""
    if workers is not None and workers < 1:
        raise MiningError(f"workers must be at least 1, got {workers}")
    if transform is not None:  # a hook (an LLM client, say) may not survive a fork: keep it in this process
        return 1
    return workers if workers is not None else min(2, os.cpu_count() or 1)


def _case_repo(repo: pygit2.Repository, given: Path, output: Path) -> str | None:
    """Return the ``repo`` each case names: None when the gold set lives inside the mined repository, else
    its ``origin`` remote's portable name (``owner/name``, a URL: the same on every machine), else its path
    relative to the gold set.

    The path is the one the user gave (a work tree's ``.git`` folder stands for the work tree), not what
    libgit2 infers: a bare repository without a ``config`` file is opened as if its parent were the work
    tree (issue 8, defect 6).
    """
    root = given.resolve()
    if root.name == ".git" and repo.workdir is not None:
        root = root.parent
    folder = output.parent.resolve()
    if folder == root or root in folder.parents:
        return None
    portable = origin_name(repo)
    if portable is not None:
        return portable
    try:
        return Path(os.path.relpath(root, folder)).as_posix()
    except ValueError:  # another drive on Windows
        return root.as_posix()


def _naming_notes(repo: pygit2.Repository, given: str | None, found: str) -> list[str]:
    """Return a warning when case ids can only come from the repository folder's name."""
    if given is not None or has_origin_name(repo):
        return []
    return [f"warning: case ids start with {found!r}, the repository folder's name (it has no origin remote); "
            "give --codesearch-name NAME for ids that are the same in every clone"]


def _stats(counts: Counts, output: Path, head: str, elapsed: float, workers: int) -> MiningStats:
    return MiningStats(
        walked=counts.walked,
        kept=counts.kept,
        dropped=dict(counts.dropped.most_common()),
        excluded_files=dict(counts.excluded_files.most_common()),
        elapsed_s=elapsed,
        output=output,
        head=head,
        outside_window=counts.outside_window,
        rename_limit_hits=counts.rename_limit_hits,
        repaired_messages=counts.repaired_messages,
        hook_failures=counts.hook_failures,
        workers=workers,
        outlined_files=dict(counts.outlined_files.most_common()),
        outline_s=dict(counts.outline_s),
        unoutlined_files=dict(counts.unoutlined_files.most_common()),
    )


def _metadata(name: str, rev: str, head: pygit2.Commit, config: FilterConfig, stats: MiningStats) -> GoldSetMetadata:
    from pytest_codesearch import __version__

    counts = {
        "walked": stats.walked,
        "kept": stats.kept,
        "dropped": stats.dropped,
        "excluded_files": stats.excluded_files,
        "outside_window": stats.outside_window,
        "rename_limit_hits": stats.rename_limit_hits,
        "repaired_messages": stats.repaired_messages,
        "hook_failures": stats.hook_failures,
    }
    return GoldSetMetadata.model_validate(
        {
            "name": name,
            "description": f"Cases mined from the git history of {name} ({rev} = {str(head.id)[:SHORT_HASH]})",
            "repository": name,
            "rev": rev,
            "head": str(head.id),
            "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "generator": f"pytest-codesearch {__version__}",
            "config": config.model_dump(mode="json"),
            "counts": counts,
        }
    )


def format_stats(stats: MiningStats) -> str:
    """Return the end-of-run table: commits examined, kept, dropped by reason, files left out by reason."""
    rows: list[tuple[str, int]] = [("commits examined", stats.walked), ("kept (cases written)", stats.kept)]
    rows += [(f"dropped: {reason}", count) for reason, count in stats.dropped.items()]
    rows += [(f"file left out: {reason}", count) for reason, count in stats.excluded_files.items()]
    extras = (
        ("outside since/until (not examined)", stats.outside_window),
        ("rename limit reached", stats.rename_limit_hits),
        ("messages decoded with replacement", stats.repaired_messages),
        ("query hook failures (rules query kept)", stats.hook_failures),
    )
    rows += [(label, count) for label, count in extras if count]
    rows += [(f"functions from {language} files ({stats.outline_s.get(language, 0.0):.2f} s)", count)
             for language, count in stats.outlined_files.items()]  # fmt: skip
    extensions = list(stats.unoutlined_files.items())
    rows += [(f"no functions (no outline): {extension or 'no extension'} files", count)
             for extension, count in extensions[:SHOWN_EXTENSIONS]]  # fmt: skip
    if len(extensions) > SHOWN_EXTENSIONS:
        others = extensions[SHOWN_EXTENSIONS:]
        rows.append((f"no functions (no outline): {len(others)} other extensions", sum(n for _, n in others)))
    width = max(len(label) for label, _ in rows)
    digits = max(len(f"{count:,}") for _, count in rows)
    rate = stats.walked / stats.elapsed_s if stats.elapsed_s > 0 else 0.0
    head = f"mined {stats.output} in {stats.elapsed_s:.1f} s ({rate:,.0f} commits/s)"
    return "\n".join([head, *(f"  {label:<{width}}  {count:>{digits},}" for label, count in rows)])
