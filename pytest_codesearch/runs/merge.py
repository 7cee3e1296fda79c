"""``--codesearch-merge DIR...``: the journals of several shards (or runs) as one run's records."""

from __future__ import annotations

from pathlib import Path

from pytest_codesearch.runs.identity import first_difference, shard_count
from pytest_codesearch.runs.journal import JOURNAL_NAME, JournalEnd, JournalError, RunRecords, read_journal
from pytest_codesearch.settings.options import option_label

SHARD_LABEL = option_label("shard")
AGENTS_LABEL = option_label("agents")
"""Journals may hold different agents (each agent's cases stand on their own): the merge holds them all."""


class MergeError(ValueError):
    """Journals that cannot be merged; str() names the files and what differs."""


def journal_path(given: Path) -> Path:
    """Return the journal a merge argument names: the file itself, or ``journal.jsonl`` in a directory."""
    return given / JOURNAL_NAME if given.is_dir() else given


def merge_records(paths: list[Path]) -> tuple[RunRecords, list[str]]:
    """Return the union of the journals at ``paths`` as the records of one run, and the shards ``I/N`` of a
    sharded run that none of them holds.

    Every journal must come from the same run: the same options that change results (``runs/identity.py``;
    shards differ only in I of I/N, journals may hold different agents) and metrics: that is what makes the merged aggregates equal a single
    run's. A case found in two journals keeps the later file's record. The merged run started with the
    earliest and finished with the latest journal; its exit status is the worst one (null when a journal
    has no end); it is a shard no more when every shard of it is merged.
    """
    if not paths:
        raise MergeError("--codesearch-merge: give at least one report directory or journal")
    loaded = []
    for path in paths:
        try:
            loaded.append((path, read_journal(journal_path(path))))
        except JournalError as exc:
            raise MergeError(f"--codesearch-merge: {exc}") from None
    first_path, first = loaded[0]
    merged = RunRecords(first.header.model_copy(deep=True))
    for path, records in loaded:
        _check_same_settings(first_path, first, path, records)
        merged.header.run.agents.update(records.header.run.agents)
        merged.cases.update(records.cases)
        merged.invalid.extend(i for i in records.invalid if i not in merged.invalid)
        merged.collected |= records.collected
        merged.goldsets.update(records.goldsets)
    missing = missing_shards([r for _, r in loaded])
    if not missing:
        merged.header.run.shard = None
    starts = [r.header.run.started_at for _, r in loaded]
    merged.header.run.started_at = min(starts)
    merged.header.run.workers = sum(r.header.run.workers for _, r in loaded)
    ends = [r.end for _, r in loaded]
    if all(end is not None for end in ends):
        merged.end = JournalEnd(
            finished_at=max(e.finished_at for e in ends if e is not None),
            exit_status=max((e.exit_status or 0) for e in ends if e is not None),
        )
    return merged, missing


def _check_same_settings(first_path: Path, first: RunRecords, path: Path, records: RunRecords) -> None:
    """Raise ``MergeError`` naming the first option two journals differ in (shards may differ in I of I/N)."""
    a, b = first.header.run, records.header.run
    differ = first_difference(a, b, ignore=(SHARD_LABEL, AGENTS_LABEL))
    if differ is None and shard_count(a) != shard_count(b):
        differ = (SHARD_LABEL, a.shard or "none", b.shard or "none")
    if differ is None and first.header.metric_names != records.header.metric_names:
        differ = ("metrics", ",".join(first.header.metric_names), ",".join(records.header.metric_names))
    if differ is not None:
        label, before, after = differ
        raise MergeError(
            f"--codesearch-merge: {first_path} and {path} differ in {label} ({before} vs {after}); "
            "run every shard with the same options, including --codesearch-seed"
        )


def missing_shards(records: list[RunRecords]) -> list[str]:
    """Return the shards ``I/N`` of a sharded run that none of ``records`` holds (empty when it was not sharded)."""
    given = {r.header.run.shard for r in records if r.header.run.shard is not None}
    count = shard_count(records[0].header.run) if records else None
    if count is None:
        return []
    return [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in given]
