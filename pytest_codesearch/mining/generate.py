"""The mining pipeline: walk a history, keep the commits that make answerable cases, stream them to a file.

Each commit is judged by the cheapest test first (merge, root, shallow boundary, bot, message rules), and
only then diffed; a dropped commit is counted under the first reason that applies (``docs/mining.md``
lists them in that order). Cases are written as they are found, newest commit first.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pygit2

from pytest_codesearch.goldset.model import GoldSetMetadata, TestCase
from pytest_codesearch.mining.classify import RuleSet, bot_matcher, classify_kind, complexity
from pytest_codesearch.mining.config import FilterConfig
from pytest_codesearch.mining.files import CommitFiles, FileSorter
from pytest_codesearch.mining.output import GoldsetWriter
from pytest_codesearch.mining.query import decode_message, leaked_path, message_to_query, split_message, word_count
from pytest_codesearch.mining.walk import (
    MiningError,
    TreeDiffer,
    open_repository,
    repository_name,
    repository_path,
    resolve_commit,
    shallow_boundary,
    walk,
)

__all__ = ["MinedCommit", "MiningError", "MiningStats", "ProgressEvent", "Transform", "generate_goldset"]

SHORT_HASH = 12
"""Hex digits of the commit id in a case id: fixed, so ids stay stable as the repository grows."""
PROGRESS_INTERVAL_S = 0.5


@dataclass(frozen=True)
class MinedCommit:
    """What a query transformer may look at: the commit, its message and its files."""

    commit_id: str
    parent_id: str
    message: str
    subject: str
    author_name: str
    author_email: str
    timestamp: str
    ground_truth: tuple[str, ...]
    added_files: tuple[str, ...]
    complexity: str
    category: str
    rule: str


Transform = Callable[[str, MinedCommit], "str | None"]


@dataclass(frozen=True)
class ProgressEvent:
    """Where a mining run is: commits examined, cases kept, commits dropped, time spent."""

    walked: int
    kept: int
    dropped: int
    elapsed_s: float
    done: bool = False

    @property
    def rate(self) -> float:
        """Return commits examined per second (0.0 before any time has passed)."""
        return self.walked / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass(frozen=True)
class MiningStats:
    """What a mining run did: commits examined, cases kept, and counts by reason."""

    walked: int
    kept: int
    dropped: dict[str, int]
    """Commits examined but not kept, by the first reason that applied."""
    excluded_files: dict[str, int]
    """Changed files of examined commits left out of the ground truth, by reason."""
    elapsed_s: float
    output: Path
    head: str
    """Full id of the commit the walk started from."""
    outside_window: int = 0
    """Commits skipped (not examined) because they fall outside since/until."""
    rename_limit_hits: int = 0
    repaired_messages: int = 0
    """Messages that were not valid in their encoding and were decoded with replacement characters."""
    hook_failures: int = 0


@dataclass
class _Counts:
    walked: int = 0
    kept: int = 0
    outside_window: int = 0
    repaired_messages: int = 0
    hook_failures: int = 0
    dropped: Counter[str] = field(default_factory=Counter)


def generate_goldset(
    repo_path: Path,
    output: Path,
    config: FilterConfig,
    *,
    rev: str = "HEAD",
    transform: Transform | None = None,
    progress: Callable[[ProgressEvent], None] | None = None,
) -> MiningStats:
    """Mine the history reachable from ``rev`` into the gold set ``output``; return what was done.

    ``transform(query, commit)`` may rewrite each rule-based query (None keeps it; an exception keeps it
    too, and ``query_source`` records the failure). ``progress`` is called about twice a second and once
    at the end. Raises ``MiningError`` for a repository, revision or output that cannot be used.
    """
    started = time.perf_counter()
    repo = open_repository(Path(repo_path).absolute())
    head = resolve_commit(repo, rev)
    output = Path(output).absolute()
    miner = _Miner(repo, config, transform, _case_repo(repo, output))
    with GoldsetWriter(output) as writer:
        last = miner.run(head, writer, progress, started)
        stats = miner.stats(output, str(head.id), time.perf_counter() - started)
        writer.publish(_metadata(repo, rev, head, config, stats))
    if progress is not None:
        progress(ProgressEvent(last.walked, last.kept, last.dropped, stats.elapsed_s, done=True))
    return stats


def _case_repo(repo: pygit2.Repository, output: Path) -> str | None:
    """Return the ``repo`` each case names: None when the gold set lives inside the mined repository."""
    root = repository_path(repo)
    folder = output.parent.resolve()
    if folder == root or root in folder.parents:
        return None
    try:
        return Path(os.path.relpath(root, folder)).as_posix()
    except ValueError:  # another drive on Windows
        return root.as_posix()


def _metadata(repo: pygit2.Repository, rev: str, head: pygit2.Commit, config: FilterConfig, stats: MiningStats) -> GoldSetMetadata:
    from pytest_codesearch import __version__

    name = repository_name(repo)
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
            "counts": {
                "walked": stats.walked,
                "kept": stats.kept,
                "dropped": stats.dropped,
                "excluded_files": stats.excluded_files,
                "outside_window": stats.outside_window,
                "rename_limit_hits": stats.rename_limit_hits,
                "repaired_messages": stats.repaired_messages,
                "hook_failures": stats.hook_failures,
            },
        }
    )


class _Miner:
    """Judges commits one at a time; holds the counters and the de-duplication set of one run."""

    def __init__(
        self, repo: pygit2.Repository, config: FilterConfig, transform: Transform | None, case_repo: str | None
    ) -> None:
        self.repo = repo
        self.config = config
        self.transform = transform
        self.case_repo = case_repo
        self.prefix = _id_prefix(repository_name(repo))
        self.rules = RuleSet(config.drop_rules)
        self.is_bot = bot_matcher(config.bot_authors)
        self.shallow = shallow_boundary(repo)
        self.files = FileSorter(repo, config, TreeDiffer(repo))
        self.counts = _Counts()
        self.seen: set[int] = set()

    def run(
        self,
        head: pygit2.Commit,
        writer: GoldsetWriter,
        progress: Callable[[ProgressEvent], None] | None,
        started: float,
    ) -> ProgressEvent:
        """Examine the commits of the walk, writing each case kept; return the last progress figures."""
        counts, limit = self.counts, self.config.max_commits
        next_report = started + PROGRESS_INTERVAL_S
        for commit, in_window in _guarded(walk(self.repo, head, self.config.since, self.config.until)):
            if not in_window:
                counts.outside_window += 1
                continue
            if limit is not None and counts.walked >= limit:
                break
            counts.walked += 1
            outcome = self.examine(commit)
            if isinstance(outcome, str):
                counts.dropped[outcome] += 1
            else:
                counts.kept += 1
                writer.add(outcome)
            if progress is not None and counts.walked % 64 == 0 and time.perf_counter() >= next_report:
                next_report = time.perf_counter() + PROGRESS_INTERVAL_S
                progress(self.progress(started))
        return self.progress(started)

    def progress(self, started: float) -> ProgressEvent:
        """Return the figures so far."""
        counts = self.counts
        return ProgressEvent(counts.walked, counts.kept, counts.walked - counts.kept, time.perf_counter() - started)

    def examine(self, commit: pygit2.Commit) -> TestCase | str:
        """Return the case ``commit`` makes, or the reason it makes none."""
        parents = commit.parent_ids
        if len(parents) > 1 and not self.config.include_merges:
            return "merge commit"
        if not parents:
            return "shallow boundary" if str(commit.id) in self.shallow else "root commit"
        author = commit.author
        if self.is_bot(f"{_text(author.raw_name)} <{_text(author.raw_email)}>"):
            return "bot author"
        message, clean = decode_message(commit.raw_message, commit.message_encoding)
        self.counts.repaired_messages += not clean
        subject = split_message(message)[0]
        rule = self.rules.first_match(subject, message)
        if rule is not None:
            return f"message: {rule}"
        try:
            parent_tree = self.repo[parents[0]].peel(pygit2.Commit).tree_id.raw
            files = self.files.sort(parent_tree, commit.tree_id.raw)
        except (KeyError, ValueError, pygit2.GitError):
            return "missing objects"
        if isinstance(files, str):
            return files
        return self._case(commit, str(parents[0]), message, subject, files)

    def _case(self, commit: pygit2.Commit, parent: str, message: str, subject: str, files: CommitFiles) -> TestCase | str:
        category, rule = classify_kind(subject)
        mined = MinedCommit(
            commit_id=str(commit.id),
            parent_id=parent,
            message=message,
            subject=subject,
            author_name=_text(commit.author.raw_name),
            author_email=_text(commit.author.raw_email),
            timestamp=datetime.fromtimestamp(commit.commit_time, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            ground_truth=files.ground_truth,
            added_files=files.added,
            complexity=complexity(len(files.ground_truth)),
            category=category,
            rule=rule,
        )
        query, source = self._query(message, mined)
        if word_count(query) < self.config.min_query_words:
            return "query too short"
        leaky = leaked_path(query, files.ground_truth) is not None
        if leaky and not self.config.keep_leaky:
            return "leaky query"
        key = hash((query, files.ground_truth))
        if key in self.seen:
            return "duplicate (same query and files)"
        self.seen.add(key)
        return self._build(mined, query, source, leaky)

    def _query(self, message: str, mined: MinedCommit) -> tuple[str, str]:
        """Return the query and its source: the rules' query, or the transform's when it gives one."""
        query = message_to_query(message, min_words=max(self.config.min_query_words, 4))
        if self.transform is None:
            return query, "rules"
        try:
            rewritten = self.transform(query, mined)
        except Exception as exc:  # a plugin's bug must not end the run: keep the rules' query, say why
            self.counts.hook_failures += 1
            return query, f"rules (hook failed: {_one_line(f'{type(exc).__name__}: {exc}')})"
        if rewritten is None:
            return query, "rules"
        if not isinstance(rewritten, str) or not rewritten.strip():
            self.counts.hook_failures += 1
            return query, f"rules (hook failed: returned {_one_line(repr(rewritten))})"
        return " ".join(rewritten.split()), "hook"

    def _build(self, mined: MinedCommit, query: str, source: str, leaky: bool) -> TestCase:
        return TestCase(
            id=f"{self.prefix}-{mined.commit_id[:SHORT_HASH]}",
            query=query,
            ground_truth_files=list(mined.ground_truth),  # type: ignore[arg-type]  # validated as paths
            repo=self.case_repo,
            base_commit=mined.parent_id,
            commit_hash=mined.commit_id,
            complexity=mined.complexity,
            category=mined.category,
            timestamp=mined.timestamp,
            added_files=list(mined.added_files),
            query_source=source,
            leaky=leaky,
            rule=mined.rule,
            commit_message=mined.message,
        )

    def stats(self, output: Path, head: str, elapsed: float) -> MiningStats:
        """Return the run's figures."""
        counts = self.counts
        return MiningStats(
            walked=counts.walked,
            kept=counts.kept,
            dropped=dict(counts.dropped.most_common()),
            excluded_files=dict(self.files.excluded.most_common()),
            elapsed_s=elapsed,
            output=output,
            head=head,
            outside_window=counts.outside_window,
            rename_limit_hits=self.files.rename_limit_hits,
            repaired_messages=counts.repaired_messages,
            hook_failures=counts.hook_failures,
        )


def _guarded(commits: Iterator[tuple[pygit2.Commit, bool]]) -> Iterator[tuple[pygit2.Commit, bool]]:
    """Yield from the walk, turning a history libgit2 cannot read into a ``MiningError``."""
    try:
        yield from commits
    except (KeyError, pygit2.GitError) as exc:
        raise MiningError(f"cannot read the history: {exc} (is the repository complete? try git fsck)") from None


def _id_prefix(name: str) -> str:
    """Return ``name`` made safe for a case id: whitespace, brackets and ':' become '-'."""
    cleaned = "".join("-" if char.isspace() or char in "[]:" or not char.isprintable() else char for char in name)
    return cleaned.strip("-") or "repo"


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
