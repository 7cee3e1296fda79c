"""FQN retrieval sets: JSONL queries whose positive and negative contexts are fully qualified Python names.

Each line is one query::

    {"id": "parallel", "query": "Which class runs agents concurrently?",
     "positive_ctxs": [{"fqn": "adk.agents.ParallelAgent", "rank_relevance": 1}],
     "negative_ctxs": [{"fqn": "adk.agents.SequentialAgent", "is_hard_negative": true}],
     "metadata": {"difficulty": "medium", "required_concepts": ["agents"]}}

The first line may be ``{"metadata": {"repo": ..., "base_commit": ...}}`` (as in native JSONL) naming
the tree the names live in; without it, the git repository holding the file as it is on disk. Every
name is resolved against that tree (``goldset/fqnames.py``). The ground truth is the files of the
positive names, each carrying the names as symbols in both spellings (``adk.agents.ParallelAgent`` and
``adk/agents/parallel.py:ParallelAgent``), graded so that ``rank_relevance`` 1 is the most relevant;
hard negatives become the case's ``hard_negatives``. Other negatives and ``text`` are not scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
from pydantic import ValidationError

from pytest_codesearch.goldsniff import sniff_fqn
from pytest_codesearch.repo.resolve import default_repo
from pytest_codesearch.repo.revs import peel_commit

from ..entries import (
    STRICT,
    CaseEntry,
    LoadedGoldSet,
    claim_id,
    describe_validation_error,
    json_error,
    json_type,
    read_metadata,
)
from ..fqnames import FQN_EXTENSION, SOURCE_ROOTS, Reader, resolve_fqn
from ..model import GoldSetMetadata, TestCase
from .base import Format, ReadOptions


_ROOTS = ", ".join(repr(root) if root else "the root" for root in SOURCE_ROOTS)


def load_fqn(path: Path, options: ReadOptions) -> LoadedGoldSet:
    """Return the cases of an FQN retrieval set; never raises for bad content."""
    try:
        lines = path.read_text(encoding="utf-8-sig").split("\n")
    except OSError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        return LoadedGoldSet(path, GoldSetMetadata(), [], f"line 1: not UTF-8 text: {exc.reason}")
    records = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    metadata, error = GoldSetMetadata(), None
    if records and records[0][1].lstrip().startswith('{"metadata"'):
        metadata, error = _metadata(records.pop(0))
    read, problem = _tree(path, metadata, options)
    seen: dict[str, int] = {}
    entries = [_entry(number, text, read, problem, seen) for number, text in records]
    return LoadedGoldSet(path, metadata, entries, error)


def _metadata(record: tuple[int, str]) -> tuple[GoldSetMetadata, str | None]:
    number, text = record
    try:
        value = STRICT.decode(text)
    except ValueError as exc:
        return GoldSetMetadata(), f"line {number}: {json_error(exc)}"
    metadata, error = read_metadata(value.get("metadata") if isinstance(value, dict) else value)
    return metadata, None if error is None else f"line {number}: {error}"


def _tree(path: Path, metadata: GoldSetMetadata, options: ReadOptions) -> tuple[Reader | None, str | None]:
    """Return a reader of the tree the names live in, or None and why (every case then fails with it)."""
    repo, error = default_repo(path, metadata.repo, str(path), options.repos)
    if repo is None:
        return None, error
    if metadata.base_commit is None:
        return _directory_reader(repo), None
    try:
        repository = pygit2.Repository(str(repo))
    except pygit2.GitError as exc:
        return None, f"repo: {repo} is not a git repository: {exc}"
    commit = peel_commit(repository, metadata.base_commit)
    if isinstance(commit, str):
        return None, f"base_commit: {metadata.base_commit!r} is not in {repo}: {commit}"
    return _commit_reader(repository, commit), None


def _directory_reader(root: Path) -> Reader:
    def read(path: str) -> bytes | None:
        target = root / path
        if target.is_symlink() or not target.is_file():
            return None
        return target.read_bytes()

    return read


def _commit_reader(repository: pygit2.Repository, commit: pygit2.Commit) -> Reader:
    tree = commit.tree

    def read(path: str) -> bytes | None:
        try:
            entry = tree[path]
        except (KeyError, ValueError):
            return None
        try:
            blob = repository[entry.id]
        except KeyError:
            raise _Invalid(
                f"repo: {path!r} (blob {str(entry.id)[:12]}) is missing from {repository.path} (a partial clone?)"
            ) from None
        return blob.data if isinstance(blob, pygit2.Blob) else None

    return read


def _entry(number: int, text: str, read: Reader | None, problem: str | None, seen: dict[str, int]) -> CaseEntry:
    try:
        value = STRICT.decode(text)
    except ValueError as exc:
        return CaseEntry(number, None, json_error(exc), None)
    if not isinstance(value, dict):
        return CaseEntry(number, None, f"a query must be a JSON object, got {json_type(value)}", None)
    value.setdefault("id", f"line-{number}")
    case_id, duplicate = claim_id(value, number, seen)
    if duplicate:
        return CaseEntry(number, None, duplicate, None)
    if read is None:
        return CaseEntry(number, None, problem or "repo: no tree to resolve names in", case_id)
    try:
        case_json = _case_json(value, read)
    except _Invalid as exc:
        return CaseEntry(number, None, str(exc), case_id)
    try:
        return CaseEntry(number, TestCase.model_validate(case_json), None, case_id)
    except ValidationError as exc:
        return CaseEntry(number, None, describe_validation_error(exc), case_id)


class _Invalid(Exception):
    """A query field of the wrong shape, or a name the tree does not hold: ``field: message``."""


def _contexts(record: dict[str, Any], field: str) -> list[dict[str, Any]]:
    value = record.get(field, [])
    if not isinstance(value, list):
        raise _Invalid(f"{field}: must be a list, got {json_type(value)}")
    for index, ctx in enumerate(value):
        if not isinstance(ctx, dict) or not isinstance(ctx.get("fqn"), str) or not ctx["fqn"]:
            raise _Invalid(f"{field}[{index}].fqn: must be a non-empty string")
    return value


def _case_json(record: dict[str, Any], read: Reader) -> dict[str, Any]:
    """Return the native case (as JSON) of one query, its names resolved against the tree."""
    positives = _contexts(record, "positive_ctxs")
    if not positives:
        raise _Invalid("positive_ctxs: must list at least one context")
    ranks = [_rank(ctx, index) for index, ctx in enumerate(positives)]
    files: dict[str, dict[str, Any]] = {}
    for index, (ctx, rank) in enumerate(zip(positives, ranks)):
        found = resolve_fqn(ctx["fqn"], read)
        if found is None:
            raise _Invalid(f"positive_ctxs[{index}].fqn: {ctx['fqn']!r} is not a module, class or function "
                           f"of the tree (looked under {_ROOTS})")
        entry = files.setdefault(found.path, {"path": found.path, "symbols": [], "relevance": 1})
        entry["symbols"] += [name for name in (ctx["fqn"], found.entity) if name and name not in entry["symbols"]]
        entry["relevance"] = max(entry["relevance"], max(ranks) + 1 - rank)
    negatives = [ctx["fqn"] for ctx in _contexts(record, "negative_ctxs") if ctx.get("is_hard_negative") is True]
    meta: dict[str, Any] = record["metadata"] if isinstance(record.get("metadata"), dict) else {}
    case: dict[str, Any] = {
        "id": record["id"],
        "query": record.get("query"),
        "ground_truth_files": list(files.values()),
        "hard_negatives": _with_entities(negatives, read),
        FQN_EXTENSION: {key: value for key, value in record.items() if key not in ("id", "query", "positive_ctxs")},
    }
    if isinstance(meta.get("difficulty"), str):
        case["complexity"] = meta["difficulty"]
    return case


def _rank(ctx: dict[str, Any], index: int) -> int:
    rank = ctx.get("rank_relevance", 1)
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise _Invalid(f"positive_ctxs[{index}].rank_relevance: must be an integer >= 1 (1 = primary), got {rank!r}")
    return rank


def _with_entities(names: list[str], read: Reader) -> list[str]:
    """Return ``names`` each followed by its entity spelling, when the tree resolves it to one."""
    spelled: list[str] = []
    for name in names:
        found = resolve_fqn(name, read)
        spelled += [n for n in (name, found.entity if found else None) if n and n not in spelled]
    return spelled


FORMAT = Format(name="fqn", suffixes=(".jsonl",), sniff=sniff_fqn, read=load_fqn)
