"""Judge one commit at a time: the case it makes, or the first reason it makes none.

Each commit meets the cheapest test first (merge, root, shallow boundary, bot, message rules) and is diffed
only after those; ``docs/mining.md`` lists the reasons in this order. De-duplication is left to the caller,
which sees the cases in walk order (one process or several).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pygit2

from pytest_codesearch.goldset.leaks import find_leak
from pytest_codesearch.goldset.writer import case_fields_line
from pytest_codesearch.mining.classify import RuleSet, bot_matcher, classify_kind, complexity
from pytest_codesearch.mining.filters import FilterConfig
from pytest_codesearch.mining.files import CommitFiles, FileSorter
from pytest_codesearch.mining.objects import ObjectReader
from pytest_codesearch.mining.outlines import Outlines
from pytest_codesearch.mining.sitter import TreeOutlines
from pytest_codesearch.mining.spans import BlobDiffer, ChangedCode, changed_code
from pytest_codesearch.mining.query import decode_message, paragraphs_of, query_from_parts, split_subject, word_count
from pytest_codesearch.mining.treediff import TreeDiffer
from pytest_codesearch.mining.walk import MiningError, shallow_boundary, walk

SHORT_HASH = 12
"""Hex digits of the commit id in a case id: fixed, so ids stay stable as the repository grows."""
SHORT_SUBJECT_WORDS = 4
"""A subject with fewer words gets the first sentence of the body added to its query."""
DUPLICATE = "duplicate (same query and files)"
MERGE = "merge commit"
DROP_REASONS = (
    MERGE,
    "shallow boundary",
    "root commit",
    "bot author",
    "message: <rule>",
    "missing objects",
    "no changes",
    "only added files",
    "only excluded files",
    "too few files",
    "too many files",
    "query too short",
    "leaky query",
    "whitespace-only",
    DUPLICATE,
)
"""Why a commit makes no case, in the order the tests are made ("message: <rule>" names the rule)."""
AUTHOR_CACHE_SIZE = 1024
"""Authors (raw name and email) whose decoded name and bot verdict are remembered."""


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
class Candidate:
    """A case found, as its JSON line, with the key that identifies its (query, ground truth) pair."""

    line: str
    key: int


@dataclass
class Counts:
    """The counters of a run (or of one worker's share of it); ``merge`` adds another's."""

    walked: int = 0
    kept: int = 0
    outside_window: int = 0
    repaired_messages: int = 0
    hook_failures: int = 0
    rename_limit_hits: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    excluded_files: Counter[str] = field(default_factory=Counter)
    outlined_files: Counter[str] = field(default_factory=Counter)
    """Changed files of kept commits whose functions were found, by language."""
    unoutlined_files: Counter[str] = field(default_factory=Counter)
    """Changed files of kept commits no outline reads (file and line level only), by extension."""
    outline_s: dict[str, float] = field(default_factory=dict)
    """Seconds spent outlining, by language."""

    def merge(self, other: Counts) -> None:
        """Add ``other``'s counts to these."""
        for name in ("walked", "kept", "outside_window", "repaired_messages", "hook_failures", "rename_limit_hits"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.dropped.update(other.dropped)
        self.excluded_files.update(other.excluded_files)
        self.add_outlines(other.outlined_files, other.unoutlined_files, other.outline_s)

    def add_outlines(self, outlined: Mapping[str, int], unoutlined: Iterable[str], seconds: Mapping[str, float]) -> None:
        """Count files outlined (by language), files not outlined (by extension) and outlining time."""
        self.outlined_files.update(outlined)
        self.unoutlined_files.update(unoutlined)
        for language, spent in seconds.items():
            self.outline_s[language] = self.outline_s.get(language, 0.0) + spent


def case_key(query: str, ground_truth: tuple[str, ...]) -> int:
    """Return a 64-bit digest of (query, ground truth), the same in every process (``hash`` is not).

    The de-duplication set holds one per case kept, about 50 bytes each: the only memory that grows
    with the history.
    """
    digest = hashlib.blake2b("\0".join((query, *ground_truth)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def id_prefix(name: str) -> str:
    """Return a repository name made safe for a case id: whitespace, brackets and ':' become '-'."""
    cleaned = "".join("-" if char.isspace() or char in "[]:" or not char.isprintable() else char for char in name)
    return cleaned.strip("-") or "repo"


class Miner:
    """Judges the commits of one repository under one ``FilterConfig``, counting every outcome."""

    def __init__(
        self,
        repo: pygit2.Repository,
        config: FilterConfig,
        transform: Transform | None,
        case_repo: str | None,
        name: str,
        lines: bool = True,
    ) -> None:
        self.repo = repo
        self.lines = lines
        """Record each case's changed lines, functions and modules (``spans.py``)."""
        self.config = config
        self.transform = transform
        self.case_repo = case_repo
        self.prefix = id_prefix(name)
        """Case ids are ``<prefix>-<12 hex digits>``: the same for a commit in any clone of the repository."""
        self.rules = RuleSet(config.drop_rules)
        self.is_bot = bot_matcher(config.bot_authors)
        self.shallow = shallow_boundary(repo)
        self.counts = Counts()
        self.ahead: dict[bytes, tuple[Candidate | str, Counts]] = {}
        """Outcomes judged before the walk reached their commits (``judge_ahead``), by raw commit id."""
        self._authors: dict[tuple[bytes, bytes], tuple[str, str, bool]] = {}
        objects = ObjectReader(repo)
        self.files = FileSorter(repo, config, TreeDiffer(repo, objects), self.counts.excluded_files, objects)
        self.diff = BlobDiffer(repo, self.files.blobs.read)
        self.outlines = Outlines(self.files.blobs.read, self.diff)
        self.trees = TreeOutlines(self.files.blobs.read, self.diff)

    def commits(self, head: pygit2.Commit) -> Iterator[tuple[int, pygit2.Commit]]:
        """Yield (position, commit) for the commits to examine: in the since/until window, at most max_commits."""
        limit, position = self.config.max_commits, 0
        try:
            for commit, in_window in walk(self.repo, head, self.config.since, self.config.until):
                if not in_window:
                    self.counts.outside_window += 1
                    continue
                if limit is not None and position >= limit:
                    return
                yield position, commit
                position += 1
        except (KeyError, pygit2.GitError) as exc:
            raise MiningError(f"cannot read the history: {exc} (is the repository complete? try git fsck)") from None

    def examine(self, commit: pygit2.Commit) -> Candidate | str:
        """Return the candidate case ``commit`` makes, or the reason it makes none; counts either way.

        A commit judged ahead (``judge_ahead``) is not judged again: its outcome and counts are taken.
        """
        if self.ahead:
            found = self.ahead.pop(commit.id.raw, None)
            if found is not None:
                self.counts.merge(found[1])
                return found[0]
        self.counts.walked += 1
        outcome = self._judge(commit)
        if isinstance(outcome, str):
            self.counts.dropped[outcome] += 1
        else:
            self.counts.kept += 1
        return outcome

    def judge_ahead(self, commit: pygit2.Commit) -> None:
        """Judge ``commit`` before the walk reaches it, keeping its outcome and its counts apart (``ahead``).

        ``examine`` takes them when the walk meets the commit; a commit it never meets (outside the
        window, or another process's) counts nothing. The outcome is the same whenever it is judged:
        what the miner keeps between commits are caches.
        """
        counts, self.counts = self.counts, Counts()
        self.files.excluded = self.counts.excluded_files
        try:
            outcome = self.examine(commit)
        finally:
            apart, self.counts = self.counts, counts
            self.files.excluded = counts.excluded_files
        self.ahead[commit.id.raw] = (outcome, apart)

    def examine_new(self, commit: pygit2.Commit, seen: set[int]) -> Candidate | None:
        """Return the case ``commit`` makes unless it makes none or repeats one in ``seen`` (then counted
        as a duplicate, e.g. a cherry-pick); a new case's key is added to ``seen``."""
        outcome = self.examine(commit)
        if isinstance(outcome, str):
            return None
        if outcome.key in seen:
            self.drop_duplicate()
            return None
        seen.add(outcome.key)
        return outcome

    def drop_merge(self, commit: pygit2.Commit) -> bool:
        """Count ``commit`` examined and dropped when it is a merge this mining drops, as ``examine`` would, and
        return whether it was: the walk that lists the commits for several processes leaves those out
        (``parallel._list_commits``), so no process looks them up."""
        if not self._dropped_merge(commit.parent_ids):
            return False
        self.counts.walked += 1
        self.counts.dropped[MERGE] += 1
        return True

    def _dropped_merge(self, parents: Sequence[pygit2.Oid]) -> bool:
        """Return whether a commit of ``parents`` is a merge this mining drops (the first rule it applies)."""
        return len(parents) > 1 and not self.config.include_merges

    def drop_duplicate(self) -> None:
        """Move one kept candidate to the duplicates, once the caller found its key already written."""
        self.counts.kept -= 1
        self.counts.dropped[DUPLICATE] += 1

    def _judge(self, commit: pygit2.Commit) -> Candidate | str:
        parents = commit.parent_ids
        if self._dropped_merge(parents):
            return MERGE
        if not parents:
            return "shallow boundary" if str(commit.id) in self.shallow else "root commit"
        name, email, is_bot = self._author(commit.author)
        if is_bot:
            return "bot author"
        message, clean = decode_message(commit.raw_message, commit.message_encoding)
        self.counts.repaired_messages += not clean
        subject, body = split_subject(message)
        rule = self.rules.first_match(subject, message)
        if rule is not None:
            return f"message: {rule}"
        limited = self.files.rename_limit_hits  # counted by commit, so that a commit judged ahead counts apart
        try:
            parent_tree = self.repo[parents[0]].peel(pygit2.Commit).tree_id.raw
            files = self.files.sort(parent_tree, commit.tree_id.raw)
        except (KeyError, ValueError, pygit2.GitError):
            return "missing objects"
        finally:
            self.counts.rename_limit_hits += self.files.rename_limit_hits - limited
        if isinstance(files, str):
            return files
        mined = self._mined(commit, str(parents[0]), message, subject, (name, email), files)
        return self._candidate(mined, paragraphs_of(body), files)  # the body is read only if the query needs it

    def _author(self, author: pygit2.Signature) -> tuple[str, str, bool]:
        """Return the author's name, email and whether they are a bot; cached, as a history has few authors."""
        key = (author.raw_name, author.raw_email)
        found = self._authors.get(key)
        if found is None:
            name, email = _text(key[0]), _text(key[1])
            found = (name, email, self.is_bot(f"{name} <{email}>"))
            if len(self._authors) >= AUTHOR_CACHE_SIZE:
                self._authors.clear()
            self._authors[key] = found
        return found

    def _mined(
        self, commit: pygit2.Commit, parent: str, message: str, subject: str, who: tuple[str, str], files: CommitFiles
    ) -> MinedCommit:
        category, rule = classify_kind(subject)
        return MinedCommit(
            commit_id=str(commit.id),
            parent_id=parent,
            message=message,
            subject=subject,
            author_name=who[0],
            author_email=who[1],
            timestamp=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(commit.commit_time)),
            ground_truth=files.ground_truth,
            added_files=files.added,
            complexity=complexity(len(files.ground_truth)),
            category=category,
            rule=rule,
        )

    def _candidate(self, mined: MinedCommit, paragraphs: Iterable[str], files: CommitFiles) -> Candidate | str:
        """Return the case, after the query rules and then the ones that read file contents."""
        query, source = self._query(mined, paragraphs)
        if word_count(query) < self.config.min_query_words:
            return "query too short"
        leaky = find_leak(query, mined.ground_truth) is not None
        if leaky and not self.config.keep_leaky:
            return "leaky query"
        try:
            if self.files.formatting_only(files):
                return "whitespace-only"
            code = changed_code(files.scored, self.files.blobs.read, self.diff, self.outlines, self.trees) if self.lines else None
        except (KeyError, ValueError, pygit2.GitError):
            return "missing objects"
        if code is not None:
            self.counts.add_outlines(code.outlined, code.unoutlined, code.outline_s)
        line = case_fields_line(self.case_fields(mined, query, source, leaky, code))
        return Candidate(line, case_key(query, mined.ground_truth))

    def _query(self, mined: MinedCommit, paragraphs: Iterable[str]) -> tuple[str, str]:
        """Return the query and its source: the rules' query, or the transform's when it gives one."""
        words = max(self.config.min_query_words, SHORT_SUBJECT_WORDS)
        query = query_from_parts(mined.subject, paragraphs, min_words=words)  # = message_to_query(mined.message)
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
            return query, f"rules (hook failed: returned {repr(rewritten)[:100]})"
        return " ".join(rewritten.split()), "hook"

    def case_fields(
        self, mined: MinedCommit, query: str, source: str, leaky: bool, code: ChangedCode | None = None
    ) -> dict[str, Any]:
        """Return the case's fields in JSON form, for the gold-set writer (``writer.case_fields_line``).

        They are not validated again: every value is valid by construction (paths passed
        ``decode_path``, the query has words, ids are hex), and validation would cost a fifth of the
        time of a kept commit; the tests check each line against ``TestCase``.
        """
        lines = code.lines if code is not None else {}
        truth = [{"path": path, "lines": [list(span) for span in lines.get(path, ())]} for path in mined.ground_truth]
        return {
            "id": f"{self.prefix}-{mined.commit_id[:SHORT_HASH]}",
            "query": query,
            "ground_truth_files": truth,
            "repo": self.case_repo,
            "base_commit": mined.parent_id,
            "commit_hash": mined.commit_id,
            "complexity": mined.complexity,
            "category": mined.category,
            "timestamp": mined.timestamp,
            "added_files": list(mined.added_files),
            "query_source": source,
            "leaky": leaky,
            "rule": mined.rule,
            "commit_message": mined.message,
            "ground_truth_functions": list(code.functions) if code is not None else [],
            "ground_truth_modules": list(code.modules) if code is not None else [],
        }


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
