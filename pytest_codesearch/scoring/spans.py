"""Line- and function-level scores of the spans an agent points at.

They apply to a case whose ground truth gives ``lines`` for at least one file; only those files
take part. Line numbers are 1-based and ranges inclusive, as in the gold set and in ``Span``.
Ranges are handled as merged intervals, never as sets of lines, so a span of a million lines
costs no more than one of ten.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_codesearch.agents.contract import Span
from pytest_codesearch.agents.normalize import normalize_paths
from pytest_codesearch.goldset.model import TestCase
from pytest_codesearch.scoring.source import SourceFiles, SourceReader, function_extents

LINE_METRICS = ("line_coverage", "line_precision", "function_hit_rate", "quality_score")
"""The metrics of a case whose ground truth gives lines, in report order."""
QUALITY_WEIGHTS = (0.4, 0.4, 0.2)
"""Weights of file recall, line precision and function hit rate in ``quality_score``."""

Interval = tuple[int, int]


def truth_lines(case: TestCase) -> dict[str, list[Interval]]:
    """Return the merged ground-truth line intervals of each file that gives lines."""
    return {entry.path: merge(entry.lines) for entry in case.ground_truth_files if entry.lines}


def merge(ranges: Iterable[Interval]) -> list[Interval]:
    """Return ``ranges`` sorted and merged: overlapping or adjacent intervals become one.

    An interval whose end is before its start is empty and dropped; starts below 1 become 1.
    """
    merged: list[Interval] = []
    for start, end in sorted((max(start, 1), end) for start, end in ranges if end >= max(start, 1)):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def count_lines(intervals: Iterable[Interval]) -> int:
    """Return how many lines the (merged) ``intervals`` hold."""
    return sum(end - start + 1 for start, end in intervals)


def overlap(left: Sequence[Interval], right: Sequence[Interval]) -> int:
    """Return how many lines two merged interval lists share."""
    shared = i = j = 0
    while i < len(left) and j < len(right):
        start, end = max(left[i][0], right[j][0]), min(left[i][1], right[j][1])
        if start <= end:
            shared += end - start + 1
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return shared


def locate_spans(spans: Sequence[Span], root: Path, files: frozenset[str]) -> dict[str, list[Interval]]:
    """Return the merged line intervals the spans cover in each snapshot file.

    Span paths are normalised like the agent's ranked files (``normalize_paths``); a span whose
    path names no file of the snapshot (or a directory) is ignored, and so is an empty span.
    """
    located: dict[str, str | None] = {}
    by_path: dict[str, list[Interval]] = {}
    for span in spans:
        if span.path not in located:
            paths = normalize_paths([span.path], root, files, frozenset()).paths
            located[span.path] = paths[0] if paths else None
        path = located[span.path]
        if path is not None:
            by_path.setdefault(path, []).append((span.start_line, span.end_line))
    return {path: merge(ranges) for path, ranges in by_path.items()}


def score_lines(
    truth: Mapping[str, Sequence[Interval]],
    returned: Mapping[str, Sequence[Interval]],
    file_recall: float,
    source: SourceReader,
) -> dict[str, float]:
    """Return the LINE_METRICS of one case.

    ``truth`` and ``returned`` map paths to merged intervals (``truth_lines``, ``locate_spans``);
    ``file_recall`` is the case's set ``recall``; ``source`` reads a snapshot file's text.
    line_coverage = shared lines / ground-truth lines; line_precision = shared lines / returned
    lines in files that have ground-truth lines (0.0 when there are none); function_hit_rate =
    ground-truth functions a span overlaps / ground-truth functions (``function_units``);
    quality_score = 0.4 x file_recall + 0.4 x line_precision + 0.2 x function_hit_rate.
    """
    shared = sum(overlap(lines, returned.get(path, ())) for path, lines in truth.items())
    in_truth_files = sum(count_lines(returned.get(path, ())) for path in truth)
    coverage = shared / count_lines(interval for lines in truth.values() for interval in lines)
    precision = shared / in_truth_files if in_truth_files else 0.0
    units = [(path, unit) for path, lines in truth.items() for unit in _units(path, lines, source)]
    hit = sum(1 for path, unit in units if overlap(unit, returned.get(path, ())))
    function_rate = hit / len(units)
    w_recall, w_precision, w_function = QUALITY_WEIGHTS
    quality = w_recall * file_recall + w_precision * precision + w_function * function_rate
    return dict(zip(LINE_METRICS, (coverage, precision, function_rate, quality), strict=True))


def function_units(path: str, lines: Sequence[Interval], text: str | None) -> list[list[Interval]]:
    """Return the ground-truth "functions" of one file, each as the merged intervals it spans.

    ``lines`` are the file's merged ground-truth ranges. In a file of a language
    ``pytest_codesearch.outline`` reads, a range contributes the innermost function around each of
    its lines (decorators included), each function once per file and spanning its whole definition; a
    range with no line inside any function (module or class level) is a unit of its own. Any other
    file, or a file that cannot be read, falls back to one unit per range.
    """
    return units_of(lines, function_extents(path, text) if text is not None else None)


def units_of(lines: Sequence[Interval], extents: Sequence[Interval] | None) -> list[list[Interval]]:
    """Return :func:`function_units` of a file whose functions span ``extents`` (None: no outline)."""
    if extents is None:
        return [[interval] for interval in lines]
    owners = _owners(extents)
    found: dict[int, None] = {}
    loose: list[list[Interval]] = []
    for start, end in lines:
        inside = [owners[line] for line in range(start, min(end, len(owners) - 1) + 1)]
        touched = [owner for owner in inside if owner is not None]
        if touched:
            found.update(dict.fromkeys(touched))
        else:
            loose.append([(start, end)])
    return [[extents[index]] for index in found] + loose


def _units(path: str, lines: Sequence[Interval], source: SourceReader) -> list[list[Interval]]:
    """Return the units of ``path``, its extents kept by ``source`` when it is a :class:`SourceFiles`."""
    if isinstance(source, SourceFiles):
        return units_of(lines, source.function_extents(path))
    return function_units(path, lines, source(path))


def _owners(extents: Sequence[Interval]) -> list[int | None]:
    """Return, for each line number (index 0 unused), the index of its innermost function or None.

    ``extents`` come outer before inner, so a nested function overwrites its parent's lines.
    """
    last = max((end for _, end in extents), default=0)
    owners: list[int | None] = [None] * (last + 1)
    for index, (start, end) in enumerate(extents):
        owners[start : end + 1] = [index] * (end - start + 1)
    return owners
