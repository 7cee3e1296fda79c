"""One answer scored into its case record: cleaned files and entities, every metric, the miss category.

The call phase (``evaluate.py``) asks the agent; this module reads the answer against the case's truth
and the snapshot it searched: paths and entities are normalised (``agents/normalize.py``), files,
lines, symbols, modules and functions scored (``scoring/``), the scoring profile's own metrics added,
metrics of an order dropped for an unordered answer, and a miss classified.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_codesearch.agents.contract import UNORDERED, RetrievalResult, modules_of
from pytest_codesearch.agents.normalize import normalize_entities, normalize_paths
from pytest_codesearch.goldset.fqnames import FQN_EXTENSION, files_of_names
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.repo import Snapshot
from pytest_codesearch.scoring import (
    SourceFiles,
    classify_miss,
    is_miss,
    locate_spans,
    miss_cutoff,
    score_case,
    score_lines,
    score_symbols,
    truth_lines,
    truth_symbols,
)
from pytest_codesearch.scoring.levels import score_levels
from pytest_codesearch.scoring.matching import MatchMode, match_paths, match_symbols
from pytest_codesearch.scoring.profiles import score_profile
from pytest_codesearch.scoring.registry import needs_order
from pytest_codesearch.settings.model import Settings

MAX_EXTRA_ENTRIES = 1_000
"""Spans, symbols and dropped entries kept per answer in the case record (the rest are still scored)."""


def score_answer(
    record: dict[str, Any],
    answer: RetrievalResult,
    case: TestCase,
    relevance: Mapping[str, int],
    match: MatchMode,
    snapshot: Snapshot,
    settings: Settings,
) -> None:
    """Put ``answer``'s cleaned files and entities, every metric of ``case`` and the miss category in ``record``.

    ``relevance`` is the case's graded truth (``TestCase.relevance_map``) and ``match`` the gold set's
    matching; ``settings`` give the cut-offs, the profile, the answer limit and the truth cache.
    """
    answer = _cut(record, answer, settings.max_answer)
    original = snapshot.repo if snapshot.commit is None and snapshot.repo != snapshot.root else None
    raw_files = answer.files
    if case.has_extension(FQN_EXTENSION):  # an FQN gold set: names answered as files resolve as its positives do
        raw_files = files_of_names(raw_files, snapshot.files, snapshot.read)
    normalized = normalize_paths(raw_files, snapshot.root, snapshot.files, snapshot.directories, original)
    record["retrieved"] = normalized.paths
    record.update(_answer_extras(answer, normalized.sources))
    matched = match_paths(normalized.paths, relevance, match)
    metrics = score_case(
        matched,
        relevance,
        ks=settings.ks,
        k=settings.k,
        directories=normalized.directories,
        f_beta=settings.f_beta,
    )
    truth_dir = settings.truth_cache
    sources = _sources_for(snapshot, truth_dir)
    metrics.update(_finer_metrics(case, match, answer, snapshot, metrics["recall"], settings.ks, sources))
    # entities follow the rules of files: their paths cleaned, those naming no file of the snapshot dropped
    record["retrieved_functions"], functions_dropped = normalize_entities(
        answer.functions, snapshot.root, snapshot.files, original
    )
    record["retrieved_modules"], modules_dropped = normalize_entities(
        answer.modules, snapshot.root, snapshot.files, original
    )
    derived = answer.modules == modules_of(answer.functions)
    if derived:  # derived from the functions: their drops are those
        modules_dropped = []
    if record["retrieved_functions"]:  # read against the snapshot's outlines (modules, undefined functions)
        from pytest_codesearch.scoring.named import named_fields

        record.update(named_fields(
            record["retrieved_functions"], snapshot.read, derived, snapshot.tree_id, truth_dir,
            getattr(snapshot.reader, "blob_of", None),
        ))  # fmt: skip
    dropped = [*normalized.dropped, *functions_dropped, *modules_dropped]
    record["dropped"], record["invalid_paths"] = dropped[:MAX_EXTRA_ENTRIES], len(dropped)
    metrics.update(score_levels(case, record["retrieved_modules"], record["retrieved_functions"], settings.ks))
    cleaned = dict(zip(normalized.sources, normalized.paths))
    truth = (frozenset(relevance), case.ground_truth_functions)
    metrics.update(score_profile(settings.profile, raw_files, cleaned, answer.functions, *truth, settings.ks))
    if answer.metadata.get(UNORDERED) is True:  # a set, not a ranking: metrics of an order are refused
        record["unordered"] = True
        metrics = {name: value for name, value in metrics.items() if not needs_order(name)}
    record["metrics"] = metrics
    cutoff = miss_cutoff(settings.ks)
    if is_miss(matched, relevance, cutoff):
        record["failure_category"] = classify_miss(
            case.query, relevance, matched, normalized.directories, sources, cutoff
        )


def _cut(record: dict[str, Any], answer: RetrievalResult, limit: int) -> RetrievalResult:
    """Return ``answer`` with its files, functions and modules cut to ``limit`` entries each; the record says
    how long the longest list was when one is cut."""
    longest = max(len(answer.files), len(answer.functions), len(answer.modules))
    if longest <= limit:
        return answer
    record["answer_cut_from"] = longest
    return replace(answer, files=answer.files[:limit], scores=answer.scores[:limit],
                   functions=answer.functions[:limit], modules=answer.modules[:limit])  # fmt: skip


_SOURCES: dict[object, SourceFiles] = {}
_SOURCES_KEPT = 2
"""Snapshots whose file texts stay cached (the seeded order runs a snapshot's cases together)."""


def _sources_for(snapshot: Snapshot, folder: Path) -> SourceFiles:
    """Return the text reader of ``snapshot``, shared by its cases so each file is read once.

    Texts come through the snapshot's one reader (blobs by id for a commit), whatever is on disk; they
    are kept by reader, so a directory listed again (another run in this process) is read again. The
    function extents of their texts are kept in ``folder`` (the truth cache's) for later runs.
    """
    sources = _SOURCES.pop(snapshot.reader, None) or SourceFiles(snapshot.read, folder)
    _SOURCES[snapshot.reader] = sources  # most recently used last
    while len(_SOURCES) > _SOURCES_KEPT:
        del _SOURCES[next(iter(_SOURCES))]
    return sources


def _answer_extras(answer: RetrievalResult, sources: list[int]) -> dict[str, Any]:
    """Return what the answer carries beside its files, for the record: scores aligned with ``retrieved``."""
    aligned = [answer.scores[i] for i in sources] if len(answer.scores) == len(answer.files) else []
    return {
        "scores": aligned,
        "spans": [[s.path, s.start_line, s.end_line] for s in answer.spans[:MAX_EXTRA_ENTRIES]],
        "symbols": answer.symbols[:MAX_EXTRA_ENTRIES],
        "metadata": answer.metadata,
    }


def _finer_metrics(
    case: TestCase,
    match: MatchMode,
    answer: RetrievalResult,
    snapshot: Snapshot,
    file_recall: float,
    ks: tuple[int, ...],
    sources: SourceFiles,
) -> dict[str, float]:
    """Return the line metrics if the case gives lines and the symbol metrics if it names symbols."""
    metrics: dict[str, float] = {}
    truth = truth_lines(case)
    if truth:
        returned = locate_spans(answer.spans, snapshot.root, snapshot.files)
        metrics.update(score_lines(truth, returned, file_recall, sources))
    positives = truth_symbols(case)
    if positives:
        negatives = frozenset(case.hard_negatives)
        symbols = match_symbols(answer.symbols, positives, negatives, match)
        metrics.update(score_symbols(symbols, positives, negatives, ks))
    return metrics
