"""``--codesearch-merge DIR...``: the journals of several shards (or runs) as one run's records."""

from __future__ import annotations

from pathlib import Path

from pytest_codesearch.keys import JOURNAL_NAME
from pytest_codesearch.runs.journal import JournalEnd, JournalError, RunRecords, read_journal


class MergeError(ValueError):
    """Journals that cannot be merged; str() names the files and what differs."""


def journal_path(given: Path) -> Path:
    """Return the journal a merge argument names: the file itself, or ``journal.jsonl`` in a directory."""
    return given / JOURNAL_NAME if given.is_dir() else given


def merge_records(paths: list[Path]) -> RunRecords:
    """Return the union of the journals at ``paths`` as the records of one run.

    Every journal must come from the same settings (seed, runs, cut-offs, metrics): that is what
    makes the merged aggregates equal a single run's. A case found in two journals keeps the later
    file's record. The merged run started with the earliest and finished with the latest journal;
    its exit status is the worst one (null when a journal has no end).
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
    starts = [r.header.run.started_at for _, r in loaded]
    merged.header.run.started_at = min(starts)
    merged.header.run.workers = sum(r.header.run.workers for _, r in loaded)
    ends = [r.end for _, r in loaded]
    if all(end is not None for end in ends):
        merged.end = JournalEnd(
            finished_at=max(e.finished_at for e in ends if e is not None),
            exit_status=max((e.exit_status or 0) for e in ends if e is not None),
        )
    return merged


_SAME = ("seed", "runs", "k", "ks", "bootstrap", "alpha", "f_beta")


def _check_same_settings(first_path: Path, first: RunRecords, path: Path, records: RunRecords) -> None:
    a, b = first.header, records.header
    differ = [key for key in _SAME if getattr(a.run, key) != getattr(b.run, key)]
    if a.metric_names != b.metric_names:
        differ.append("metrics")
    if differ:
        details = ", ".join(f"{k}: {getattr(a.run, k, '?')} vs {getattr(b.run, k, '?')}" for k in differ)
        raise MergeError(
            f"--codesearch-merge: {first_path} and {path} were run with different settings ({details}); "
            "run every shard with the same options, including --codesearch-seed"
        )
